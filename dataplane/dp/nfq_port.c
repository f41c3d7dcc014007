/* Scheduler port of a queued packet; see nfq_port.h. */
#include "nfq_port.h"

static int find(const int *ifindex, unsigned n, uint32_t dev)
{
    for (unsigned i = 0; dev != 0 && i < n; i++)
        if (ifindex[i] == (int)dev)
            return (int)i;
    return -1;
}

int nfq_port_of(const int *ifindex, unsigned n, uint32_t indev, uint32_t physindev)
{
    int port = find(ifindex, n, physindev);
    return port >= 0 ? port : find(ifindex, n, indev);
}
