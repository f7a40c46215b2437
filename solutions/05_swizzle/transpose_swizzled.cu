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

#define TILE 32

/*
 * swz: where logical element [row][col] of the tile is physically stored
 * within its row.
 *
 *     physical col = col ^ (row & 31)
 *
 *     col           c4 c3 c2 c1 c0
 *     row & 31      r4 r3 r2 r1 r0        the low 5 bits of the row
 *     ------------------------------ XOR
 *     physical col  c4^r4 c3^r3 c2^r2 c1^r1 c0^r0
 *
 *     e.g. row 5 = 00101:  col 0 -> 5,  col 1 -> 4,  col 4 -> 1,  col 5 -> 0
 *
 * Each row bit that is set flips the matching column bit. Within one row the
 * mask is a constant, and XOR with a constant is its own inverse, so the 32
 * columns of a row are only reordered (a bijection on 0..31): nothing is
 * lost or doubled, and a whole row still covers all 32 banks.
 * For one logical column c, row r lands in physical column c ^ r; different
 * rows give different values, so the 32 elements of a column are spread over
 * 32 different banks. A row is 32 words, so the bank is the physical column.
 */
__device__ __forceinline__ int swz(int row, int col)
{
    return col ^ (row & (TILE - 1));
}

__global__ void transpose_swizzled(const float *in, float *out, int rows, int cols)
{
    // [TILE rows][TILE cols], stored swizzled:
    // tile[i][swz(i, j)] = in[(r0 + i)*cols + c0 + j]. 32*32*4 = 4096 bytes.
    __shared__ float tile[TILE][TILE];

    int tx = threadIdx.x;          // 0..31; the 32 threads of a warp have tx = 0..31
    int ty = threadIdx.y;          // 0..31; one value per warp
    int r0 = blockIdx.y * TILE;    // first row of `in` covered by this block
    int c0 = blockIdx.x * TILE;    // first column of `in` covered by this block

    // Phase 1, read: coalesced read of one row of `in` per warp. Logical
    // [ty][tx] goes to physical [ty][tx ^ ty]: bank tx ^ ty, which takes 32
    // different values as tx runs over 0..31: no conflict.
    int r = r0 + ty;
    int c = c0 + tx;
    if (r < rows && c < cols)
        tile[ty][swz(ty, tx)] = in[r * cols + c];

    // Barrier: each thread reads below an element another warp stored.
    // No early return above it, so every thread of the block reaches it.
    __syncthreads();

    // Phase 2, write: coalesced write of one row of `out` per warp, reading
    // logical column ty of the tile. Logical [tx][ty] is physical
    // [tx][ty ^ tx]: word tx*32 + (ty ^ tx), bank ty ^ tx, again 32
    // different banks: the 32-way conflict of lesson 3 is gone.
    // The read must use the same swz as the write: the element is only
    // where phase 1 put it. Swizzling one side only transposes garbage.
    int orow = c0 + ty;            // row of `out`    = column of `in`
    int ocol = r0 + tx;            // column of `out` = row of `in`
    if (orow < cols && ocol < rows)
        out[orow * rows + ocol] = tile[tx][swz(tx, ty)];
}
