/* A right padded transpose that takes the order of the columns within each group of four from
 * a table in __constant__ memory (the identity), and reads clock64() (a count in the emulator,
 * cycles on a GPU). Both judges must pass it. checker/mutants/constant_past_end.mutant and
 * clock_instead_of_barrier.mutant are its wrong twins. */
#define TILE 32

__constant__ int kOrder[4] = {0, 1, 2, 3};

__global__ void transpose_padded(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    long long start = clock64();
    int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
    int tx = threadIdx.x, ty = threadIdx.y;
    int c = (tx & ~3) + kOrder[tx & 3]; // = tx
    if (r0 + ty < rows && c0 + c < cols)
        tile[ty][c] = in[(r0 + ty) * cols + c0 + c];
    __syncthreads();
    long long spent = clock64() - start; // never negative: the clock only goes forward
    if (spent >= 0 && c0 + ty < cols && r0 + tx < rows)
        out[(c0 + ty) * rows + r0 + tx] = tile[tx][ty];
}
