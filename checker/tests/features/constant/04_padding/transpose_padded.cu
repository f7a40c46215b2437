/* A right padded transpose that takes the order of the columns within each group of four from
 * a table in __constant__ memory (the identity). Both judges must pass it.
 * checker/mutants/constant_past_end.mutant and clock_instead_of_barrier.mutant are its wrong twins.
 * (It read clock64() too, until lesson files were refused clocks: issue 45.) */
#define TILE 32

__constant__ int kOrder[4] = {0, 1, 2, 3};

__global__ void transpose_padded(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
    int tx = threadIdx.x, ty = threadIdx.y;
    int c = (tx & ~3) + kOrder[tx & 3]; // = tx
    if (r0 + ty < rows && c0 + c < cols)
        tile[ty][c] = in[(r0 + ty) * cols + c0 + c];
    __syncthreads();
    if (c0 + ty < cols && r0 + tx < rows)
        out[(c0 + ty) * rows + r0 + tx] = tile[tx][ty];
}
