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

/* Two rounds through one buffer; the second barrier (after the read) is optional. Each block
 * writes its own 64 elements of out. */
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
    out[blockIdx.x * 64 + threadIdx.x] = acc;
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

/* ---- the warp's and the block's collective operations (64 threads: two warps) ---- */

/* out[t]: the sum of t over the warp (butterfly); out[64 + t]: the reversed lane's t, plus
 * 1000 times the lane below's t (lane 0 keeps its own); out[128 + t]: lane 0's shuffle-down sum. */
__global__ void shuffles(float *out)
{
    int t = threadIdx.x, lane = t & 31;
    int all = t, down = t;
    for (int d = 16; d; d >>= 1) {
        all += __shfl_xor_sync(0xffffffffu, all, d);
        down += __shfl_down_sync(0xffffffffu, down, d);
    }
    int reversed = __shfl_sync(0xffffffffu, t, 31 - lane);
    int below = __shfl_up_sync(0xffffffffu, t, 1);
    float f = __shfl_sync(0xffffffffu, 0.5f * (float)t, 0); /* floats too */
    out[t] = (float)all;
    out[64 + t] = (float)(reversed + 1000 * below);
    out[128 + t] = lane == 0 ? (float)down : f;
}

/* out[t]: the ballot's lanes; out[64 + t]: any, all and the block's count and and/or votes. */
__global__ void votes(float *out)
{
    int t = threadIdx.x, lane = t & 31;
    unsigned ballot = __ballot_sync(0xffffffffu, lane % 3 == 0);
    int any = __any_sync(0xffffffffu, lane == 5), all = __all_sync(0xffffffffu, lane < 31);
    int count = __syncthreads_count(t < 10), some = __syncthreads_or(t == 63), every = __syncthreads_and(t < 64);
    int sum = __reduce_add_sync(0xffffffffu, lane), most = __reduce_max_sync(0xffffffffu, -lane);
    out[t] = (float)__popc(ballot) + 100.0f * (float)(sum + most); /* 11 + 100 * 496 */
    out[64 + t] = (float)(any * 1 + all * 10 + count * 100 + some * 10000 + every * 100000);
}

/* Lanes swap words through shared memory, with or without a __syncwarp() between. */
__global__ void warp_exchange(float *out, int with_syncwarp)
{
    __shared__ float s[64];
    s[threadIdx.x] = (float)threadIdx.x;
    if (with_syncwarp)
        __syncwarp();
    out[threadIdx.x] = s[threadIdx.x ^ 1];
}

/* Every thread adds one to a shared counter, atomically or not; thread 0 of each block also
 * adds to out[64] atomically, across blocks. */
__global__ void counter(float *out, int atomically)
{
    __shared__ int n;
    if (threadIdx.x == 0)
        n = 0;
    __syncthreads();
    if (atomically)
        atomicAdd(&n, 1);
    else
        n += 1;
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = (float)n;
    if (threadIdx.x == 0)
        atomicAdd(&out[128], 1.0f);
}

/* Both blocks write out[threadIdx.x]: a race between blocks. */
__global__ void same_output(float *out)
{
    out[threadIdx.x] = (float)blockIdx.x;
}

/* A float4 read of shared memory from an address 4 bytes past a 16-byte boundary. */
__global__ void misaligned(float *out)
{
    __shared__ float s[64];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    float4 v = *reinterpret_cast<const float4 *>(&s[4 * (threadIdx.x % 8) + 1]);
    out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

/* Lanes from `first_out` return; the rest shuffle with mask (a full one names lanes that left). */
__global__ void partial_shuffle(float *out, unsigned mask, int first_out, int source)
{
    if ((int)(threadIdx.x & 31) >= first_out)
        return;
    out[threadIdx.x] = __shfl_sync(mask, (float)threadIdx.x, source);
}

/* clock64() goes forward: a wait on it ends. */
__global__ void clock_wait(float *out)
{
    long long t0 = clock64();
    while (clock64() - t0 < 100)
        ;
    out[threadIdx.x] = 1.0f;
}

extern "C" int run_column_read(float *out, int stride)
{
    return launch(dim3(1), dim3(32), [=]() __attribute__((no_sanitize("thread"))) { column_read(out, stride); });
}
extern "C" int run_neighbour(float *out, int with_barrier)
{
    return launch(dim3(1), dim3(64), [=]() __attribute__((no_sanitize("thread"))) { neighbour(out, with_barrier); });
}
extern "C" int run_shuffles(float *out)
{
    return launch(dim3(1), dim3(64), [=]() __attribute__((no_sanitize("thread"))) { shuffles(out); });
}
extern "C" int run_votes(float *out)
{
    return launch(dim3(1), dim3(64), [=]() __attribute__((no_sanitize("thread"))) { votes(out); });
}
extern "C" int run_warp_exchange(float *out, int with_syncwarp)
{
    return launch(dim3(1), dim3(64), [=]() __attribute__((no_sanitize("thread"))) { warp_exchange(out, with_syncwarp); });
}
extern "C" int run_counter(float *out, int atomically)
{
    return launch(dim3(2), dim3(64), [=]() __attribute__((no_sanitize("thread"))) { counter(out, atomically); });
}
extern "C" int run_same_output(float *out)
{
    return launch(dim3(2), dim3(64), [=]() __attribute__((no_sanitize("thread"))) { same_output(out); });
}
extern "C" int run_misaligned(float *out)
{
    return launch(dim3(1), dim3(32), [=]() __attribute__((no_sanitize("thread"))) { misaligned(out); });
}
extern "C" int run_partial_shuffle(float *out, unsigned mask, int first_out, int source)
{
    return launch(dim3(1), dim3(32),
                  [=]() __attribute__((no_sanitize("thread"))) { partial_shuffle(out, mask, first_out, source); });
}
extern "C" int run_clock_wait(float *out)
{
    return launch(dim3(1), dim3(32), [=]() __attribute__((no_sanitize("thread"))) { clock_wait(out); });
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
