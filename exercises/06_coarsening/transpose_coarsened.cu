/*
 * Lesson 6: the full-bandwidth transpose                 transpose_coarsened.cu
 *
 * CONTRACT
 *   Computes   out = transpose(in). `in` is rows x cols, row-major; `out` is
 *              cols x rows, row-major: out[c*rows + r] = in[r*cols + c].
 *   Signature  __global__ void transpose_coarsened(const float *in, float *out,
 *                                                  int rows, int cols);
 *   Launch     done by the harness, never by this file:
 *                block = dim3(32, 8)                       (256 threads)
 *                grid  = dim3(ceil(cols/32), ceil(rows/32))
 *              one block per 32 x 32 tile, as in lessons 3 to 5, but with a
 *              quarter of the threads: each thread moves 4 elements.
 *              rows and cols are arbitrary (1 x 1, odd shapes, large ones),
 *              so edge blocks are only partly inside the matrix.
 *   Rules      Exactly one __global__ kernel, transpose_coarsened, plus
 *              optional __device__ helpers and #defines. No #include lines,
 *              no host code, no main, no <<<>>> launches, no library calls.
 *   Passing    1. Correct: on every tested shape, out equals the reference
 *                 solution and a CPU reference exactly (bit for bit).
 *              2. Fast, on a GPU: at least the speed-up over the baseline
 *                 (lesson 5's solution, solutions/05_swizzle/
 *                 transpose_swizzled.cu, launched with its own 32 x 32
 *                 threads) and the share of cudaMemcpy's bandwidth that
 *                 lessons/06_coarsening/thresholds sets, all timed in the
 *                 same run. In the emulator: no bank conflicts, no more
 *                 global sectors than the baseline, and every thread loading
 *                 its 16 bytes between two of its barriers (not one at a
 *                 time with a barrier between them).
 *   Running    make lesson6   copies this stub to work/06_coarsening/;
 *                             edit that copy, not this file.
 *              make check     checks your copy: correctness, then speed.
 *              make hint      shows the lesson's hints, weakest first.
 */

/*
 * This stub is lesson 4's padded kernel, renamed. It was written for 32 x 32
 * threads; launched with 32 x 8 it fills and writes only rows 0..7 of each
 * tile, so most of `out` is never written (the checker will say so).
 */

#define TILE 32
#define ROWS 8                     // blockDim.y: rows of the tile one pass covers

__global__ void transpose_coarsened(const float *in, float *out, int rows, int cols)
{
    // [TILE rows][TILE + 1 words]: lesson 4's padded tile, unchanged.
    // tile[i][j] = in[(r0 + i)*cols + c0 + j]
    __shared__ float tile[TILE][TILE + 1];

    int tx = threadIdx.x;          // 0..31; the 32 threads of a warp have tx = 0..31
    int ty = threadIdx.y;          // 0..7; one value per warp
    int r0 = blockIdx.y * TILE;    // first row of `in` covered by this block
    int c0 = blockIdx.x * TILE;    // first column of `in` covered by this block

    // Phase 1, read: each warp reads one row of `in`, coalesced.
    // TODO: cover all 32 rows of the tile: rows ty, ty + 8, ty + 16, ty + 24.
    //       Issue all four loads before the barrier, so that they are in
    //       flight at the same time (that is where the bandwidth comes from).
    int r = r0 + ty;
    int c = c0 + tx;
    if (r < rows && c < cols)
        tile[ty][tx] = in[r * cols + c];
    // END TODO

    // One barrier for the whole tile: every thread reads below elements that
    // other warps stored.
    __syncthreads();

    // Phase 2, write: each warp writes one row of `out`, coalesced, reading a
    // column of the padded tile.
    // TODO: write all 32 rows of the output tile: ty, ty + 8, ty + 16, ty + 24.
    int orow = c0 + ty;            // row of `out`    = column of `in`
    int ocol = r0 + tx;            // column of `out` = row of `in`
    if (orow < cols && ocol < rows)
        out[orow * rows + ocol] = tile[tx][ty];
    // END TODO
}
