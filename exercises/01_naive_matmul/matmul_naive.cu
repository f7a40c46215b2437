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
    // TODO: give each thread one element of C (a row and a column), chosen so
    //       that the 32 threads of a warp read 32 neighbouring floats of B.

    // TODO: threads that land outside the N x N matrix must do nothing.

    // TODO: compute the dot product of that row of A and that column of B,
    //       and store it in C.

    // These lines only silence "unused" warnings; delete them when done.
    (void)A;
    (void)B;
    (void)C;
    (void)N;
    // END TODO
}
