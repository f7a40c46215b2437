/* A right lesson-6 kernel with two barriers more than it needs: one after clearing the tile,
 * before the loads, and one at the very end. Each thread still has its four loads in flight
 * together between two barriers, so both judges must pass it: the emulator's rule looks for
 * the thread's largest stretch of loads between barriers, not for the fewest barriers.
 * (checker/mutants/loads_one_at_a_time.mutant puts a barrier between the loads instead.) */
#define TILE 32
#define ROWS 8

__global__ void transpose_coarsened(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1]; // [TILE rows][TILE + 1 words], padded
    int tx = threadIdx.x, ty = threadIdx.y;
    int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;
    for (int k = 0; k < TILE; k += ROWS)
        tile[ty + k][tx] = 0.0f;
    __syncthreads();
    int c = c0 + tx;
#pragma unroll
    for (int k = 0; k < TILE; k += ROWS) {
        int r = r0 + ty + k;
        if (r < rows && c < cols)
            tile[ty + k][tx] = in[r * cols + c];
    }
    __syncthreads();
    int ocol = r0 + tx;
#pragma unroll
    for (int k = 0; k < TILE; k += ROWS) {
        int orow = c0 + ty + k;
        if (orow < cols && ocol < rows)
            out[orow * rows + ocol] = tile[tx][ty + k];
    }
    __syncthreads();
}
