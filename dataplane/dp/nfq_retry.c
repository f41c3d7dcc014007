/* Verdicts the kernel refused, waiting to be given again; see nfq_retry.h. */
#include "nfq_retry.h"

#include <stddef.h>

int nfq_retry_push(struct nfq_retry *r, uint32_t id, uint32_t verdict, uint16_t port)
{
    if (r->n == NFQ_RETRY_MAX)
        return -1;
    r->q[(r->head + r->n++) % NFQ_RETRY_MAX] = (struct nfq_refused){.id = id, .verdict = verdict, .port = port};
    return 0;
}

const struct nfq_refused *nfq_retry_head(const struct nfq_retry *r)
{
    return r->n ? &r->q[r->head] : NULL;
}

void nfq_retry_pop(struct nfq_retry *r)
{
    if (r->n) {
        r->head = (r->head + 1) % NFQ_RETRY_MAX;
        r->n--;
    }
}

unsigned nfq_retry_count(const struct nfq_retry *r, uint32_t verdict)
{
    unsigned n = 0;
    for (unsigned i = 0; i < r->n; i++)
        n += r->q[(r->head + i) % NFQ_RETRY_MAX].verdict == verdict;
    return n;
}
