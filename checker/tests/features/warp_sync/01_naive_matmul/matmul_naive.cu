/* A right matmul in which each warp (one row of C) stages 32 values of its row of A in shared
 * memory and orders the lanes with __syncwarp() alone: only the warp itself reads its strip,
 * so no block-wide barrier is needed. Both judges must pass it. checker/mutants/no_syncwarp.
 * mutant is its wrong twin. */
#define TILE 32

__global__ void matmul_naive(const float *A, const float *B, float *C, int N)
{
    __shared__ float As[TILE][TILE]; // row ty: warp ty's strip of its row of A
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < N; k0 += TILE) {
        As[ty][tx] = (row < N && k0 + tx < N) ? A[row * N + k0 + tx] : 0.0f;
        __syncwarp(); // the strip is written before any lane reads it
        if (row < N && col < N)
            for (int k = 0; k < TILE && k0 + k < N; ++k)
                acc += As[ty][k] * B[(k0 + k) * N + col];
        __syncwarp(); // and read before the next strip overwrites it
    }
    if (row < N && col < N)
        C[row * N + col] = acc;
}
