/*
 * sim_main.c — discrete-event simulation of the scheduling core in the
 * 2AP-2STA lab of 004 §4-§6.1: the real core (libadwiser_core.a) between a
 * bulk TCP server and two synthetic APs (ap_model.h) whose STAs' ACKs come
 * back through the core. Virtual time; the core is called exactly as a
 * backend calls it (enqueue bursts, dequeue at adw_sched_next_event_ns,
 * poll_frame for telemetry).
 *
 * It prints, per pair, r(k) converging (TS-ABR-QD, 004 §5 eq. (1)), the mean
 * drain time V against the slice S, and the throughput against the bound
 * beta_i S_i / S of a pair that uses its whole slice at its isolated rate.
 * It is a tool for understanding, not evidence: the APs here are a
 * queueing model, the emulated testbed is the real test. The lab and its
 * events are sim_lab.c, its command line sim_args.c; this file prints.
 *
 * Scenario "bulk" (004 §6.1): bulk downlink TCP at both STAs.
 * Scenario "http" (004 §6.3, Table 5): bulk TCP at STA1; STA2 downloads a
 * 22.64 Mbit page (one connection here, ten in the paper) then thinks for
 * 100-500 ms, with dynamic slicing on so its idle slices go to STA1.
 *
 * usage: adwiser-sim [slice_ms (20)] [seconds (10)] [seed (1)] [bulk|http]
 */
#include <math.h>
#include <stdio.h>

#include "sim_args.h"
#include "sim_lab.h"

int main(int argc, char **argv)
{
    struct sim_args args;
    if (sim_args_parse(argc, argv, &args) != 0) {
        fprintf(stderr, "usage: %s [slice_ms 1..500] [seconds 2..60] [seed] [bulk|http]\n", argv[0]);
        return 2;
    }
    unsigned slice_ms = args.slice_ms, seconds = args.seconds;
    uint64_t seed = args.seed;
    bool http = args.http;
    char err[256];
    struct sim_lab *L = sim_lab_create(slice_ms, seconds, seed, http, err, sizeof(err));
    if (L == NULL) {
        fprintf(stderr, "adwiser-sim: %s\n", err);
        return 1;
    }
    sim_lab_run(L);

    const struct adw_config *cfg = L->cfg;
    printf("ADWISER core simulation: 2AP-2STA lab (004 §4-6), %s, S1 = S2 = %u ms, "
           "a = %.1f pkt/ms, r_init = %u, %u s, seed %llu\n",
           http ? "bulk TCP at STA1 + HTTP at STA2 with dynamic slicing" : "downlink bulk TCP at both STAs",
           slice_ms, cfg->policies.ts_abr_qd.a_pkts_per_ms, cfg->policies.ts_abr_qd.r_init_pkts, seconds,
           (unsigned long long)seed);
    printf("AP model: exponential per-packet airtime, beta1 = %.2f pkt/ms (79.6 Mbit/s isolated), "
           "beta2 = %.2f pkt/ms (103.5 Mbit/s); ACK return %.2f ms; Reno-like server %.0f ms away\n\n",
           SIM_BETA[0], SIM_BETA[1], D_ACK_NS / 1e6, D_SERVER_NS / 1e6);
    printf("frame   r1(k)  V1(ms)  rel1  limit1 |  r2(k)  V2(ms)  rel2  limit2\n");
    const struct frame_stats *fs = &L->frames;
    for (unsigned k = 0; k < fs->n_frames; k++) {
        if (!(k < 12 || k % 25 == 0 || k + 1 == fs->n_frames))
            continue;
        if (k >= fs->n_rows && k + 1 < fs->n_frames) /* the table keeps the first frames and the last */
            continue;
        const struct frame_row *w = k < fs->n_rows ? &fs->rows[k] : &fs->last;
        printf("%5u  %6u  %6.2f  %4u  %6u | %6u  %6.2f  %4u  %6u\n", k, w->r[0], w->v_ms[0], w->rel[0], w->limit[0],
               w->r[1], w->v_ms[1], w->rel[1], w->limit[1]);
    }
    double window_s = (double)(L->end_ns - L->warm_ns) / 1e9, utility = 0, bound = 0;
    printf("\nsteady state (after %.1f s):\n", L->warm_ns / 1e9);
    printf("(sd theory: sqrt(a sigma^2 beta^2 S / (2 - a/beta)), 004 §5, with exponential airtime: sigma^2 beta^2 = 1)\n");
    printf("pair       beta*S(pkts)  mean r  sd r  sd theory  mean V(ms)  S(ms)  tput(Mbit/s)  bound(Mbit/s)  ratio  "
           "outside own slice(%% air)\n");
    for (unsigned i = 0; i < 2; i++) {
        struct steady_pair sp;
        frame_stats_steady(fs, i, &sp);
        double tput = L->flows[i].delivered_bytes * 8 / window_s / 1e6;
        double bnd = SIM_BETA[i] * 1000 * TCP_MSS * 8 * ((double)L->slice_ns / L->frame_ns) / 1e6;
        utility += log(tput);
        bound += log(bnd);
        double a = cfg->policies.ts_abr_qd.a_pkts_per_ms;
        double sd_theory = sqrt(a * slice_ms / (2 - a / SIM_BETA[i]));
        const struct ap_model *ap = &L->aps[i];
        printf("ap%u/sta%u  %12.1f  %6.1f  %4.1f  %9.1f  %10.2f  %5u  %12.1f  %13.1f  %5.3f  %14.1f\n", i + 1, i + 1,
               SIM_BETA[i] * slice_ms, sp.mean_r, sp.sd_r, sd_theory, sp.mean_v_ms, slice_ms, tput, bnd, tput / bnd,
               ap->air_ns ? 100.0 * ap->air_outside_ns / ap->air_ns : 0);
    }
    struct adw_stats st;
    adw_sched_stats_read(L->s, &st);
    if (http)
        printf("HTTP at STA2: %u pages, mean response %.0f ms (page %.2f Mbit, think 100-500 ms); STA1's airtime "
               "outside its own slice is the idle slices it was given\n",
               L->http.pages, L->http.pages ? L->http.resp_sum_ms / L->http.pages : 0.0,
               PAGE_SEGS * TCP_MSS * 8 / 1e6);
    else
        printf("utility sum ln(theta) = %.2f, bound sum ln(beta_i S_i / S) = %.2f\n", utility, bound);
    printf("core: frames %llu, batches %llu (under-filled %llu), drains completed %llu, capped %llu, "
           "superseded %llu, overrun %llu, drops %llu (resent by the server), slices reassigned %llu\n",
           (unsigned long long)st.frames, (unsigned long long)st.batches, (unsigned long long)st.batches_underfilled,
           (unsigned long long)st.drains_completed, (unsigned long long)st.drains_capped,
           (unsigned long long)st.drains_superseded,
           (unsigned long long)st.drains_overrun, (unsigned long long)(st.drops_tail + st.drops_pool),
           (unsigned long long)st.reassignments);
    printf("APs: tail drops (queue full, %u packets) ap1 %llu, ap2 %llu (resent by the server)\n", L->aps[0].cap,
           (unsigned long long)L->aps[0].drops_tail, (unsigned long long)L->aps[1].drops_tail);
    sim_lab_free(L);
    return 0;
}
