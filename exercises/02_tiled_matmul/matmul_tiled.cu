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

    float acc = 0.0f;

    int ntiles = (N + TILE - 1) / TILE;
    for (int t = 0; t < ntiles; ++t) {
        // TODO: load this thread's element of tile t of A into As and of
        //       tile t of B into Bs; elements outside the matrices become 0.0f.

        // TODO: barrier 1: nobody reads the tiles before they are complete.

        // TODO: add this tile's TILE products to acc, reading only As and Bs.

        // TODO: barrier 2: nobody overwrites the tiles while another thread
        //       still reads them.
        // END TODO
    }

    // These lines only silence "unused" warnings; delete them when done.
    (void)A;
    (void)B;
    (void)As[0][0];
    (void)Bs[0][0];

    if (row < N && col < N)
        C[row * N + col] = acc;
}
