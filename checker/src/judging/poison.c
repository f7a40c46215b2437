#include "poison.h"

#include <string.h>

bool has_bits(float x, uint32_t bits)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u == bits;
}

static long distance(long offset, size_t elems)
{
    return offset < 0 ? -offset : offset - (long)elems;
}

void guard_scan(const float *zone, size_t n, long first, size_t buffer_elems, size_t *writes, long *nearest)
{
    for (size_t i = 0; i < n; i++) {
        if (has_bits(zone[i], GUARD_BITS))
            continue;
        long offset = first + (long)i;
        if ((*writes)++ == 0 || distance(offset, buffer_elems) < distance(*nearest, buffer_elems))
            *nearest = offset;
    }
}
