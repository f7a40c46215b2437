// MUTANT syntax_error: a missing semicolon: the checker must show file:line, not a wall of make output

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
    float acc = 0.0f
    for (int k = 0; k < N; ++k) {
        // Two global loads per multiply-add. Across the warp:
        //   A[row*N + k]: the same address for all 32 threads (one broadcast);
        //   B[k*N + col]: 32 consecutive floats, one 128-byte line: coalesced.
        acc += A[row * N + k] * B[k * N + col];
    }

    // Consecutive threads store consecutive floats: coalesced again.
    C[row * N + col] = acc;
}
