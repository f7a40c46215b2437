/* Small kernels with known behaviour for the emulator's scheduler tests (test_emu_run.c):
 * built like a lesson role (clang++, cuda_emu.h, -DWB_ROLE=emutest), each with a C launcher. */
extern "C" {
#include "counts.h"
#include "emu.h"
}

extern "C" char __start_wb_shared_emutest[] __attribute__((weak));
extern "C" char __stop_wb_shared_emutest[] __attribute__((weak));

/* The launchers are the harness, not kernels: untraced, like checker/runner/emu/launch.cu. */
template <typename F> static int launch(dim3 grid, dim3 block, F body)
{
    return emu_launch(grid, block, __start_wb_shared_emutest, __stop_wb_shared_emutest,
                      [](void *f) { (*static_cast<F *>(f))(); }, &body);
}

/* One warp reads a [32][33] tile down a column with the given row stride (in words). */
__global__ void column_read(float *out, int stride)
{
    __shared__ float tile[32 * 33];
    for (int i = threadIdx.x; i < 32 * 33; i += 32) /* 33 row stores, each conflict-free */
        tile[i] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x * stride) % (32 * 33)];
}

/* 64 threads each store a word, then read their neighbour's, with or without the barrier. */
__global__ void neighbour(float *out, int with_barrier)
{
    __shared__ float s[64];
    s[threadIdx.x] = (float)threadIdx.x;
    if (with_barrier)
        __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}

/* Two rounds through one buffer; the second barrier (after the read) is optional. */
__global__ void two_rounds(float *out, int with_second_barrier)
{
    __shared__ float s[64];
    float acc = 0.0f;
    for (int round = 0; round < 2; round++) {
        s[threadIdx.x] = (float)(threadIdx.x + 100 * round);
        __syncthreads();
        acc += s[(threadIdx.x + 1) % 64];
        if (with_second_barrier)
            __syncthreads();
    }
    out[threadIdx.x] = acc;
}

/* Reads a word of shared memory that no thread wrote. */
__global__ void unset_read(float *out)
{
    __shared__ float s[64];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x + 32]; /* only the first 32 words were written */
}

/* The last thread also writes one element past the end of out (64 elements). */
__global__ void store_past_end(float *out)
{
    out[threadIdx.x] = 1.0f;
    if (threadIdx.x == 63)
        out[64] = 2.0f;
}

/* Threads from `first_out` on return before the barrier. */
__global__ void early_return(float *out, int first_out)
{
    __shared__ float s[64];
    if ((int)threadIdx.x >= first_out)
        return;
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = s[0];
}

extern "C" int run_column_read(float *out, int stride)
{
    return launch(dim3(1), dim3(32), [=]() __attribute__((no_sanitize("thread"))) { column_read(out, stride); });
}
extern "C" int run_neighbour(float *out, int with_barrier)
{
    return launch(dim3(1), dim3(64), [=]() __attribute__((no_sanitize("thread"))) { neighbour(out, with_barrier); });
}
extern "C" int run_two_rounds(float *out, int with_second_barrier)
{
    return launch(dim3(2), dim3(64), [=]() __attribute__((no_sanitize("thread"))) { two_rounds(out, with_second_barrier); });
}
extern "C" int run_unset_read(float *out)
{
    return launch(dim3(1), dim3(32), [=]() __attribute__((no_sanitize("thread"))) { unset_read(out); });
}
extern "C" int run_store_past_end(float *out)
{
    return launch(dim3(1), dim3(64), [=]() __attribute__((no_sanitize("thread"))) { store_past_end(out); });
}
extern "C" int run_early_return(float *out, int first_out)
{
    return launch(dim3(1), dim3(64), [=]() __attribute__((no_sanitize("thread"))) { early_return(out, first_out); });
}
