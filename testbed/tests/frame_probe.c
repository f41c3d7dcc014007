/*
 * frame_probe.c — the STA agent's classifier (dataplane/agent/frame_boundary.c) on receive times read from stdin,
 * one ns integer a line, with the model file argv[1]; prints per packet "<1 if first of an A-MPDU, else 0>
 * <P(first), or -1 before m gaps are known>". test_features_match_dataplane.py compiles it against the
 * dataplane's sources to hold the trainer's features (runner/ack_dataset.py) to what the agent computes.
 */
#include <inttypes.h>
#include <stdio.h>

#include "ack_model_json.h"
#include "frame_boundary.h"

int main(int argc, char **argv)
{
    struct adw_ack_model m;
    char err[256];
    if (argc != 2 || ack_model_json_load_file(argv[1], ACK_MODEL_KIND_STA_FRAME, &m, err, sizeof err) != 0) {
        fprintf(stderr, "frame_probe: %s\n", argc == 2 ? err : "usage: frame_probe MODEL < times");
        return 2;
    }
    struct adw_frame_est e;
    adw_frame_est_init(&e, &m);
    uint64_t t;
    while (scanf("%" SCNu64, &t) == 1) {
        int first = adw_frame_est_observe(&e, t);
        printf("%d %.17g\n", first, e.ia_n == m.m ? adw_ack_model_prob(&m, e.ia_us) : -1.0);
    }
    return 0;
}
