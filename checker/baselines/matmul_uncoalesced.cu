/*
 * Baseline for lesson 1                                   matmul_uncoalesced.cu
 *
 * Why this is the baseline: it is the lesson 1 kernel with the thread mapping
 * swapped (row from the x index, column from the y index). It is correct, so
 * the speed check has a fair reference, but it is slow for one reason only,
 * the memory access pattern, which is exactly what lesson 1 teaches. Lesson 1
 * passes when its kernel beats this one by the factor
 * lessons/01_naive_matmul/thresholds sets.
 *
 * A warp is 32 threads with consecutive threadIdx.x and one threadIdx.y, so
 * here a warp holds 32 consecutive ROWS of C in one column:
 *   A[row*N + k]   32 addresses N floats apart: the warp walks down a column
 *                  of A, one separate memory segment per thread (uncoalesced);
 *   B[k*N + col]   one address for the whole warp (a broadcast);
 *   C[row*N + col] the final stores are N floats apart as well.
 *
 * Same signature and launch as lesson 1: block = dim3(32, 32),
 * grid = dim3(ceil(N/32), ceil(N/32)); the grid is square, so swapping the
 * roles of x and y still covers every element of C.
 */

__global__ void matmul_uncoalesced(const float *A, const float *B, float *C, int N)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;   // row from x: the slow choice
    int col = blockIdx.y * blockDim.y + threadIdx.y;

    if (row >= N || col >= N)
        return;

    float acc = 0.0f;
    for (int k = 0; k < N; ++k)
        acc += A[row * N + k] * B[k * N + col];

    C[row * N + col] = acc;
}
