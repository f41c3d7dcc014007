/* astar.c — A* = min(eBDP, ALT), 003 §IV-V; see astar.h. */
#include "astar.h"

#include <math.h>

static double clampd(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

static void recompute(struct adw_astar *a, const struct adw_queue_sizing_policy *p)
{
    double lim = fmax(fmin(a->q_ebdp, a->q_alt), (double)a->floor);
    a->limit = (uint32_t)clampd(floor(lim), p->q_min_pkts, p->q_max_pkts);
}

void adw_astar_init(struct adw_astar *a, const struct adw_queue_sizing_policy *p, uint64_t now_ns)
{
    a->t_serv_ns = 0;
    a->q_ebdp = p->q_max_pkts; /* no service measured yet: do not constrain */
    a->q_alt = p->q_max_pkts;
    a->idle_ns = a->busy_ns = 0;
    a->last_ns = now_ns;
    a->busy = false;
    a->floor = 0;
    recompute(a, p);
}

void adw_astar_set_floor(struct adw_astar *a, const struct adw_queue_sizing_policy *p, uint32_t floor_pkts)
{
    a->floor = floor_pkts;
    recompute(a, p);
}

void adw_astar_rebound(struct adw_astar *a, const struct adw_queue_sizing_policy *p)
{
    a->q_alt = clampd(a->q_alt, p->q_min_pkts, p->q_max_pkts);
    if (a->t_serv_ns > 0)
        a->q_ebdp = fmin((double)p->t_max_ns / a->t_serv_ns + p->c_pkts, p->q_max_pkts);
    else
        a->q_ebdp = p->q_max_pkts;
    recompute(a, p);
}

void adw_astar_service_sample(struct adw_astar *a, const struct adw_queue_sizing_policy *p, double t_pkt_ns)
{
    if (!(t_pkt_ns > 0))
        return;
    /* 003 Algorithm 2: T_serv = (1 - W) T_serv + W (t_e - t_s); the first sample seeds the average. */
    a->t_serv_ns = a->t_serv_ns > 0 ? (1 - p->ewma_alpha) * a->t_serv_ns + p->ewma_alpha * t_pkt_ns : t_pkt_ns;
    /* 003 §IV: Q_eBDP = min(T_max / T_serv + c, Q_max). */
    a->q_ebdp = fmin((double)p->t_max_ns / a->t_serv_ns + p->c_pkts, p->q_max_pkts);
    recompute(a, p);
}

void adw_astar_observe(struct adw_astar *a, uint64_t now_ns, uint32_t queue_pkts, uint32_t threshold_pkts)
{
    if (now_ns > a->last_ns) {
        if (a->busy)
            a->busy_ns += now_ns - a->last_ns;
        else
            a->idle_ns += now_ns - a->last_ns;
        a->last_ns = now_ns;
    }
    a->busy = queue_pkts > threshold_pkts;
}

void adw_astar_interval(struct adw_astar *a, const struct adw_queue_sizing_policy *p, uint64_t now_ns)
{
    adw_astar_observe(a, now_ns, a->busy ? 1u : 0u, 0u);
    /* 003 Algorithm 3: q_ALT = q_ALT + a1 t_i - b1 (t - t_i), then clamped to [q_min, q_max]. */
    a->q_alt += p->a1 * ((double)a->idle_ns / 1e6) - p->b1 * ((double)a->busy_ns / 1e6);
    a->q_alt = clampd(a->q_alt, p->q_min_pkts, p->q_max_pkts);
    a->idle_ns = a->busy_ns = 0;
    recompute(a, p);
}
