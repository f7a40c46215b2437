/* A right transpose whose tile is read down its columns a float4 at a time (LDS.128 with bank
 * conflicts: the 8 lanes of a quarter-warp read 8 rows at the same column, 128 bytes apart, so
 * all ask for the same 4 banks: 8 wavefronts per quarter-warp). Lesson 3 allows conflicts; the
 * kernel is here so that both judges run such a read and docs/emulator.md can hold the
 * emulator's count of it against Nsight Compute's. */
#define TILE 32

__global__ void transpose_shared(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE]; // [TILE rows][TILE cols] of `in`
    int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
    int tx = threadIdx.x, ty = threadIdx.y;
    if (r0 + ty < rows && c0 + tx < cols)
        tile[ty][tx] = in[(r0 + ty) * cols + c0 + tx];
    __syncthreads();
    // out(c0 + ty, r0 + tx) = tile[tx][ty]: the float4 of row tx that holds column ty.
    float4 q = *reinterpret_cast<const float4 *>(&tile[tx][ty & ~3]);
    int k = ty & 3;
    float v = k == 0 ? q.x : k == 1 ? q.y : k == 2 ? q.z : q.w;
    if (c0 + ty < cols && r0 + tx < rows)
        out[(c0 + ty) * rows + r0 + tx] = v;
}
