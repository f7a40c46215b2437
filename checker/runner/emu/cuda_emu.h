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

/* The launch the harness makes; see checker/runner/emu/launch.cu. */
extern "C" int emu_launch(dim3 grid, dim3 block, char *shared_begin, char *shared_end, void (*body)(void *),
                          void *ctx);

#endif
