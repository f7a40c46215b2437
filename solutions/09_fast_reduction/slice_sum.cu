/*
 * Lesson 9: a reduction at the memory's speed                        slice_sum.cu
 *
 * CONTRACT
 *   Computes   slice sums: `in` is rows x cols, row-major; `out` is
 *              rows x nb with nb = ceil(cols/4096), row-major, and
 *                out[r*nb + b] = in[r*cols + 4096*b] + ... + in[r*cols + 4096*b + 4095]
 *              (a row's last slice may be shorter: only the elements < cols).
 *              Any order of additions is accepted: the inputs are drawn on a
 *              grid of 2^-11 on which every order gives the exact sum, and
 *              the exact sum is required (lessons/09_fast_reduction/README.md).
 *   Signature  __global__ void slice_sum(const float *in, float *out,
 *                                        int rows, int cols);
 *   Launch     done by the harness, never by this file:
 *                block = dim3(256)                  (256 threads, 8 warps)
 *                grid  = dim3(ceil(cols/4096), rows)
 *              so block (b, r) sums slice b of row r: 16 elements per thread.
 *              rows and cols are arbitrary (1 x 1, odd shapes, large ones);
 *              `in` starts on a 16-byte boundary, and a row does too exactly
 *              when cols % 4 == 0.
 *   Rules      Exactly one __global__ kernel, slice_sum, plus optional
 *              __device__ helpers and #defines. No #include lines, no host
 *              code, no main, no <<<>>> launches, no library calls.
 *   Passing    1. Correct: on every tested shape, every sum exact.
 *              2. Fast: on a GPU, at least the speed-up over the baseline
 *                 (the stub as handed out, exercises/09_fast_reduction/
 *                 slice_sum.cu) and the share of CUB's whole-array sum
 *                 (cub::DeviceReduce::Sum, timed in the same run) that
 *                 lessons/09_fast_reduction/thresholds sets. In the
 *                 emulator: no bank conflicts, no more global sectors than
 *                 the baseline, at least the bytes of loads in flight per
 *                 thread and at most the barriers per thread it declares.
 *   Running    make lesson9   copies this stub to work/09_fast_reduction/;
 *                             edit that copy, not this file.
 *              make check     checks your copy: correctness, then speed.
 *              make hint      shows the lesson's hints, weakest first.
 */

#define THREADS 256                // blockDim.x
#define SLICE 4096                 // elements per block: 16 per thread
#define VECTORS (SLICE / (4 * THREADS)) // float4 loads per thread: 4
#define FULL_WARP 0xffffffffu      // all 32 lanes take part in a shuffle

// The block's sum of every thread's v, in thread 0: shuffles within each
// warp, the 8 warp sums through shared memory, the first warp adds them.
// One barrier.
__device__ float block_total(float v)
{
    // [THREADS / 32] one sum per warp.
    __shared__ float warp_sums[THREADS / 32];
    int t = threadIdx.x;
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_down_sync(FULL_WARP, v, d);
    if (t % 32 == 0)
        warp_sums[t / 32] = v;
    __syncthreads();
    v = t < THREADS / 32 ? warp_sums[t] : 0.0f;
    if (t < 32)
        for (int d = 4; d > 0; d /= 2)
            v += __shfl_down_sync(FULL_WARP, v, d);
    return v;
}

__global__ void slice_sum(const float *in, float *out, int rows, int cols)
{
    int t = threadIdx.x;
    int first = blockIdx.x * SLICE;            // the slice's first column
    int n = min(SLICE, cols - first);          // its length: SLICE but in a row's last slice
    int nb = (cols + SLICE - 1) / SLICE;       // slices per row: the columns of `out`
    const float *slice = in + (size_t)blockIdx.y * cols + first;
    float v = 0.0f;

    if (n == SLICE && cols % 4 == 0) {
        // A whole slice on a 16-byte boundary: 4 float4 loads per thread, all
        // issued before the first add (64 bytes in flight), and a warp's 32
        // loads read 512 consecutive bytes.
        const float4 *q = (const float4 *)slice;
        float4 x[VECTORS];
#pragma unroll
        for (int k = 0; k < VECTORS; k++)
            x[k] = q[k * THREADS + t];
#pragma unroll
        for (int k = 0; k < VECTORS; k++)
            v += (x[k].x + x[k].y) + (x[k].z + x[k].w);
    } else {
        // A short slice, or rows that do not start on 16 bytes: one float at
        // a time, 256 apart (the compiler still issues several loads at once).
        for (int c = t; c < n; c += THREADS)
            v += slice[c];
    }
    v = block_total(v);
    if (t == 0)
        out[(size_t)blockIdx.y * nb + blockIdx.x] = v;
}
