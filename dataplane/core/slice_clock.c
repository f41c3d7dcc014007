/* slice_clock.c — see slice_clock.h. */
#include "slice_clock.h"

#include <string.h>

void adw_slice_clock_set_map(struct adw_slice_clock *c, const struct adw_config *cfg)
{
    c->n_slices = cfg->n_slices;
    c->frame_ns = 0;
    for (unsigned i = 0; i < cfg->n_slices; i++) {
        c->dur_ns[i] = cfg->slices[i].duration_ns;
        c->frame_ns += c->dur_ns[i];
    }
}

void adw_slice_clock_init(struct adw_slice_clock *c, const struct adw_config *cfg, uint64_t start_ns)
{
    memset(c, 0, sizeof(*c));
    adw_slice_clock_set_map(c, cfg);
    c->frame_start_ns = c->slice_start_ns = start_ns;
}

uint64_t adw_slice_clock_next_ns(const struct adw_slice_clock *c)
{
    if (!c->started)
        return c->slice_start_ns;
    return c->slice_start_ns + c->dur_ns[c->slice];
}

int adw_slice_clock_step(struct adw_slice_clock *c, uint64_t now_ns, struct adw_slice_event *ev)
{
    if (!c->started) {
        if (now_ns < c->slice_start_ns)
            return 0;
        c->started = true;
    } else {
        uint64_t next = c->slice_start_ns + c->dur_ns[c->slice];
        if (now_ns < next)
            return 0;
        c->prev_dur_ns = c->dur_ns[c->slice];
        if (c->slice + 1u < c->n_slices) {
            c->slice++;
            c->slice_start_ns = next;
        } else {
            /* Frame boundary. Late by a frame or more: skip whole frames of the current length. */
            uint64_t behind = now_ns - next;
            if (behind >= c->frame_ns) {
                uint64_t k = behind / c->frame_ns;
                next += k * c->frame_ns;
                c->frame += k;
                c->frames_skipped += k;
            }
            c->frame++;
            c->slice = 0;
            c->frame_start_ns = c->slice_start_ns = next;
        }
    }
    ev->frame_boundary = c->slice == 0;
    ev->frame = c->frame;
    ev->slice = c->slice;
    ev->start_ns = c->slice_start_ns;
    return 1;
}
