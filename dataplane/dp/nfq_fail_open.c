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

int nfq_ids_given(FILE *f, uint16_t queue_num, uint32_t *id_sequence)
{
    char line[256];
    while (fgets(line, sizeof(line), f)) {
        unsigned q, portid, total, mode, range, dropped, user_dropped, seq;
        if (sscanf(line, "%u %u %u %u %u %u %u %u", &q, &portid, &total, &mode, &range, &dropped, &user_dropped,
                   &seq) == 8 && q == queue_num) {
            *id_sequence = seq;
            return 0;
        }
    }
    return -1;
}
