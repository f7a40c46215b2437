/*
 * Lesson 3: transpose through a shared-memory tile          transpose_shared.cu
 *
 * CONTRACT
 *   Computes   out = transpose(in). `in` is rows x cols, row-major; `out` is
 *              cols x rows, row-major: out[c*rows + r] = in[r*cols + c].
 *   Signature  __global__ void transpose_shared(const float *in, float *out,
 *                                               int rows, int cols);
 *   Launch     done by the harness, never by this file:
 *                block = dim3(32, 32)                     (1024 threads)
 *                grid  = dim3(ceil(cols/32), ceil(rows/32))
 *              so blockIdx.x walks the columns of `in` and blockIdx.y its
 *              rows. rows and cols are arbitrary (1 x 1, odd shapes, large
 *              ones), so edge blocks are only partly inside the matrix.
 *   Rules      Exactly one __global__ kernel, transpose_shared, plus optional
 *              __device__ helpers and #defines. No #include lines, no host
 *              code, no main, no <<<>>> launches, no library calls.
 *              Use a 32 x 32 tile in shared memory (TILE = 32).
 *   Passing    1. Correct: on every tested shape, out equals the reference
 *                 solution and a CPU reference exactly (bit for bit).
 *              2. Fast: at least the speed-up over the baseline kernel
 *                 (checker/baselines/transpose_naive.cu) that
 *                 lessons/03_bank_conflicts/thresholds sets, both kernels
 *                 timed in the same run.
 *   Running    make lesson3   copies this stub to work/03_bank_conflicts/;
 *                             edit that copy, not this file.
 *              make check     checks your copy: correctness, then speed.
 *              make hint      shows the lesson's hints, weakest first.
 */

#define TILE 32

__global__ void transpose_shared(const float *in, float *out, int rows, int cols)
{
    // [TILE rows][TILE cols] of `in`: tile[i][j] = in[(r0 + i)*cols + c0 + j]
    __shared__ float tile[TILE][TILE];

    int tx = threadIdx.x;          // 0..31; the 32 threads of a warp have tx = 0..31
    int ty = threadIdx.y;          // 0..31; one value per warp
    int r0 = blockIdx.y * TILE;    // first row of `in` covered by this block
    int c0 = blockIdx.x * TILE;    // first column of `in` covered by this block

    // Phase 1, read: a warp reads 32 consecutive floats of one row of `in`
    // (coalesced) and stores them in row ty of the tile: word ty*32 + tx,
    // bank tx, 32 different banks, no conflict.
    int r = r0 + ty;
    int c = c0 + tx;
    if (r < rows && c < cols)
        tile[ty][tx] = in[r * cols + c];

    // Barrier: thread (tx, ty) is about to read the element that thread
    // (ty, tx), normally in another warp, stored. Every thread must reach it,
    // so there is no early return above: threads outside `in` only skip
    // their load. The tile cells they leave unset are never read, because
    // the store guard below is the same test with tx and ty swapped.
    __syncthreads();

    // Phase 2, write: `out` is cols x rows. The warp writes row c0 + ty of
    // `out`, columns r0 + 0..31: 32 consecutive floats, coalesced. The value
    // out(c0 + ty, r0 + tx) is in(r0 + tx, c0 + ty) = tile[tx][ty], so the
    // warp reads the tile down column ty.
    //
    // That column read is a 32-way bank conflict: thread tx reads word
    // tx*32 + ty, which lives in bank (tx*32 + ty) % 32 = ty. All 32 threads
    // hit the same bank at 32 different addresses, so the hardware serves
    // them one after another: 32 shared-memory accesses instead of one.
    // The output is still correct; lessons 4 and 5 remove the conflict.
    int orow = c0 + ty;            // row of `out`    = column of `in`
    int ocol = r0 + tx;            // column of `out` = row of `in`
    if (orow < cols && ocol < rows)
        out[orow * rows + ocol] = tile[tx][ty];
}
