/* The model of shared memory's 32 banks and of global memory's 32-byte sectors that the
 * emulator's tracer, the quiz's bank questions and the bank maps share: what one warp
 * instruction costs, given the addresses its lanes ask for. */
#ifndef WB_BANK_MODEL_H
#define WB_BANK_MODEL_H
#include <stdint.h>

#include "counts.h"

/* Prices one warp instruction, the accesses of its n active lanes (all of one kind), as the
 * hardware serves it: for shared memory the wavefronts (per bank, the distinct 4-byte words
 * asked of it; one word asked by many lanes is a broadcast) and the conflict-free ideal; for
 * global memory the distinct 32-byte sectors. Adds to c. */
struct emu_lane_access {
    uintptr_t addr;
    uint32_t size;
};
void emu_price(const struct emu_lane_access *lanes, int n, enum mem_op op, struct op_counts *c);

#endif
