/*
 * Lesson 4: removing the bank conflict by padding           transpose_padded.cu
 *
 * CONTRACT
 *   Computes   out = transpose(in). `in` is rows x cols, row-major; `out` is
 *              cols x rows, row-major: out[c*rows + r] = in[r*cols + c].
 *   Signature  __global__ void transpose_padded(const float *in, float *out,
 *                                               int rows, int cols);
 *   Launch     done by the harness, never by this file:
 *                block = dim3(32, 32)                     (1024 threads)
 *                grid  = dim3(ceil(cols/32), ceil(rows/32))
 *              so blockIdx.x walks the columns of `in` and blockIdx.y its
 *              rows. rows and cols are arbitrary (1 x 1, odd shapes, large
 *              ones), so edge blocks are only partly inside the matrix.
 *   Rules      Exactly one __global__ kernel, transpose_padded, plus optional
 *              __device__ helpers and #defines. No #include lines, no host
 *              code, no main, no <<<>>> launches, no library calls.
 *              Keep the 32 x 32 tiling of lesson 3 (TILE = 32).
 *   Passing    1. Correct: on every tested shape, out equals the reference
 *                 solution and a CPU reference exactly (bit for bit).
 *              2. Fast: at least the speed-up over the baseline kernel
 *                 (lesson 3's solution, solutions/03_bank_conflicts/
 *                 transpose_shared.cu) that lessons/04_padding/thresholds
 *                 sets, both kernels timed in the same run.
 *   Running    make lesson4   copies this stub to work/04_padding/;
 *                             edit that copy, not this file.
 *              make check     checks your copy: correctness, then speed.
 *              make hint      shows the lesson's hints, weakest first.
 */

/*
 * This stub is lesson 3's kernel under a new name. It is already correct,
 * but it is the same code as the baseline, so it cannot pass the speed check.
 */

#define TILE 32

__global__ void transpose_padded(const float *in, float *out, int rows, int cols)
{
    // [TILE rows][TILE cols] of `in`: tile[i][j] = in[(r0 + i)*cols + c0 + j]
    // TODO: change the shape of `tile` so that reading it down a column
    //       (phase 2) no longer sends all 32 threads of a warp to one bank.
    __shared__ float tile[TILE][TILE];

    int tx = threadIdx.x;          // 0..31; the 32 threads of a warp have tx = 0..31
    int ty = threadIdx.y;          // 0..31; one value per warp
    int r0 = blockIdx.y * TILE;    // first row of `in` covered by this block
    int c0 = blockIdx.x * TILE;    // first column of `in` covered by this block

    // Phase 1, read: coalesced read of one row of `in` per warp, stored in
    // row ty of the tile: 32 consecutive words, so 32 different banks
    // whatever the length of a row.
    int r = r0 + ty;
    int c = c0 + tx;
    if (r < rows && c < cols)
        tile[ty][tx] = in[r * cols + c];

    // Barrier: each thread reads below an element another warp stored.
    // No early return above it, so every thread of the block reaches it.
    __syncthreads();

    // Phase 2, write: coalesced write of one row of `out` per warp, reading
    // the tile down column ty: thread tx reads word tx*W + ty, where W is the
    // length of a row in words, in bank (tx*W + ty) % 32. The TODO above
    // chooses W so that the 32 threads meet 32 different banks.
    int orow = c0 + ty;            // row of `out`    = column of `in`
    int ocol = r0 + tx;            // column of `out` = row of `in`
    if (orow < cols && ocol < rows)
        out[orow * rows + ocol] = tile[tx][ty];
}
