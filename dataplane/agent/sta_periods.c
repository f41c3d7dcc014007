/* sta_periods.c — adwiser-sta-agent's per-period reports and run totals; see sta_periods.h. */
#include "sta_periods.h"

#include <string.h>

void sta_periods_init(struct sta_periods *p, const struct adw_ack_model *model, uint64_t idle_close_ns)
{
    memset(p, 0, sizeof(*p));
    adw_frame_est_init(&p->est, model);
    p->idle_close_ns = idle_close_ns;
}

bool sta_periods_packet(struct sta_periods *p, uint64_t t_ns)
{
    p->pkts++;
    return adw_frame_est_observe(&p->est, t_ns);
}

bool sta_periods_end(struct sta_periods *p, uint64_t now_ns, struct sta_report *r)
{
    double raw = adw_frame_est_take(&p->est, now_ns, p->idle_close_ns, &r->frames, &r->pkts);
    /* The model's scale corrects the classifier's mean as the core corrects its ACK-burst mean. The agent knows no
     * count of its AP's STAs: one. */
    r->mean = raw >= 0 ? adw_ack_model_estimate(p->est.model, raw, 1) : raw;
    p->frames += r->frames;
    /* The packets of an A-MPDU still open at a period's end were received in that period; if it closed nothing,
     * no entry is written (the controller reads only entries with frames), so they wait for the next one. */
    r->pkts += p->unreported_pkts;
    p->unreported_pkts = r->frames > 0 ? 0 : r->pkts;
    return r->frames > 0;
}

bool sta_periods_finish(struct sta_periods *p, struct sta_report *r)
{
    adw_frame_est_close_open(&p->est);
    /* The open A-MPDU is closed already; the time only matters to the idle close. */
    return sta_periods_end(p, p->est.last_ns, r);
}
