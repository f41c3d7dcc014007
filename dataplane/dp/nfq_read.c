/* Reading the queue's socket; see nfq_read.h. */
#include "nfq_read.h"

#include <errno.h>
#include <sys/socket.h>

int nfq_read_socket(const struct nfq_reader *r, uint64_t until_ns, unsigned max_msgs)
{
    for (unsigned reads = 0; reads < max_msgs;) {
        ssize_t n = recv(r->fd, r->buf, r->len, MSG_DONTWAIT);
        if (n < 0) {
            /* ENOBUFS: messages lost to a full socket (not with NETLINK_NO_ENOBUFS; see nfq_fail_open.h). */
            if (errno == EINTR || errno == ENOBUFS)
                continue;
            return errno == EAGAIN || errno == EWOULDBLOCK;
        }
        r->handle(r->arg, r->buf, (int)n);
        reads++;
        if (r->clock() >= until_ns)
            break;
    }
    return 0;
}
