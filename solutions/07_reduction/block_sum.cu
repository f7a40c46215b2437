/*
 * Lesson 7: bank conflicts in a reduction                            block_sum.cu
 *
 * CONTRACT
 *   Computes   block sums: `in` is rows x cols, row-major; `out` is
 *              rows x nb with nb = ceil(cols/256), row-major, and
 *                out[r*nb + b] = in[r*cols + 256*b] + ... + in[r*cols + 256*b + 255]
 *              (a row's last slice may be shorter: only the elements < cols).
 *              Any order of additions is accepted: each sum is compared with
 *              a double-precision one, within the worst-case error of adding
 *              256 floats (lessons/07_reduction/README.md derives it).
 *   Signature  __global__ void block_sum(const float *in, float *out,
 *                                        int rows, int cols);
 *   Launch     done by the harness, never by this file:
 *                block = dim3(256)                 (256 threads, 8 warps)
 *                grid  = dim3(ceil(cols/256), rows)
 *              so block (b, r) sums slice b of row r, one element per thread.
 *              rows and cols are arbitrary (1 x 1, odd shapes, large ones).
 *   Rules      Exactly one __global__ kernel, block_sum, plus optional
 *              __device__ helpers and #defines. No #include lines, no host
 *              code, no main, no <<<>>> launches, no library calls.
 *   Passing    1. Correct: on every tested shape, every sum within the bound.
 *              2. Fast: on a GPU, at least the speed-up over the baseline
 *                 (the stub as handed out, exercises/07_reduction/
 *                 block_sum.cu) that lessons/07_reduction/thresholds sets,
 *                 both timed in the same run. In the emulator: no bank
 *                 conflicts, no more global sectors than the baseline, and
 *                 at most the barriers per thread it declares.
 *   Running    make lesson7   copies this stub to work/07_reduction/;
 *                             edit that copy, not this file.
 *              make check     checks your copy: correctness, then speed.
 *              make hint      shows the lesson's hints, weakest first.
 */

#define THREADS 256                // blockDim.x: one element per thread
#define FULL_WARP 0xffffffffu      // all 32 lanes take part in a shuffle

__global__ void block_sum(const float *in, float *out, int rows, int cols)
{
    // [THREADS] partial sums: s[t] starts as element t of the block's slice.
    __shared__ float s[THREADS];

    int t = threadIdx.x;                       // 0..255; warp t / 32, lane t % 32
    int c = blockIdx.x * THREADS + t;          // this thread's column of `in`
    int nb = (cols + THREADS - 1) / THREADS;   // slices per row: the columns of `out`
    const float *row = in + (size_t)blockIdx.y * cols;
    s[t] = c < cols ? row[c] : 0.0f;           // past the row's end: add nothing
    __syncthreads();

    // Sequential addressing: at step d (128, then 64) thread t < d adds word
    // t + d to word t. A warp's 32 threads read 32 consecutive words and write
    // 32 consecutive words: 32 banks, no conflict, at every step.
    for (int d = THREADS / 2; d > 32; d /= 2) {
        if (t < d)
            s[t] += s[t + d];
        __syncthreads();
    }

    // 64 partial sums are left, s[0..63]: the first warp takes two each and
    // finishes with shuffles. __shfl_down_sync(mask, v, d) gives lane j the v
    // of lane j + d, register to register: no shared memory, no barrier.
    if (t < 32) {
        float v = s[t] + s[t + 32];
        for (int d = 16; d > 0; d /= 2)
            v += __shfl_down_sync(FULL_WARP, v, d);
        if (t == 0)
            out[(size_t)blockIdx.y * nb + blockIdx.x] = v;
    }
}
