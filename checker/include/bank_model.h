/* The model of shared memory's 32 banks and of global memory's 32-byte sectors that the
 * emulator's tracer, the quiz's bank questions and the bank maps share: what one warp
 * instruction costs, given the addresses its lanes ask for. */
#ifndef WB_BANK_MODEL_H
#define WB_BANK_MODEL_H
#include <stdint.h>

#include "counts.h"

/* Prices one warp instruction, the accesses of its n active lanes (all of one kind), as the
 * hardware serves it. Global memory: the distinct 32-byte sectors the lanes' bytes touch (and
 * those bytes, each lane's, in c->bytes).
 * Shared memory: 32 banks of 4-byte words, served in phases of 128 bytes' worth of lanes, as
 * measured on an H200 (checker/tests/data/h200-shared-wavefronts.csv):
 *   - 4-byte accesses: the whole warp in one phase;
 *   - 8-byte accesses: two phases, lanes 0-15 and 16-31; 16-byte: four, of 8 lanes each;
 *   - a load whose lanes pair up (lanes n and n^1 ask for the same address wherever both take
 *     part, or lanes n and n^2) needs half as many phases: one for 8 bytes, two for 16;
 *   - each phase with a lane in it costs the most distinct words any one bank is asked for in
 *     it (one word asked by several lanes is a broadcast); its conflict-free ideal is one
 *     wavefront per 128 bytes it asks for, at least one.
 * Adds to c. lane is the lane's number in its warp (0-31), which decides its phase. */
struct emu_lane_access {
    uintptr_t addr;
    uint32_t size;
    int lane;
};
void emu_price(const struct emu_lane_access *lanes, int n, enum mem_op op, struct op_counts *c);
/* The lanes of each phase emu_price serves a shared request in (32, 16 or 8): lanes [0, p) are
 * one phase, [p, 2p) the next, ... */
int emu_phase_lanes(const struct emu_lane_access *lanes, int n, enum mem_op op);

#endif
