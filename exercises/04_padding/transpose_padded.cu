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
 * This stub declares lesson 3's unpadded tile and the block's place in the
 * matrix; it writes nothing yet (the checker will say so). The two TODOs say
 * what to write: the tile's shape, and the transpose through it.
 */

#define TILE 32

__global__ void transpose_padded(const float *in, float *out, int rows, int cols)
{
    // [TILE rows][TILE cols] of `in`: tile[i][j] = in[(r0 + i)*cols + c0 + j]
    // TODO: change the shape of `tile` so that reading it down a column
    //       (phase 2) no longer sends all 32 threads of a warp to one bank.
    __shared__ float tile[TILE][TILE];
    // END TODO

    int tx = threadIdx.x;          // 0..31; the 32 threads of a warp have tx = 0..31
    int ty = threadIdx.y;          // 0..31; one value per warp
    int r0 = blockIdx.y * TILE;    // first row of `in` covered by this block
    int c0 = blockIdx.x * TILE;    // first column of `in` covered by this block

    // TODO: the transpose through the tile, as in lesson 3:
    //       phase 1, each warp reads one row of `in` (coalesced; skip elements
    //       outside `in`) and stores it in row ty of the tile;
    //       a barrier, reached by every thread of the block;
    //       phase 2, each warp writes one row of `out` (coalesced; skip
    //       elements outside `out`), reading the tile down column ty.
    //       For each phase, work out the bank of the word each lane touches
    //       with the row length you chose above: 32 lanes, 32 banks?
    // These lines only silence "unused" warnings; delete them when done.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
    (void)tile[0][0];
    (void)(tx + ty + r0 + c0);
    // END TODO
}
