/*
 * air_state.h — the air model's state and the functions its parts share
 * (private to testbed/air; the API is wlan_air.h).
 *
 * The model is split by job: air_sim.c runs the event loop and the API,
 * medium.c decides what each node senses (carrier sense, backoff, preamble
 * locking), ampdu.c builds the A-MPDU a node sends when it wins the medium,
 * exchange.c carries a frame exchange (data and BlockAck, RTS and CTS) from
 * its start to its outcome at the originator, and reception.c decides what
 * a receiver decodes from the SINR over each MPDU. Transmissions live in a
 * ring of TX_HISTORY slots (hist), so that receivers can look back at what
 * overlapped them; a slot stays "live" while it has events still to come.
 */
#ifndef AIR_STATE_H
#define AIR_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "minstrel.h"
#include "txq.h"
#include "wlan_air.h"

#define MAX_AMPDU 256
#define TX_HISTORY 256
#define NONE UINT64_MAX

enum tx_kind { TX_DATA, TX_BA, TX_RTS, TX_CTS };

struct tx {
    bool used;                   /* slot holds a transmission */
    enum tx_kind kind;           /* data PPDU, BlockAck, RTS or CTS */
    int node, rx;                /* transmitter and addressed receiver */
    uint8_t ac;                  /* access category (data) */
    uint64_t start_us, end_us;   /* on-air interval (µs) */
    uint32_t preamble_us;        /* preamble duration (µs) */
    uint32_t mcs;                /* MCS (data; for an RTS that of the A-MPDU it protects) */
    double phy_mbps;             /* PHY rate of the data PPDU (Mbit/s) */
    double rss_dbm[WLAN_MAX_NODES]; /* received power at each node incl. fading (dBm) */
    double rss_mw[WLAN_MAX_NODES];  /* the same in mW */
    bool detected[WLAN_MAX_NODES];  /* the node detected its preamble (locked onto it at its start) */
    bool ended;                  /* end processed */
    bool preamble_lost;          /* receiver was locked elsewhere or transmitting at start */
    bool collided;               /* overlapped at the receiver */
    /* data PPDU (an RTS holds the A-MPDU it protects in the same fields) */
    uint32_t n;                  /* MPDUs */
    uint64_t seq[MAX_AMPDU];     /* their sequence numbers */
    uint64_t ids[MAX_AMPDU];     /* their frame ids */
    uint64_t enq_us[MAX_AMPDU];  /* when each entered the transmitter's queue (µs) */
    uint32_t sub_bytes[MAX_AMPDU]; /* subframe lengths (bytes) */
    uint8_t ok[MAX_AMPDU];       /* decoded at the receiver */
    uint64_t mpdu_end_us[MAX_AMPDU]; /* end of the OFDM symbol carrying each MPDU's last bit (µs) */
    uint32_t decided;            /* MPDUs whose reception is decided (in order) */
    bool lost_all;               /* preamble missed: no MPDU can be decoded */
    uint32_t bytes;              /* A-MPDU length (bytes) */
    uint32_t ba_rate_mbps;       /* legacy rate of the BlockAck that answers it (Mbit/s, by its MCS) */
    uint32_t ba_us;              /* that BlockAck's duration (µs) */
    uint64_t ba_start_us;        /* when the BlockAck starts, NONE if none */
    uint64_t resp_us;            /* when the originator learns the outcome */
    bool resp_done;              /* outcome processed */
    int ba_tx;                   /* history index of the BlockAck, -1 if none */
    bool rts_protected;          /* sent after a successful RTS/CTS exchange */
    /* RTS */
    uint32_t data_us;            /* duration of the protected data PPDU (µs) */
    uint64_t cts_start_us;       /* when the CTS starts, NONE if none */
    uint64_t data_start_us;      /* when the protected A-MPDU starts, NONE if not (yet) */
    int cts_tx;                  /* history index of the CTS, -1 if none */
    /* BlockAck, CTS */
    int data_tx;                 /* history index of the data PPDU (BlockAck) or RTS (CTS) it answers */
};

struct entity {
    int32_t backoff;             /* remaining backoff (slots), -1 = none drawn */
    uint32_t cw;                 /* current contention window (slots) */
    uint64_t ready_us;           /* earliest start after a frame arrived at an empty entity (µs) */
    uint32_t rr;                 /* round-robin pointer over destinations */
};

struct node {
    struct entity e[WLAN_AC_COUNT];
    bool transmitting;           /* radio is sending */
    bool awaiting;               /* waiting for the outcome of its exchange */
    bool busy;                   /* medium busy as this node sees it */
    uint64_t idle_since_us;      /* when the medium last became idle here (µs) */
    uint64_t nav_until_us;       /* virtual carrier sense (µs) */
    int lock_tx;                 /* history index of the PPDU the receiver is locked onto, -1 */
};

struct wlan_air {
    struct wlan_air_config c;
    uint64_t now_us;             /* virtual clock (µs) */
    uint64_t rng;                /* xorshift64* state */
    struct node nodes[WLAN_MAX_NODES];
    struct txq q[WLAN_MAX_NODES][WLAN_MAX_NODES][WLAN_AC_COUNT];
    struct minstrel rc[WLAN_MAX_NODES][WLAN_MAX_NODES];
    struct wlan_link_counters ctr[WLAN_MAX_NODES][WLAN_MAX_NODES];
    struct tx hist[TX_HISTORY];
    uint32_t hist_next;          /* next history slot */
    int live[TX_HISTORY];        /* history indices of transmissions with events still to come */
    int n_live;                  /* entries in live */
    uint32_t rts_us, cts_us;     /* RTS and CTS durations (µs) */
    const struct wlan_air_callbacks *cb;
    bool no_new_tx;              /* wlan_air_finish_exchanges(): no entity starts a transmission any more */
};

/* The random source of the whole model (xorshift64*, seeded in wlan_air_create): one stream, so a run is
 * reproducible from its seed. Returns a uniform draw in [0, 1). */
static inline double air_rnd(struct wlan_air *a)
{
    a->rng ^= a->rng >> 12;
    a->rng ^= a->rng << 25;
    a->rng ^= a->rng >> 27;
    return (double)((a->rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static inline const struct wlan_edca *edca(const struct wlan_air *a, int n, int ac)
{
    return a->c.nodes[n].role == WLAN_ROLE_AP ? &a->c.edca_ap[ac] : &a->c.edca_sta[ac];
}

/* CW after a failed attempt (§10.22.2.2, and the loser of an internal collision, §10.22.2.3): doubled, up to
 * CWmax; or back to CWmin (reset) after a success or a discard at the retry limit. Then a new backoff drawn. */
static inline void air_new_backoff(struct wlan_air *a, int n, int ac, bool reset)
{
    struct entity *e = &a->nodes[n].e[ac];
    const struct wlan_edca *p = edca(a, n, ac);
    e->cw = reset ? p->cw_min : (2 * e->cw + 1 > p->cw_max ? p->cw_max : 2 * e->cw + 1);
    e->backoff = (int32_t)(air_rnd(a) * (e->cw + 1));
}

static inline uint64_t aifs_us(const struct wlan_air *a, int n, int ac)
{
    return a->c.sifs_us + (uint64_t)edca(a, n, ac)->aifsn * a->c.slot_us;
}

static inline bool active_at(const struct tx *t, uint64_t now)
{
    return t->used && t->start_us <= now && now < t->end_us;
}

static inline uint32_t node_pending(const struct wlan_air *a, int n, int ac)
{
    uint32_t p = 0;
    for (uint32_t d = 0; d < a->c.n_nodes; d++)
        p += a->q[n][d][ac].pending;
    return p;
}

/* medium.c */
void air_update_busy(struct wlan_air *a, uint64_t now);
uint64_t air_entity_expiry(const struct wlan_air *a, int n, int ac);
void air_put_on_air(struct wlan_air *a, struct tx *t, int idx);

/* ampdu.c */
void air_start_data(struct wlan_air *a, int n, int ac, uint64_t now);

/* exchange.c */
bool air_tx_is_live(const struct tx *x);
struct tx *air_new_tx(struct wlan_air *a, int *idx);
void air_launch_data(struct wlan_air *a, int idx, uint64_t now);
void air_start_rts(struct wlan_air *a, int idx, uint64_t now);
void air_start_response(struct wlan_air *a, int req_idx, enum tx_kind kind, uint32_t dur_us, double rate_mbps,
                        uint64_t now);
void air_start_protected_data(struct wlan_air *a, int rts_idx, uint64_t now);
void air_end_data(struct wlan_air *a, int idx);
void air_end_rts(struct wlan_air *a, int idx);
void air_end_cts(struct wlan_air *a, int idx);
void air_complete_exchange(struct wlan_air *a, int idx);
void air_complete_rts(struct wlan_air *a, int idx);

/* reception.c */
void air_release(struct wlan_air *a, int src, int dst, int ac);
void air_decide_mpdus(struct wlan_air *a, int idx, uint64_t now);
bool air_ba_received(struct wlan_air *a, int data_idx);
bool air_control_decoded(struct wlan_air *a, int idx, int n, uint32_t len_bytes);

#endif
