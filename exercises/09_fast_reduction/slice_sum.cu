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

/*
 * This stub is correct, but it is the baseline kernel itself (the registry
 * names this file), so it cannot pass the speed check.
 */

#define THREADS 256                // blockDim.x
#define SLICE 4096                 // elements per block: 16 per thread
#define FULL_WARP 0xffffffffu      // all 32 lanes take part in a shuffle

__global__ void slice_sum(const float *in, float *out, int rows, int cols)
{
    // [THREADS / 32] one sum per warp, rewritten at every step.
    __shared__ float warp_sums[THREADS / 32];

    int t = threadIdx.x;
    int first = blockIdx.x * SLICE;            // the slice's first column
    int nb = (cols + SLICE - 1) / SLICE;       // slices per row: the columns of `out`
    const float *row = in + (size_t)blockIdx.y * cols;
    float total = 0.0f;                        // the slice's sum, in thread 0

    // TODO: this is lesson 7's block sum, run 16 times: each step loads one
    //       float per thread and waits at two barriers before the next load,
    //       so almost nothing is in flight. Add a thread's 16 elements in a
    //       register first (16-byte loads where the row allows them, all
    //       issued before the first add), then add the block's 256 sums once.
    for (int step = 0; step < SLICE; step += THREADS) {
        int c = first + step + t;
        float v = c < cols ? row[c] : 0.0f;    // one float per thread per step
        for (int d = 16; d > 0; d /= 2)
            v += __shfl_down_sync(FULL_WARP, v, d);
        if (t % 32 == 0)
            warp_sums[t / 32] = v;
        __syncthreads();                       // every warp's sum is written
        if (t < 32) {
            v = t < THREADS / 32 ? warp_sums[t] : 0.0f;
            for (int d = 4; d > 0; d /= 2)
                v += __shfl_down_sync(FULL_WARP, v, d);
            total += v;
        }
        __syncthreads();                       // read before the next step writes
    }
    if (t == 0)
        out[(size_t)blockIdx.y * nb + blockIdx.x] = total;
    // END TODO
}
