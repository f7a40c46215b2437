/* Blocks per SM on compute capability 9.0 (occupancy.h). Each resource's allocation as the
 * hardware makes it: registers per warp in units of 256 (a thread's count rounded up to 8), 65536
 * an SM; shared memory per block with 1 KB the system reserves, in units of 128 bytes, 228 KB an
 * SM at the largest carve-out; 2048 threads (64 warps) and 32 blocks an SM. */
#include "occupancy.h"

enum {
    SM_REGISTERS = 65536, REGISTER_UNIT = 256, SM_SHARED = 228 * 1024, SHARED_UNIT = 128,
    SM_WARPS = 64, SM_BLOCKS = 32
};

static int warp_registers(int registers)
{
    return (registers * 32 + REGISTER_UNIT - 1) / REGISTER_UNIT * REGISTER_UNIT;
}

int occupancy_block_registers(int threads, int registers)
{
    return (threads + 31) / 32 * warp_registers(registers);
}

struct occupancy occupancy_sm90(int threads, int registers, size_t shared)
{
    struct occupancy o = {0, 0, SM_WARPS, CANNOT_LAUNCH};
    if (threads <= 0 || threads > 1024 || registers < 0 || registers > 255)
        return o;
    int warps = (threads + 31) / 32;
    int per_warp = warp_registers(registers);
    size_t per_block = (shared + SHARED_SYSTEM_RESERVE + SHARED_UNIT - 1) / SHARED_UNIT * SHARED_UNIT;
    int by[] = {
        [BY_THREADS] = SM_WARPS / warps,
        [BY_BLOCKS] = SM_BLOCKS,
        [BY_REGISTERS] = per_warp ? SM_REGISTERS / per_warp / warps : SM_BLOCKS,
        [BY_SHARED] = (int)(SM_SHARED / per_block),
    };
    o.blocks = SM_BLOCKS;
    for (int k = BY_THREADS; k <= BY_SHARED; k++)
        if (by[k] < o.blocks || (by[k] == o.blocks && o.limit == CANNOT_LAUNCH))
            o.blocks = by[k], o.limit = (enum occupancy_limit)k;
    if (o.blocks == 0)
        o.limit = CANNOT_LAUNCH;
    o.warps = o.blocks * warps;
    return o;
}

const char *occupancy_limit_name(enum occupancy_limit limit)
{
    switch (limit) {
    case BY_THREADS: return "the threads (2048 an SM)";
    case BY_BLOCKS: return "the blocks (32 an SM)";
    case BY_REGISTERS: return "the registers (65536 an SM)";
    case BY_SHARED: return "the shared memory (228 KB an SM)";
    default: return "nothing: the block cannot launch";
    }
}
