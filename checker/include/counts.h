/* Memory-traffic counts of a kernel, as Nsight Compute reports them: what the CPU emulator
 * counts exactly and what the GPU's profiler measures. */
#ifndef WB_COUNTS_H
#define WB_COUNTS_H
#include <stdint.h>

enum mem_op { SHARED_LD, SHARED_ST, GLOBAL_LD, GLOBAL_ST, MEM_OPS };

/* Warp instructions issued, by the unit that runs them (a warp issues an instruction once for
 * each group of its lanes that runs it, a predicated one too): what a time model weighs (issue
 * 46). PTX instructions, not the GPU's own (ptxas folds some and splits others). */
enum issue_kind {
    ISSUE_FLOAT,   /* f32 arithmetic and comparisons */
    ISSUE_DOUBLE,  /* f64 arithmetic and comparisons: half f32's rate on an H100 or H200, far less on most GPUs */
    ISSUE_CONVERT, /* conversions to, from or between floating-point types (cvt): 16 lanes a clock an SM */
    ISSUE_INTEGER, /* integer and bit arithmetic, comparisons, moves, integer conversions, addresses */
    ISSUE_SPECIAL, /* the special-function unit's: rcp, sqrt, rsqrt, ex2, lg2, sin, cos, tanh */
    ISSUE_WARP,    /* shuffles, votes, match, redux */
    ISSUE_SHARED,  /* loads, stores and atomics of shared memory, ldmatrix */
    ISSUE_GLOBAL,  /* of global memory (and generic addresses), cp.async */
    ISSUE_LOCAL,   /* of a thread's local memory */
    ISSUE_TENSOR,  /* mma on the tensor cores */
    ISSUE_CONTROL, /* branches, barriers, fences, cp.async's commit and wait, exit */
    ISSUE_KINDS
};

/* One kind of warp-wide memory instruction. */
struct op_counts {
    uint64_t requests;   /* warp instructions */
    uint64_t wavefronts; /* shared: passes through the 32 banks; global: 32-byte sectors */
    uint64_t ideal;      /* shared: the passes needed without bank conflicts */
    uint64_t bytes;      /* global, the emulator's: the bytes the lanes asked for (each lane's; 0:
                          * not known, as from Nsight Compute), which sectors * 32 exceed where a
                          * warp's lanes fill their sectors badly */
};

struct mem_counts {
    struct op_counts op[MEM_OPS];
    /* The emulator's alone (0 from Nsight Compute): threads' arrivals at __syncthreads(), and
     * threads launched (arrivals per thread: the barriers each thread waits at); and, over the
     * threads that load from global memory, the least of each one's bytes of loads in flight
     * each time it had to wait for them (issued before it waited), on average over its waits.
     * burst_threads: the threads that went into it. */
    uint64_t barrier_arrivals, threads;
    uint64_t min_burst_bytes, burst_threads;
    /* ... and the multiply-adds done by the tensor cores (2048 per warp's mma.sync m16n8k16), and
     * the float multiplies on the ordinary cores (each lane's fma, mad or mul of f32 or f64). */
    uint64_t mma_multiply_adds, core_multiplies;
    /* ... of them, those issued by wgmma while a tensor copy was on its way for a later stage (its
     * mbarrier's phase not yet waited for by the warp, which then waits for it): products that
     * overlap the copies (lesson 11). */
    uint64_t mma_ahead_multiply_adds;
    uint64_t issued[ISSUE_KINDS]; /* the emulator's alone, as above */
    /* The emulator's alone: global loads' sectors counted once a block (the first time the block
     * reads each): what a block's loads would ask of L2 if its SM's L1 kept what it read. */
    uint64_t block_ld_sectors;
    /* The emulator's alone: global sectors the launch's loads read, and apart from them those its
     * stores wrote, each counted once a launch: what must cross between DRAM and L2 at the least
     * (every input read, every output written), where L2 keeps what the launch touched. */
    uint64_t launch_sectors;
    /* The emulator's alone: the most warps of one block that changed one shared word with float
     * adds (atom/red.shared.add.f32) between two barriers. The GPU runs each such add as a
     * compare-and-swap loop (LDS, then ATOMS.CAST.SPIN, again while another warp changed the word
     * first), so those warps take turns on the word. A largest, never scaled or summed. */
    uint64_t float_atomic_warps;
};

/* One warp instruction's shared-memory request, lane by lane, as the emulator priced it: what a
 * bank map draws (bankmap.h). A line keeps the request of its loads, and of its stores, that cost
 * the most wavefronts beyond the conflict-free ones. */
#define REQUEST_LANES 32
struct shared_request {
    uint32_t wavefronts, ideal; /* as the bank model priced it; wavefronts 0: none kept */
    uint32_t base;              /* the byte of the block's shared memory where the array of its
                                 * first lane starts: words are numbered from there */
    uint8_t nlanes;
    uint8_t atomic;             /* an atomic: lanes on one word take a pass each */
    struct {
        uint32_t offset;        /* the lane's first byte, from the start of the block's shared memory */
        uint8_t size;           /* 1, 2, 4, 8 or 16 bytes */
        uint8_t lane;           /* 0-31: which decides its phase */
    } lanes[REQUEST_LANES];
};

/* Counts of one source line of the kernel. */
#define MAX_COUNTED_LINES 16
struct line_counts {
    char where[96]; /* file:line */
    struct op_counts op[MEM_OPS];
    uint8_t atomic; /* its shared accesses are atomics (lanes on one word take a pass each) */
    uint8_t float_atomic_warps; /* as mem_counts' (0: none), for this line's float adds */
    struct shared_request worst[2]; /* [SHARED_LD], [SHARED_ST]: the costliest request of each */
};

#endif
