/*
 * Reading the queue's netlink socket without blocking.  The loop reads what
 * waits in batches, but never past the core's next event: on this kernel a
 * message costs the loop about 1 µs to read and 4.5 µs more to accept (the
 * verdict forwards the packet in the same system call), so with a backlog a
 * batch of 256 took 1.5 ms, and a slice start that came during it waited
 * for its end.  The clock is checked after each message, so a batch reads at
 * least one (a loop whose event is always due still drains the socket).
 */
#ifndef ADW_DP_NFQ_READ_H
#define ADW_DP_NFQ_READ_H

#include <stddef.h>
#include <stdint.h>

#define NFQ_READ_MAX 256u   /* messages read per loop iteration at most */

struct nfq_reader {
    int fd;                                          /* the netlink socket */
    char *buf;                                       /* one message's room */
    size_t len;
    uint64_t (*clock)(void);                         /* CLOCK_MONOTONIC ns */
    void (*handle)(void *arg, char *msg, int len);   /* one message read */
    void *arg;
};

/*
 * Hands each waiting message to r->handle until the socket is empty, max_msgs were read, or, after a message, the
 * clock is at or past until_ns: 1 if it left the socket empty.
 */
int nfq_read_socket(const struct nfq_reader *r, uint64_t until_ns, unsigned max_msgs);

#endif
