/* A right transpose that counts the elements its block loaded three ways and writes only when
 * they agree: a warp-aggregated atomicAdd of __popc(__ballot_sync(...)) into a shared counter,
 * a __shfl_xor_sync butterfly sum per warp, and __syncthreads_count. A wrong vote, shuffle,
 * atomic or count in either judge leaves the output unwritten. checker/mutants/
 * vote_plain_counter.mutant and count_in_branch.mutant are its wrong twins. */
#define TILE 32
#define FULL_MASK 0xffffffffu

__global__ void transpose_shared(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];
    __shared__ int loaded;
    __shared__ int by_warp[TILE];
    int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
    int tx = threadIdx.x, ty = threadIdx.y; // warp ty, lane tx
    if (tx == 0 && ty == 0)
        loaded = 0;
    __syncthreads();
    bool inside = r0 + ty < rows && c0 + tx < cols;
    if (inside)
        tile[ty][tx] = in[(r0 + ty) * cols + c0 + tx];
    unsigned ballot = __ballot_sync(FULL_MASK, inside);
    int sum = inside;
    for (int d = TILE / 2; d > 0; d >>= 1)
        sum += __shfl_xor_sync(FULL_MASK, sum, d);
    if (tx == 0) {
        atomicAdd(&loaded, __popc(ballot));
        by_warp[ty] = sum;
    }
    int total = __syncthreads_count(inside);
    int from_warps = 0;
    for (int w = 0; w < TILE; ++w)
        from_warps += by_warp[w];
    if (loaded == total && from_warps == total && c0 + ty < cols && r0 + tx < rows)
        out[(c0 + ty) * rows + r0 + tx] = tile[tx][ty];
}
