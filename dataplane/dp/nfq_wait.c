/* NFQUEUE loop's poll timeout; see nfq_wait.h. */
#include "nfq_wait.h"

uint64_t nfq_poll_timeout_ns(uint64_t now_ns, uint64_t due_ns)
{
    if (due_ns <= now_ns || due_ns - now_ns <= NFQ_SPIN_MARGIN_NS)
        return 0;
    uint64_t until = due_ns - now_ns - NFQ_SPIN_MARGIN_NS;
    return until < NFQ_HOUSEKEEPING_NS ? until : NFQ_HOUSEKEEPING_NS;
}
