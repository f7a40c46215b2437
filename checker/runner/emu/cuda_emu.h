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

/* Out of line, so that the compiler reloads memory other threads wrote before the barrier. */
extern "C" void emu_syncthreads(void);
#define __syncthreads() emu_syncthreads()

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(...)

#define WB_EMU_STR_(a) #a
#define WB_EMU_STR(a) WB_EMU_STR_(a)
/* Each role's shared variables go to their own section, whose size is the kernel's static
 * shared memory and whose bounds tell shared accesses from others. 128-byte alignment puts
 * every array at a bank-0 boundary, as the GPU lays out arrays of this size. */
#define __shared__ static __attribute__((section("wb_shared_" WB_EMU_STR(WB_ROLE)), aligned(128)))

/* Vector types aligned as CUDA aligns them: a float2 load or store is one 8-byte access, a
 * float4 one 16-byte access, and the tracer prices them so. */
struct __attribute__((aligned(8))) float2 {
    float x, y;
};
struct __attribute__((aligned(16))) float4 {
    float x, y, z, w;
};
static inline float2 make_float2(float x, float y) { return float2{x, y}; }
static inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

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

/* The launch the harness makes; see checker/runner/emu/launch.cu. */
extern "C" int emu_launch(dim3 grid, dim3 block, char *shared_begin, char *shared_end, void (*body)(void *),
                          void *ctx);

#endif
