/*
 * Lesson 5: removing the bank conflict by swizzling       transpose_swizzled.cu
 *
 * CONTRACT
 *   Computes   out = transpose(in). `in` is rows x cols, row-major; `out` is
 *              cols x rows, row-major: out[c*rows + r] = in[r*cols + c].
 *   Signature  __global__ void transpose_swizzled(const float *in, float *out,
 *                                                 int rows, int cols);
 *   Launch     done by the harness, never by this file:
 *                block = dim3(32, 32)                     (1024 threads)
 *                grid  = dim3(ceil(cols/32), ceil(rows/32))
 *              so blockIdx.x walks the columns of `in` and blockIdx.y its
 *              rows. rows and cols are arbitrary (1 x 1, odd shapes, large
 *              ones), so edge blocks are only partly inside the matrix.
 *   Rules      Exactly one __global__ kernel, transpose_swizzled, plus
 *              optional __device__ helpers and #defines. No #include lines,
 *              no host code, no main, no <<<>>> launches, no library calls.
 *              Static shared memory must be exactly 4096 bytes: one
 *              32 x 32 float tile, no padding (the checker verifies this).
 *   Passing    1. Correct: on every tested shape, out equals the reference
 *                 solution and a CPU reference exactly (bit for bit).
 *              2. Fast: at least the speed-up over the baseline kernel
 *                 (lesson 3's solution, solutions/03_bank_conflicts/
 *                 transpose_shared.cu) that lessons/05_swizzle/thresholds
 *                 sets, both kernels timed in the same run.
 *   Running    make lesson5   copies this stub to work/05_swizzle/;
 *                             edit that copy, not this file.
 *              make check     checks your copy: correctness, then speed.
 *              make hint      shows the lesson's hints, weakest first.
 */

/*
 * This stub is lesson 3's kernel under a new name, plus an unused helper.
 * It is already correct, but it is the same code as the baseline, so it
 * cannot pass the speed check.
 */

#define TILE 32

// swz: where logical element [row][col] of the tile is physically stored
// within its row.
// TODO: return a column that depends on the row, so that the 32 elements of
//       one logical column land in 32 different banks, while each row's 32
//       columns still map to 32 different places.
__device__ __forceinline__ int swz(int row, int col)
{
    (void)row;
    return col;
    // END TODO
}

__global__ void transpose_swizzled(const float *in, float *out, int rows, int cols)
{
    // [TILE rows][TILE cols] of `in`: tile[i][j] = in[(r0 + i)*cols + c0 + j]
    // (keep this declaration: 32*32*4 = 4096 bytes, no padding allowed)
    __shared__ float tile[TILE][TILE];

    int tx = threadIdx.x;          // 0..31; the 32 threads of a warp have tx = 0..31
    int ty = threadIdx.y;          // 0..31; one value per warp
    int r0 = blockIdx.y * TILE;    // first row of `in` covered by this block
    int c0 = blockIdx.x * TILE;    // first column of `in` covered by this block

    // Phase 1, read: coalesced read of one row of `in` per warp, stored in
    // row ty of the tile: swz only reorders a row's 32 words, so the warp
    // still meets 32 different banks.
    int r = r0 + ty;
    int c = c0 + tx;
    // TODO: store into the tile through swz.
    if (r < rows && c < cols)
        tile[ty][tx] = in[r * cols + c];
    // END TODO

    // Barrier: each thread reads below an element another warp stored.
    // No early return above it, so every thread of the block reaches it.
    __syncthreads();

    // Phase 2, write: coalesced write of one row of `out` per warp, reading
    // logical column ty of the tile: thread tx reads row tx at physical
    // column swz(tx, ty), which is its bank (a row is 32 words). The TODO at
    // swz makes those 32 banks different.
    int orow = c0 + ty;            // row of `out`    = column of `in`
    int ocol = r0 + tx;            // column of `out` = row of `in`
    // TODO: read from the tile through swz.
    if (orow < cols && ocol < rows)
        out[orow * rows + ocol] = tile[tx][ty];
    // END TODO
}
