/*
 * Whether a DPDK port's TX ring still has a peer taking frames: it took one within TX_STALL_NS. A full ring that
 * takes nothing for that long has lost its peer (link down): the loop no longer keeps its idle sleeps short for
 * the frames waiting on it, its backlog is lost and what it refuses until it takes a frame again is not kept
 * (tx_stall_drops), and the shutdown no longer waits for it (dpdk_loop.c).
 */
#ifndef ADW_DP_TX_STALL_H
#define ADW_DP_TX_STALL_H

#include <stdbool.h>
#include <stdint.h>

#define TX_STALL_NS 100000000ull /* 100 ms */

/*
 * last_taken_ns: when the ring last took a frame (or its backlog began); now_ns: the caller's clock reading, which
 * may be older: the loop reads its clock once an iteration and flushes the backlogs after that.
 */
static inline bool tx_stall_peer_takes(uint64_t last_taken_ns, uint64_t now_ns)
{
    return last_taken_ns >= now_ns || now_ns - last_taken_ns < TX_STALL_NS;
}

#endif
