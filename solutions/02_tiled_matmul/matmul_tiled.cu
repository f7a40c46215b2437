/*
 * Lesson 2: tiled matrix multiply in shared memory              matmul_tiled.cu
 *
 * CONTRACT
 *   Computes   C = A * B, where A, B and C are N x N float matrices stored
 *              row-major: element (row, k) of A is A[row*N + k].
 *   Signature  __global__ void matmul_tiled(const float *A, const float *B,
 *                                           float *C, int N);
 *   Launch     done by the harness, never by this file:
 *                block = dim3(32, 32)                     (1024 threads)
 *                grid  = dim3(ceil(N/32), ceil(N/32))
 *              N is arbitrary (as small as 1, usually not a multiple of 32),
 *              so some threads of the last blocks fall outside C.
 *   Rules      Exactly one __global__ kernel, matmul_tiled, plus optional
 *              __device__ helpers and #defines. No #include lines, no host
 *              code, no main, no <<<>>> launches, no library calls (cuBLAS...).
 *              The tile width is TILE = 32, the block width.
 *   Passing    1. Correct: on every tested size, C matches the reference
 *                 solution and a CPU reference within a floating-point
 *                 tolerance.
 *              2. Fast: at least the speed-up over the baseline kernel
 *                 (lesson 1's solution, solutions/01_naive_matmul/
 *                 matmul_naive.cu) that lessons/02_tiled_matmul/thresholds
 *                 sets, both kernels timed in the same run.
 *   Running    make lesson2   copies this stub to work/02_tiled_matmul/;
 *                             edit that copy, not this file.
 *              make check     checks your copy: correctness, then speed.
 *              make hint      shows the lesson's hints, weakest first.
 */

#define TILE 32

__global__ void matmul_tiled(const float *A, const float *B, float *C, int N)
{
    // [TILE rows][TILE cols] of A, tile t: As[i][k] = A[(blockIdx.y*TILE + i)*N + t*TILE + k]
    __shared__ float As[TILE][TILE];
    // [TILE rows][TILE cols] of B, tile t: Bs[k][j] = B[(t*TILE + k)*N + blockIdx.x*TILE + j]
    __shared__ float Bs[TILE][TILE];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // this thread's element of C
    int col = blockIdx.x * TILE + tx;   // (may lie outside C on the edges)

    float acc = 0.0f;                   // stays in a register for the whole loop

    // No early return before this loop, even for threads outside C: every
    // thread of the block must reach every __syncthreads(), and those threads
    // still load their share of the tiles, which the others need.
    int ntiles = (N + TILE - 1) / TILE;
    for (int t = 0; t < ntiles; ++t) {
        // Cooperative load: each of the 1024 threads brings in one element of
        // each tile, so a tile costs one global load per thread. A warp
        // (one ty, tx = 0..31) reads 32 consecutive floats of a row of A and
        // of B: both loads are coalesced.
        // Elements past the edge of the matrix are stored as 0.0f: a zero adds
        // nothing to the dot product, so the inner loop below needs no bounds
        // check and always runs exactly TILE times.
        int a_col = t * TILE + tx;
        int b_row = t * TILE + ty;
        As[ty][tx] = (row < N && a_col < N) ? A[row * N + a_col] : 0.0f;
        Bs[ty][tx] = (b_row < N && col < N) ? B[b_row * N + col] : 0.0f;

        // Barrier 1: the tiles are complete. The loop below reads elements
        // loaded by the other 31 warps of the block.
        __syncthreads();

        // TILE multiply-adds, all operands from shared memory. Across a warp:
        //   As[ty][k]: one address for all 32 threads (a broadcast);
        //   Bs[k][tx]: 32 consecutive words, 32 different banks.
        // Neither access has a bank conflict.
        #pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];

        // Barrier 2: everyone is done reading this tile. Without it a fast
        // warp would start the next iteration and overwrite As/Bs while a
        // slower warp is still using the current values.
        __syncthreads();
    }

    // Only threads that own an element of C store it.
    if (row < N && col < N)
        C[row * N + col] = acc;
}
