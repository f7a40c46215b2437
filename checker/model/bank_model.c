/* The bank-and-sector model (bank_model.h). */
#include "bank_model.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MAX_UNITS (32 * 16)

/* A set of units, for counting the distinct ones (an open-addressed table at most half full:
 * the model prices every warp instruction the emulator runs, so no sort). */
#define SET_SLOTS 1024
struct unit_set {
    uintptr_t slot[SET_SLOTS];
    uint64_t used[SET_SLOTS / 64];
};

/* Adds u; 1 if it was not there yet. */
static int set_add(struct unit_set *s, uintptr_t u)
{
    for (size_t h = (size_t)((u * 0x9E3779B97F4A7C15ull) >> 54);; h = (h + 1) & (SET_SLOTS - 1)) {
        if (!(s->used[h / 64] >> (h % 64) & 1)) {
            s->used[h / 64] |= 1ull << (h % 64);
            s->slot[h] = u;
            return 1;
        }
        if (s->slot[h] == u)
            return 0;
    }
}

/* The distinct units (bank words of 4 bytes, or sectors of 32) that lanes [from, to) of the
 * list touch, into units; returns how many, and the bytes asked for in *bytes. */
static size_t units_of(const struct emu_lane_access *lanes, int n, int from, int to, uintptr_t unit,
                       uintptr_t *units, size_t *bytes)
{
    struct unit_set seen;
    memset(seen.used, 0, sizeof seen.used);
    size_t nu = 0;
    *bytes = 0;
    for (int i = 0; i < n; i++) {
        if (lanes[i].size == 0 || lanes[i].lane < from || lanes[i].lane >= to)
            continue; /* an empty range touches nothing */
        for (uintptr_t u = lanes[i].addr / unit; u <= (lanes[i].addr + lanes[i].size - 1) / unit && nu < MAX_UNITS;
             u++)
            if (set_add(&seen, u))
                units[nu++] = u;
        *bytes += lanes[i].size;
    }
    return nu;
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

int emu_phase_lanes(const struct emu_lane_access *lanes, int n, enum mem_op op)
{
    uint32_t width = 0;
    for (int i = 0; i < n; i++)
        if (lanes[i].size > width)
            width = lanes[i].size;
    int phase = width == 16 ? 8 : width == 8 ? 16 : 32; /* lanes per 128 bytes */
    if (op == SHARED_LD && phase < 32 && (lanes_pair_up(lanes, n, 1) || lanes_pair_up(lanes, n, 2)))
        phase *= 2;
    return phase;
}

void emu_price(const struct emu_lane_access *lanes, int n, enum mem_op op, struct op_counts *c)
{
    uintptr_t units[MAX_UNITS];
    size_t bytes;
    c->requests++;
    if (op != SHARED_LD && op != SHARED_ST) {
        c->wavefronts += units_of(lanes, n, 0, 32, 32, units, &bytes);
        c->bytes += bytes;
        return;
    }
    int phase = emu_phase_lanes(lanes, n, op);
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
