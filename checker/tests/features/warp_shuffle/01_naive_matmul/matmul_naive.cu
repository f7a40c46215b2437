/* A right tiled matmul that keeps the tile of A in registers and hands its values across the
 * warp with __shfl_sync instead of shared memory (the 32 threads of a warp share a row of C);
 * __any_sync lets a warp whose row is outside C skip the arithmetic. Both judges must pass it,
 * as a lesson-1 kernel: on the H200 it is 1.13 times as fast as lesson 1's kernel where
 * lesson 2 asks for 1.20 (a shuffle per multiply-add costs more than a broadcast shared load).
 * checker/mutants/shuffle_wrong_lane.mutant and shuffle_partial_mask.mutant are its wrong twins. */
#define TILE 32
#define FULL_MASK 0xffffffffu

__global__ void matmul_naive(const float *A, const float *B, float *C, int N)
{
    __shared__ float Bs[TILE][TILE]; // [k][col] of B's tile
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    bool warp_has_row = __any_sync(FULL_MASK, row < N);
    float acc = 0.0f;
    for (int t = 0; t < (N + TILE - 1) / TILE; ++t) {
        // Lane tx holds A[row][t*TILE + tx]; lane k's value is handed to all by the shuffle.
        float a = (row < N && t * TILE + tx < N) ? A[row * N + t * TILE + tx] : 0.0f;
        Bs[ty][tx] = (t * TILE + ty < N && col < N) ? B[(t * TILE + ty) * N + col] : 0.0f;
        __syncthreads();
        if (warp_has_row)
            for (int k = 0; k < TILE; ++k)
                acc += __shfl_sync(FULL_MASK, a, k) * Bs[k][tx];
        __syncthreads();
    }
    if (row < N && col < N)
        C[row * N + col] = acc;
}
