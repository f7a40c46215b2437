/* What the emulator's CUDA header (cuda_emu.h, C++) and its scheduler (emu_runtime.c, C) agree
 * on: the warp's collective operations and the block's counting barriers. */
#ifndef WB_EMU_WARP_H
#define WB_EMU_WARP_H

/* Barriers and warp operations are convergent, as on a GPU: the compiler may not copy a call
 * into several branches (each copy would be a barrier of its own) or move it across a branch. */
#if defined(__clang__)
#define WB_EMU_CONVERGENT __attribute__((convergent))
#else
#define WB_EMU_CONVERGENT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Each lane named in the mask calls the same operation with the same mask; all wait for one
 * another, then each gets its result (a shuffled value, a vote, a reduction). */
enum emu_warp_op {
    EMU_WARP_SYNC,   /* __syncwarp */
    EMU_SHFL_IDX,    /* arg: the source lane */
    EMU_SHFL_UP,     /* arg: delta */
    EMU_SHFL_DOWN,   /* arg: delta */
    EMU_SHFL_XOR,    /* arg: the lane mask */
    EMU_VOTE_BALLOT, /* value: the predicate */
    EMU_VOTE_ALL,
    EMU_VOTE_ANY,
    EMU_REDUCE_ADD, /* value: an unsigned, or an int when arg is 1 */
    EMU_REDUCE_MIN,
    EMU_REDUCE_MAX,
    EMU_REDUCE_AND,
    EMU_REDUCE_OR,
    EMU_REDUCE_XOR,
    EMU_MATCH_ANY, /* value: the bits to match */
    EMU_MATCH_ALL,
    EMU_WARP_OPS
};
WB_EMU_CONVERGENT unsigned long long emu_warp_collective(int op, unsigned mask, unsigned long long value, int arg, int width);
unsigned emu_activemask(void);

/* __syncthreads_count, _and, _or: a barrier that also adds up the threads' predicates. */
enum emu_block_vote { EMU_BLOCK_COUNT, EMU_BLOCK_AND, EMU_BLOCK_OR };
WB_EMU_CONVERGENT int emu_syncthreads_vote(int vote, int predicate);

/* Atomics: the runtime checks the address, reads, updates and writes the word itself, and
 * the tracer records one atomic access (which the race checks do not hold against other
 * atomics, and prices as a read and a write). value and compare hold the operand's bits. */
enum emu_atomic_op {
    EMU_ATOMIC_ADD, EMU_ATOMIC_SUB, EMU_ATOMIC_EXCH, EMU_ATOMIC_MIN, EMU_ATOMIC_MAX, EMU_ATOMIC_AND,
    EMU_ATOMIC_OR, EMU_ATOMIC_XOR, EMU_ATOMIC_INC, EMU_ATOMIC_DEC, EMU_ATOMIC_CAS
};
enum emu_atomic_type { EMU_I32, EMU_U32, EMU_I64, EMU_U64, EMU_F32, EMU_F64 };
unsigned long long emu_atomic_rmw(void *address, int op, int type, unsigned long long value, unsigned long long compare);

/* clock64(): a count, not a time (threads run one at a time): it grows by one per call. */
long long emu_clock64(void);

#ifdef __cplusplus
}
#endif
#endif
