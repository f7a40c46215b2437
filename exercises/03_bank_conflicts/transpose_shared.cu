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

    // The lines inside the TODO regions are a stand-in: right, and slow. Each
    // thread copies in(r0 + ty, c0 + tx) through tile[tx][ty] to
    // out(c0 + tx, r0 + ty): a warp reads `in` along a row but writes `out`
    // down a column (32 sectors a request, as the naive transpose does), and
    // stores down column ty of the tile (one bank, 32 times over). `make
    // check` draws that request's banks. Replace each stand-in.

    // TODO: copy this block's part of `in` into `tile`, reading `in` along
    //       its rows; skip elements outside `in`.
    if (r0 + ty < rows && c0 + tx < cols)
        tile[tx][ty] = in[(r0 + ty) * cols + c0 + tx];
    // END TODO

    // TODO: make sure the whole tile is in place before anyone reads it.
    //       (The stand-in needs no barrier: each thread reads back only the
    //       element it stored itself.)
    // END TODO

    // TODO: write the tile to `out`, transposed, so that the threads of a
    //       warp write neighbouring addresses of `out`; skip elements
    //       outside `out`.
    if (r0 + ty < rows && c0 + tx < cols)
        out[(c0 + tx) * rows + r0 + ty] = tile[tx][ty];
    // END TODO
}
