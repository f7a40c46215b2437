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

#define TILE 32
#define ROWS 8                     // blockDim.y: rows of the tile one pass covers

__global__ void transpose_coarsened(const float *in, float *out, int rows, int cols)
{
    // [TILE rows][TILE + 1 words]: the padded tile of lesson 4, conflict-free
    // in both phases. tile[i][j] = in[(r0 + i)*cols + c0 + j]
    __shared__ float tile[TILE][TILE + 1];

    int tx = threadIdx.x;          // 0..31; the 32 threads of a warp have tx = 0..31
    int ty = threadIdx.y;          // 0..7; one value per warp
    int r0 = blockIdx.y * TILE;    // first row of `in` covered by this block
    int c0 = blockIdx.x * TILE;    // first column of `in` covered by this block

    // Phase 1, read: pass k has warp ty read row ty + k of the tile, coalesced
    // (32 consecutive floats: 4 sectors). The loop is unrolled and nothing
    // between its loads waits for a load, so each thread has four loads in
    // flight at once: 16 bytes, four times lesson 4's 4.
    int c = c0 + tx;
#pragma unroll
    for (int k = 0; k < TILE; k += ROWS) {
        int r = r0 + ty + k;
        if (r < rows && c < cols)
            tile[ty + k][tx] = in[r * cols + c];
    }

    // One barrier for the whole tile (lesson 4 had one per element): every
    // thread reads below elements that other warps stored. No early return
    // above it, so every thread of the block reaches it.
    __syncthreads();

    // Phase 2, write: pass k has warp ty write row ty + k of the output tile,
    // coalesced, reading column ty + k of the tile: thread tx reads word
    // tx*33 + ty + k, bank (tx + ty + k) % 32, 32 different banks.
    int ocol = r0 + tx;            // column of `out` = row of `in`
#pragma unroll
    for (int k = 0; k < TILE; k += ROWS) {
        int orow = c0 + ty + k;    // row of `out`    = column of `in`
        if (orow < cols && ocol < rows)
            out[orow * rows + ocol] = tile[tx][ty + k];
    }
}
