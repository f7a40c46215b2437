/* CUDA for the CPU emulator: what a lesson's kernel file needs so that clang++ compiles it
 * unchanged. Force-included (-include) before checker/runner/emu/kernel_file.cu when building a
 * role for the emulator; WB_ROLE names the role. docs/emulator.md describes the execution model.
 * It declares what device code may call and nothing more (no stdio, no stdlib): the gate
 * (checker/src/objgate.c) refuses an object that calls anything else.
 *
 * Every CUDA thread runs as a fiber; __syncthreads() hands control to the scheduler; the blocks
 * of a launch run one after another, so one static array per __shared__ variable is each
 * block's shared memory in turn. */
#ifndef WB_CUDA_EMU_H
#define WB_CUDA_EMU_H
#include <math.h>
#include <stdint.h>

#include "emu_warp.h"

/* Device code may print, as on a GPU, through the emulator's own printf, which refuses the
 * conversions that would read or write memory past the tracer (%s, %n). */
extern "C" int emu_printf(const char *format, ...) __attribute__((format(printf, 1, 2)));
#define printf(...) emu_printf(__VA_ARGS__)

struct uint3 {
    unsigned x, y, z;
};
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

/* The running fiber's coordinates. Plain globals the scheduler rewrites before it switches to
 * a fiber; the kernel re-reads them after every call into the runtime, as after any call. */
extern "C" uint3 threadIdx, blockIdx;
extern "C" dim3 blockDim, gridDim;
static const int warpSize = 32;

/* Out of line, so that the compiler reloads memory other threads wrote before the barrier;
 * convergent (emu_warp.h), so that it never copies a barrier into the branches of an if, which
 * would make one barrier two. */
extern "C" WB_EMU_CONVERGENT void emu_syncthreads(void);
#define __syncthreads() emu_syncthreads()

#define WB_EMU_STR_(a) #a
#define WB_EMU_STR(a) WB_EMU_STR_(a)
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
/* __constant__ data: read-only, in a section of its role's own that kernels may read. A
 * __constant__ variable needs an initialiser here (a lesson file has no host code to fill it). */
#define __constant__ static const __attribute__((section("wb_const_" WB_EMU_STR(WB_ROLE)), used))

/* Each role's shared variables go to their own section, whose size is the kernel's static
 * shared memory and whose bounds tell shared accesses from others. 128-byte alignment puts
 * every array at a bank-0 boundary, as the GPU lays out arrays of this size. */
#define __shared__ static __attribute__((section("wb_shared_" WB_EMU_STR(WB_ROLE)), aligned(128)))

/* Vector types, sized and aligned as CUDA's. Clang's vector types rather than structs: a load
 * of a whole float4 then stays one 16-byte access (a struct's would be split into four 4-byte
 * ones), so that the tracer sees and prices what LDS.128 or LDG.128 does, and checks that its
 * address is a multiple of 16 bytes. They have .x .y .z .w, like CUDA's; one difference: the
 * address of a component (&v.x) cannot be taken. */
typedef float float2 __attribute__((ext_vector_type(2)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef int int2 __attribute__((ext_vector_type(2)));
typedef int int4 __attribute__((ext_vector_type(4)));
typedef unsigned uint2 __attribute__((ext_vector_type(2)));
typedef unsigned uint4 __attribute__((ext_vector_type(4)));
typedef double double2 __attribute__((ext_vector_type(2)));
struct float3 {
    float x, y, z;
};
static inline float2 make_float2(float x, float y) { return float2{x, y}; }
static inline float3 make_float3(float x, float y, float z) { return float3{x, y, z}; }
static inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
static inline int2 make_int2(int x, int y) { return int2{x, y}; }
static inline int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
static inline uint2 make_uint2(unsigned x, unsigned y) { return uint2{x, y}; }
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
static inline double2 make_double2(double x, double y) { return double2{x, y}; }

/* Some of CUDA's device functions, as CUDA defines them. Static, so that they stay out of the
 * gate's way (a lesson file may define nothing outside its namespace). */
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
static inline float __int_as_float(int i) { return __builtin_bit_cast(float, i); }
static inline unsigned __float_as_uint(float x) { return __builtin_bit_cast(unsigned, x); }
static inline float __uint_as_float(unsigned i) { return __builtin_bit_cast(float, i); }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline float __ldg(const float *p) { return *p; }
static inline float2 __ldg(const float2 *p) { return *p; }
static inline float4 __ldg(const float4 *p) { return *p; }
/* Threads run one at a time up to each barrier: every write is already seen by the others. */
static inline void __threadfence_block(void) {}
static inline void __threadfence(void) {}
static inline void __nanosleep(unsigned) {}

/* ---- the warp's and the block's collective operations (checker/runner/emu/emu_warp.h) ----
 * A lane waits in the scheduler until every lane its mask names has reached the same
 * operation; a mask naming a lane that returned, waits at a __syncthreads() or calls another
 * operation is an error the emulator names, as the GPU's behaviour there is undefined. */
template <typename T> static inline T wb_emu_collective(int op, unsigned mask, T var, int arg, int width)
{
    static_assert(sizeof(T) <= 8, "the emulator shuffles values of at most 8 bytes");
    unsigned long long bits = 0;
    __builtin_memcpy(&bits, &var, sizeof(T));
    bits = emu_warp_collective(op, mask, bits, arg, width);
    T out;
    __builtin_memcpy(&out, &bits, sizeof(T));
    return out;
}
#define WB_EMU_SHFL(name, op)                                                                                    \
    template <typename T> static inline T name(unsigned mask, T var, int arg, int width = warpSize)              \
    {                                                                                                            \
        return wb_emu_collective(op, mask, var, arg, width);                                                     \
    }
WB_EMU_SHFL(__shfl_sync, EMU_SHFL_IDX)
WB_EMU_SHFL(__shfl_up_sync, EMU_SHFL_UP)
WB_EMU_SHFL(__shfl_down_sync, EMU_SHFL_DOWN)
WB_EMU_SHFL(__shfl_xor_sync, EMU_SHFL_XOR)
static inline void __syncwarp(unsigned mask = 0xffffffffu) { emu_warp_collective(EMU_WARP_SYNC, mask, 0, 0, 32); }
static inline unsigned __ballot_sync(unsigned mask, int p) { return (unsigned)emu_warp_collective(EMU_VOTE_BALLOT, mask, p != 0, 0, 32); }
static inline int __all_sync(unsigned mask, int p) { return (int)emu_warp_collective(EMU_VOTE_ALL, mask, p != 0, 0, 32); }
static inline int __any_sync(unsigned mask, int p) { return (int)emu_warp_collective(EMU_VOTE_ANY, mask, p != 0, 0, 32); }
static inline unsigned __activemask(void) { return emu_activemask(); }
#define WB_EMU_REDUCE(name, op)                                                                                  \
    static inline unsigned name(unsigned mask, unsigned v) { return (unsigned)emu_warp_collective(op, mask, v, 0, 32); } \
    static inline int name(unsigned mask, int v) { return (int)emu_warp_collective(op, mask, (unsigned)v, 1, 32); }
WB_EMU_REDUCE(__reduce_add_sync, EMU_REDUCE_ADD)
WB_EMU_REDUCE(__reduce_min_sync, EMU_REDUCE_MIN)
WB_EMU_REDUCE(__reduce_max_sync, EMU_REDUCE_MAX)
static inline unsigned __reduce_and_sync(unsigned mask, unsigned v) { return (unsigned)emu_warp_collective(EMU_REDUCE_AND, mask, v, 0, 32); }
static inline unsigned __reduce_or_sync(unsigned mask, unsigned v) { return (unsigned)emu_warp_collective(EMU_REDUCE_OR, mask, v, 0, 32); }
static inline unsigned __reduce_xor_sync(unsigned mask, unsigned v) { return (unsigned)emu_warp_collective(EMU_REDUCE_XOR, mask, v, 0, 32); }
template <typename T> static inline unsigned __match_any_sync(unsigned mask, T v)
{
    return (unsigned)wb_emu_collective<unsigned long long>(EMU_MATCH_ANY, mask, (unsigned long long)v, 0, 32);
}
template <typename T> static inline unsigned __match_all_sync(unsigned mask, T v, int *pred)
{
    unsigned m = (unsigned)wb_emu_collective<unsigned long long>(EMU_MATCH_ALL, mask, (unsigned long long)v, 0, 32);
    *pred = m != 0;
    return m;
}
#define __syncthreads_count(p) emu_syncthreads_vote(EMU_BLOCK_COUNT, (p) != 0)
#define __syncthreads_and(p) emu_syncthreads_vote(EMU_BLOCK_AND, (p) != 0)
#define __syncthreads_or(p) emu_syncthreads_vote(EMU_BLOCK_OR, (p) != 0)

/* clock64() and clock() count calls: the emulator has no clock worth reading. */
#define clock64() emu_clock64()
#define clock() ((int)emu_clock64())

/* Atomics on 4- and 8-byte integers and floats, done by the runtime (emu_warp.h), which
 * checks the address and records the access for the tracer. */
template <typename T> static inline T wb_emu_atomic(T *p, int op, T value, T compare = T())
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "the emulator's atomics take 4- or 8-byte values");
    int type = __is_floating_point(T) ? (sizeof(T) == 4 ? EMU_F32 : EMU_F64)
                                      : (T)-1 < (T)0 ? (sizeof(T) == 4 ? EMU_I32 : EMU_I64)
                                                     : (sizeof(T) == 4 ? EMU_U32 : EMU_U64);
    unsigned long long v = 0, c = 0;
    __builtin_memcpy(&v, &value, sizeof(T));
    __builtin_memcpy(&c, &compare, sizeof(T));
    unsigned long long old = emu_atomic_rmw((void *)p, op, type, v, c);
    T out;
    __builtin_memcpy(&out, &old, sizeof(T));
    return out;
}
#define WB_EMU_ATOMIC(name, op)                                                                                  \
    template <typename T, typename U> static inline T name(T *p, U v) { return wb_emu_atomic(p, op, (T)v); }
WB_EMU_ATOMIC(atomicAdd, EMU_ATOMIC_ADD)
WB_EMU_ATOMIC(atomicSub, EMU_ATOMIC_SUB)
WB_EMU_ATOMIC(atomicExch, EMU_ATOMIC_EXCH)
WB_EMU_ATOMIC(atomicMin, EMU_ATOMIC_MIN)
WB_EMU_ATOMIC(atomicMax, EMU_ATOMIC_MAX)
WB_EMU_ATOMIC(atomicAnd, EMU_ATOMIC_AND)
WB_EMU_ATOMIC(atomicOr, EMU_ATOMIC_OR)
WB_EMU_ATOMIC(atomicXor, EMU_ATOMIC_XOR)
WB_EMU_ATOMIC(atomicInc, EMU_ATOMIC_INC)
WB_EMU_ATOMIC(atomicDec, EMU_ATOMIC_DEC)
WB_EMU_ATOMIC(atomicAdd_block, EMU_ATOMIC_ADD)
WB_EMU_ATOMIC(atomicAdd_system, EMU_ATOMIC_ADD)
template <typename T, typename U, typename V> static inline T atomicCAS(T *p, U compare, V v)
{
    return wb_emu_atomic(p, EMU_ATOMIC_CAS, (T)v, (T)compare);
}

/* The launch the harness makes; see checker/runner/emu/launch.cu. */
extern "C" int emu_launch(dim3 grid, dim3 block, char *shared_begin, char *shared_end, void (*body)(void *),
                          void *ctx);

#endif
