/* The bank-and-sector model (bank_model.h). */
#include "bank_model.h"

#include <stddef.h>
#include <stdlib.h>

static int by_value(const void *x, const void *y)
{
    uintptr_t a = *(const uintptr_t *)x, b = *(const uintptr_t *)y;
    return (a > b) - (a < b);
}

/* Sorts and removes duplicates; returns the new count. */
static size_t unique(uintptr_t *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, by_value);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

void emu_price(const struct emu_lane_access *lanes, int n, enum mem_op op, struct op_counts *c)
{
    uintptr_t units[32 * 16];
    size_t nu = 0, bytes = 0;
    int shared = op == SHARED_LD || op == SHARED_ST;
    uintptr_t unit = shared ? 4 : 32; /* a bank word, or a sector */
    for (int i = 0; i < n; i++) {
        if (lanes[i].size == 0)
            continue; /* an empty range touches nothing */
        for (uintptr_t u = lanes[i].addr / unit; u <= (lanes[i].addr + lanes[i].size - 1) / unit && nu < 32 * 16; u++)
            units[nu++] = u;
        bytes += lanes[i].size;
    }
    nu = unique(units, nu);
    c->requests++;
    if (!shared) {
        c->wavefronts += nu;
        return;
    }
    int per_bank[32] = {0}, most = 0;
    for (size_t i = 0; i < nu; i++)
        if (++per_bank[units[i] % 32] > most)
            most = per_bank[units[i] % 32];
    c->wavefronts += (uint64_t)most;
    /* Without conflicts a warp needs one pass per 128 bytes it asks for. */
    uint64_t ideal = (bytes + 127) / 128;
    c->ideal += ideal < (uint64_t)most ? ideal : (uint64_t)most;
}
