/*
 * slice_clock.h — frames of slices (SPEC §3.1, 004 §2, §5).
 *
 * Time is cut into periodic frames; a frame is the sequence of the slice
 * map's slices. The clock yields one event per slice start, in order; the
 * event of slice 0 is a frame boundary, the only point where the caller may
 * install a new slice map (adw_slice_clock_set_map), which then shapes the
 * frame that begins there. The clock never reads time: it is stepped with
 * now_ns. If the caller is late by more than a frame, whole frames are
 * skipped (counted) rather than replayed, so the schedule stays anchored;
 * the slices of the frame it comes back in that are over by now are still
 * yielded (the frame boundary among them installs a new map), and the
 * scheduler releases no batch in them (release.c, slices_skipped).
 */
#ifndef ADW_CORE_SLICE_CLOCK_H
#define ADW_CORE_SLICE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "adwiser/config.h"

struct adw_slice_clock {
    uint16_t n_slices;                    /* slices per frame */
    uint64_t dur_ns[ADW_MAX_SLICES];      /* slice lengths, ns */
    uint64_t frame_ns;                    /* their sum, ns */
    bool started;                         /* the first event (frame 0, slice 0) was yielded */
    uint64_t frame;                       /* index of the current frame */
    uint64_t frame_start_ns;              /* start of the current frame */
    uint16_t slice;                       /* current slice */
    uint64_t slice_start_ns;              /* start of the current slice */
    uint64_t prev_dur_ns;                 /* length of the slice before it, as it ran (the map in force then: a
                                             new map installed at this frame boundary does not change it); 0 at
                                             the first slice */
    uint64_t frames_skipped;              /* whole frames skipped because the caller was late */
};

struct adw_slice_event {
    bool frame_boundary;                  /* slice 0 of a new frame */
    uint64_t frame;                       /* frame index */
    uint16_t slice;                       /* slice index */
    uint64_t start_ns;                    /* scheduled start of the slice, ns */
};

/* The first frame starts at start_ns. */
void adw_slice_clock_init(struct adw_slice_clock *c, const struct adw_config *cfg, uint64_t start_ns);
/* Installs the slice lengths of cfg; call only on a frame-boundary event (it shapes the frame starting there). */
void adw_slice_clock_set_map(struct adw_slice_clock *c, const struct adw_config *cfg);
/* Scheduled start of the next slice not yet yielded, ns. */
uint64_t adw_slice_clock_next_ns(const struct adw_slice_clock *c);
/* 1 and ev filled if a slice started at or before now_ns, else 0. Call until it returns 0. */
int adw_slice_clock_step(struct adw_slice_clock *c, uint64_t now_ns, struct adw_slice_event *ev);

#endif
