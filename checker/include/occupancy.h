/* How many blocks of a kernel an SM holds at once (occupancy.c), from what ptxas gave the
 * compiled kernel (registers per thread, static shared memory per block) and the launch's block:
 * what the time model's per-SM figures start from (issue 46), and what a student who adds
 * registers or shared memory sees change. The SM's limits are the H200's (compute capability
 * 9.0), from the CUDA C++ Programming Guide's table of them. */
#ifndef WB_OCCUPANCY_H
#define WB_OCCUPANCY_H
#include <stddef.h>

enum occupancy_limit { BY_THREADS, BY_BLOCKS, BY_REGISTERS, BY_SHARED, CANNOT_LAUNCH };

/* The shared memory the system reserves in every block (compute capability 8.0 and later), on
 * top of the kernel's own. */
enum { SHARED_SYSTEM_RESERVE = 1024 };

struct occupancy {
    int blocks;                 /* per SM at once (0: the block cannot launch) */
    int warps, max_warps;       /* the warps those blocks hold, of the SM's */
    enum occupancy_limit limit; /* what stops one more block (the first of them, if several) */
};

/* threads: a block's; registers: per thread (ptxas's); shared: a block's static bytes. */
struct occupancy occupancy_sm90(int threads, int registers, size_t shared);
/* The registers a block of threads takes of the SM's 65536: a warp's in units of 256. */
int occupancy_block_registers(int threads, int registers);
/* The limit in words, for a report: "the registers (96 a thread)". */
const char *occupancy_limit_name(enum occupancy_limit limit);

#endif
