/* Token bucket of one paced pair; see pacer.h. */
#include "pacer.h"

#define NS_PER_S 1000000000ll
#define NS_PER_US 1000ull

void adw_pacer_init(struct adw_pacer *p, uint32_t cap_bytes, uint64_t now_ns)
{
    p->rate_bps = 0;
    p->credit_bits_ns = 0;
    p->last_ns = now_ns;
    p->cap_bits_ns = (uint64_t)cap_bytes * 8u * (uint64_t)NS_PER_S;
    p->backlog_cap_bits_ns = 0;
}

/* The credit cap in force: the backlog cap while the queue stayed backlogged since the last release. */
static uint64_t cap_of(const struct adw_pacer *p)
{
    return p->backlog_cap_bits_ns > p->cap_bits_ns ? p->backlog_cap_bits_ns : p->cap_bits_ns;
}

/* Brings the credit up to now_ns at the current rate. dt is clamped first so rate * dt cannot overflow: the credit
 * only needs to grow from its floor (minus one frame) to the cap. */
static void accrue(struct adw_pacer *p, uint64_t now_ns)
{
    if (now_ns <= p->last_ns) {
        return;
    }
    uint64_t dt = now_ns - p->last_ns;
    p->last_ns = now_ns;
    if (p->rate_bps == 0) {
        return;
    }
    int64_t cap = (int64_t)cap_of(p);
    if (p->credit_bits_ns >= cap)
        return;
    uint64_t room = (uint64_t)(cap - p->credit_bits_ns);
    uint64_t dt_full = room / p->rate_bps + 1;
    if (dt >= dt_full) {
        p->credit_bits_ns = cap;
        return;
    }
    p->credit_bits_ns += (int64_t)(p->rate_bps * dt);
    if (p->credit_bits_ns > cap)
        p->credit_bits_ns = cap;
}

void adw_pacer_set_rate(struct adw_pacer *p, uint64_t rate_bps, uint64_t now_ns)
{
    accrue(p, now_ns);
    if (rate_bps == 0 || p->rate_bps == 0) {
        p->credit_bits_ns = 0; /* entering or leaving paced mode starts from an empty bucket */
        p->backlog_cap_bits_ns = 0;
    }
    /* Keep rate * (cap / rate) sane: 1 bit/s .. 10 Tbit/s. */
    p->rate_bps = rate_bps > 10000000000000ull ? 10000000000000ull : rate_bps;
    p->last_ns = now_ns > p->last_ns ? now_ns : p->last_ns;
}

bool adw_pacer_may_send(struct adw_pacer *p, uint64_t now_ns)
{
    accrue(p, now_ns);
    return p->rate_bps > 0 && p->credit_bits_ns >= 0;
}

void adw_pacer_sent(struct adw_pacer *p, uint32_t len, uint64_t now_ns)
{
    accrue(p, now_ns);
    p->credit_bits_ns -= (int64_t)len * 8 * NS_PER_S;
}

void adw_pacer_backlogged(struct adw_pacer *p, uint64_t backlog_cap_bytes, uint64_t now_ns)
{
    accrue(p, now_ns); /* credit up to now under the cap that held until now */
    p->backlog_cap_bits_ns = backlog_cap_bytes * 8u * (uint64_t)NS_PER_S;
    if (p->credit_bits_ns > (int64_t)cap_of(p))
        p->credit_bits_ns = (int64_t)cap_of(p);
}

uint64_t adw_pacer_next_ns(const struct adw_pacer *p, uint64_t now_ns)
{
    if (p->rate_bps == 0)
        return UINT64_MAX;
    uint64_t base = now_ns > p->last_ns ? now_ns : p->last_ns;
    int64_t credit = p->credit_bits_ns;
    if (now_ns > p->last_ns) { /* what accrue() would add, without changing p */
        uint64_t dt = now_ns - p->last_ns;
        int64_t cap = (int64_t)cap_of(p);
        uint64_t room = credit < cap ? (uint64_t)(cap - credit) : 0;
        credit = dt >= room / p->rate_bps + 1 ? cap : credit + (int64_t)(p->rate_bps * dt);
    }
    if (credit >= 0)
        return base;
    uint64_t wait = ((uint64_t)(-credit) + p->rate_bps - 1) / p->rate_bps; /* ns until credit reaches 0 */
    uint64_t t = base + wait;
    return (t + NS_PER_US - 1) / NS_PER_US * NS_PER_US; /* µs precision: never earlier than the credit allows */
}
