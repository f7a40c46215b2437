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

#define MAX_UNITS (32 * 16)

/* The distinct units (bank words of 4 bytes, or sectors of 32) that lanes [from, to) of the
 * list touch, into units; returns how many, and the bytes asked for in *bytes. */
static size_t units_of(const struct emu_lane_access *lanes, int n, int from, int to, uintptr_t unit,
                       uintptr_t *units, size_t *bytes)
{
    size_t nu = 0;
    *bytes = 0;
    for (int i = 0; i < n; i++) {
        if (lanes[i].size == 0 || lanes[i].lane < from || lanes[i].lane >= to)
            continue; /* an empty range touches nothing */
        for (uintptr_t u = lanes[i].addr / unit; u <= (lanes[i].addr + lanes[i].size - 1) / unit && nu < MAX_UNITS;
             u++)
            units[nu++] = u;
        *bytes += lanes[i].size;
    }
    return unique(units, nu);
}

/* Lanes n and n^step ask for the same address wherever both take part. */
static int lanes_pair_up(const struct emu_lane_access *lanes, int n, int step)
{
    uintptr_t addr[32];
    int active[32] = {0};
    for (int i = 0; i < n; i++)
        if (lanes[i].size && lanes[i].lane >= 0 && lanes[i].lane < 32) {
            addr[lanes[i].lane] = lanes[i].addr;
            active[lanes[i].lane] = 1;
        }
    for (int l = 0; l < 32; l++)
        if (active[l] && active[l ^ step] && addr[l] != addr[l ^ step])
            return 0;
    return 1;
}

void emu_price(const struct emu_lane_access *lanes, int n, enum mem_op op, struct op_counts *c)
{
    uintptr_t units[MAX_UNITS];
    size_t bytes;
    c->requests++;
    if (op != SHARED_LD && op != SHARED_ST) {
        c->wavefronts += units_of(lanes, n, 0, 32, 32, units, &bytes);
        return;
    }
    uint32_t width = 0;
    for (int i = 0; i < n; i++)
        if (lanes[i].size > width)
            width = lanes[i].size;
    int phase = width == 16 ? 8 : width == 8 ? 16 : 32; /* lanes per 128 bytes */
    if (op == SHARED_LD && phase < 32 && (lanes_pair_up(lanes, n, 1) || lanes_pair_up(lanes, n, 2)))
        phase *= 2;
    for (int from = 0; from < 32; from += phase) {
        size_t nu = units_of(lanes, n, from, from + phase, 4, units, &bytes);
        if (nu == 0)
            continue;
        int per_bank[32] = {0}, most = 0;
        for (size_t i = 0; i < nu; i++)
            if (++per_bank[units[i] % 32] > most)
                most = per_bank[units[i] % 32];
        c->wavefronts += (uint64_t)most;
        uint64_t ideal = (bytes + 127) / 128;
        c->ideal += ideal < (uint64_t)most ? ideal : (uint64_t)most;
    }
}
