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

/*
 * This stub is correct, but it is the baseline kernel itself (the registry
 * names this file), so it cannot pass the speed check.
 */

#define THREADS 256                // blockDim.x: one element per thread

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

    // The tree: at step d (1, 2, 4, ..., 128) the sums d words apart are added
    // in pairs, by the first threads of the block (no divergence until fewer
    // than 32 are left). Thread t works on word i = 2*d*t.
    // TODO: this is the strided-index tree. Read its shared-memory lines in
    //       `make check EMU=1 ONLY='memory*'`, then add the pairs so that a
    //       warp's 32 threads touch 32 consecutive words (and stop using
    //       shared memory once one warp holds every partial sum).
    for (int d = 1; d < THREADS; d *= 2) {
        int i = 2 * d * t;
        if (i < THREADS)
            s[i] += s[i + d];
        __syncthreads();
    }
    if (t == 0)
        out[(size_t)blockIdx.y * nb + blockIdx.x] = s[0];
    // END TODO
}
