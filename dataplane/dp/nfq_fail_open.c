/* Packets the kernel accepted itself; see nfq_fail_open.h. */
#include "nfq_fail_open.h"

uint32_t nfq_ids_skipped(uint32_t *last_id, uint32_t id)
{
    /* Unsigned difference: the kernel's 32-bit id sequence wraps. */
    uint32_t skipped = id - *last_id - 1u;
    /* An id at or before the last one (none should come) is no gap, and the last id stays: taking the older one
     * would count the ids between it and the last again when the sequence goes on. */
    if (skipped >= 0x80000000u)
        return 0;
    *last_id = id;
    return skipped;
}

int nfq_queue_line_read(FILE *f, uint16_t queue_num, struct nfq_queue_line *l)
{
    char line[256];
    while (fgets(line, sizeof(line), f)) {
        unsigned q, portid, total, mode, range, dropped, user_dropped, seq;
        if (sscanf(line, "%u %u %u %u %u %u %u %u", &q, &portid, &total, &mode, &range, &dropped, &user_dropped,
                   &seq) == 8 && q == queue_num) {
            *l = (struct nfq_queue_line){.queue_total = total, .id_sequence = seq};
            return 0;
        }
    }
    return -1;
}

void nfq_trailing_ids(uint32_t *last_id, const struct nfq_queue_line *l, uint64_t unanswered, uint64_t *fail_open,
                      uint64_t *lost)
{
    uint64_t unread = nfq_ids_skipped(last_id, l->id_sequence + 1u);
    uint64_t queued = l->queue_total > unanswered ? l->queue_total - unanswered : 0;
    /* Only unread ids can be queued unread; entries beyond them came after the line's id_sequence was read. */
    if (queued > unread)
        queued = unread;
    *lost += queued;
    *fail_open += unread - queued;
}
