/*
 * rss_step.h — wlan-emu's --rss-step: a link's RSS shifted both ways on SIGUSR1.
 */
#ifndef RSS_STEP_H
#define RSS_STEP_H

#include <stddef.h>

#include "wlan_air.h"

/* A path change applied on SIGUSR1 (--rss-step): an obstacle or a STA moving changes the link's RSS mid-run
 * (issue 9's MCS step), at the instant the test harness chooses, on the virtual clock. */
struct rss_step {
    int a, b;          /* air-model nodes of the link */
    double delta_db;   /* RSS change, both ways (dB) */
};

#define MAX_RSS_STEPS 8

/* Parses NODE,NODE,DELTA_DB against the air config; 0, or -1 with a message naming what is wrong in err. */
int rss_step_parse(const wlan_air_t *air, const char *spec, struct rss_step *out, char *err, size_t errlen);
/* Applies every step once at virtual instant now_us, logging what the link's RSS became (or that the change
 * was refused). The air is first run up to now_us through cb, so a PPDU that started before the step keeps the
 * RSS of its start. */
void rss_steps_apply(wlan_air_t *air, const struct rss_step *st, int n, uint64_t now_us,
                     const struct wlan_air_callbacks *cb);

#endif
