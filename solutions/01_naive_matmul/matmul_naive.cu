/*
 * Lesson 1: naive matrix multiply                               matmul_naive.cu
 *
 * CONTRACT
 *   Computes   C = A * B, where A, B and C are N x N float matrices stored
 *              row-major: element (row, k) of A is A[row*N + k].
 *   Signature  __global__ void matmul_naive(const float *A, const float *B,
 *                                           float *C, int N);
 *   Launch     done by the harness, never by this file:
 *                block = dim3(32, 32)                     (1024 threads)
 *                grid  = dim3(ceil(N/32), ceil(N/32))
 *              N is arbitrary (as small as 1, usually not a multiple of 32),
 *              so some threads of the last blocks fall outside C.
 *   Rules      Exactly one __global__ kernel, matmul_naive, plus optional
 *              __device__ helpers and #defines. No #include lines, no host
 *              code, no main, no <<<>>> launches, no library calls (cuBLAS...).
 *   Passing    1. Correct: on every tested size, C matches the reference
 *                 solution and a CPU reference within a floating-point
 *                 tolerance.
 *              2. Fast: at least the speed-up over the baseline kernel
 *                 (checker/baselines/matmul_uncoalesced.cu) that
 *                 lessons/01_naive_matmul/thresholds sets, both kernels
 *                 timed in the same run.
 *   Running    make lesson1   copies this stub to work/01_naive_matmul/;
 *                             edit that copy, not this file.
 *              make check     checks your copy: correctness, then speed.
 *              make hint      shows the lesson's hints, weakest first.
 */

__global__ void matmul_naive(const float *A, const float *B, float *C, int N)
{
    // One thread per element of C. The 32 threads of a warp share threadIdx.y
    // and have consecutive threadIdx.x, so taking the column from x makes a
    // warp cover 32 neighbouring elements of one row of C.
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;

    // The grid is rounded up to whole 32 x 32 blocks: threads past the edge
    // have no element. There is no barrier in this kernel, so leaving early
    // is safe here (lesson 2 will be different).
    if (row >= N || col >= N)
        return;

    // The running sum stays in a register; C is written once at the end.
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) {
        // Two global loads per multiply-add. Across the warp:
        //   A[row*N + k]: the same address for all 32 threads (one broadcast);
        //   B[k*N + col]: 32 consecutive floats, one 128-byte line: coalesced.
        acc += A[row * N + k] * B[k * N + col];
    }

    // Consecutive threads store consecutive floats: coalesced again.
    C[row * N + col] = acc;
}
