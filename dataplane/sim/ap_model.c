/* ap_model.c — see ap_model.h. */
#include "ap_model.h"

void ap_init(struct ap_model *ap, uint32_t index, double beta, uint64_t slice_off_ns, uint64_t slice_len_ns,
             uint64_t frame_ns)
{
    *ap = (struct ap_model){.index = index, .beta_pkts_per_ms = beta, .slice_off_ns = slice_off_ns,
                            .slice_len_ns = slice_len_ns, .frame_ns = frame_ns, .cap = AP_QUEUE_CAP};
}

static void start_next(struct ap_model *ap, uint64_t now_ns, struct event_queue *q, struct rng *r)
{
    ap->busy = true;
    ap->service_start_ns = now_ns;
    uint64_t t = (uint64_t)(rng_exp(r, 1.0 / ap->beta_pkts_per_ms) * 1e6) + 1;
    eq_push(q, now_ns + t, EV_AP_DONE, ap->index, 0);
}

int ap_receive(struct ap_model *ap, uint64_t seg, uint64_t now_ns, struct event_queue *q, struct rng *r)
{
    if (ap->n >= ap->cap) {
        ap->drops_tail++;
        return -1;
    }
    ap->seg[(ap->head + ap->n++) % AP_QUEUE_CAP] = seg;
    if (!ap->busy)
        start_next(ap, now_ns, q, r);
    return 0;
}

/* Part of [t0, t1) inside the periodic own-slice windows. */
static uint64_t inside_own_slice(const struct ap_model *ap, uint64_t t0, uint64_t t1)
{
    uint64_t in = 0;
    for (uint64_t k = t0 / ap->frame_ns; k * ap->frame_ns < t1; k++) {
        uint64_t w0 = k * ap->frame_ns + ap->slice_off_ns, w1 = w0 + ap->slice_len_ns;
        uint64_t a = t0 > w0 ? t0 : w0, b = t1 < w1 ? t1 : w1;
        if (b > a)
            in += b - a;
    }
    return in;
}

uint64_t ap_done(struct ap_model *ap, uint64_t now_ns, struct event_queue *q, struct rng *r, bool measure)
{
    uint64_t seg = ap->seg[ap->head];
    ap->head = (ap->head + 1) % AP_QUEUE_CAP;
    ap->n--;
    if (measure) {
        uint64_t d = now_ns - ap->service_start_ns;
        ap->air_ns += d;
        ap->air_outside_ns += d - inside_own_slice(ap, ap->service_start_ns, now_ns);
    }
    ap->busy = false;
    if (ap->n > 0)
        start_next(ap, now_ns, q, r);
    return seg;
}
