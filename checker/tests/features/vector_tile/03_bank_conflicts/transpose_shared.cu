/* A right transpose written with CUDA features beyond the lessons' own (each folder of
 * checker/tests/features/ is laid out like a hand-in): both judges must compile it and pass it
 * (checker/tools/run-cases.py, in make test). Features: __ldg, __fmaf_rn, float4 and float2
 * loads and stores of shared memory through reinterpret_cast (LDS.128/STS.128, LDS.64/STS.64,
 * all conflict-free), make_float4, make_float2, min, max, __float_as_int, __int_as_float,
 * __popc, __threadfence_block. checker/mutants/float4_misaligned.mutant and float2_swapped.mutant
 * are its wrong twins. */
#define TILE 32

__global__ void transpose_shared(const float *in, float *out, int rows, int cols)
{
    // [TILE rows][TILE + 4 cols]: every row starts at a multiple of 16 bytes, for float4
    __shared__ float tile[TILE][TILE + 4];
    int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
    int tx = threadIdx.x, ty = threadIdx.y;
    int r = r0 + ty, c = c0 + tx;
    float v = (r < rows && c < cols) ? __ldg(&in[r * cols + c]) : 0.0f;
    tile[ty][tx] = __fmaf_rn(v, 1.0f, 0.0f);
    __syncthreads();
    // A quarter of the threads negate their row four floats at a time (a quarter-warp of 8
    // lanes asks for 128 consecutive bytes: conflict-free), then half of them negate it back
    // two at a time (negation is exact, and the barrier keeps the compiler from merging them).
    if (tx < TILE / 4) {
        float4 q = *reinterpret_cast<const float4 *>(&tile[ty][4 * tx]);
        *reinterpret_cast<float4 *>(&tile[ty][4 * tx]) = make_float4(-q.x, -q.y, -q.z, -max(q.w, q.w));
    }
    __syncthreads();
    if (tx < TILE / 2) {
        float2 h = *reinterpret_cast<const float2 *>(&tile[ty][2 * tx]);
        *reinterpret_cast<float2 *>(&tile[ty][2 * tx]) = make_float2(-h.x, -h.y);
    }
    __threadfence_block();
    __syncthreads();
    int orow = c0 + ty, ocol = r0 + tx;
    if (orow < cols && ocol < rows)
        out[orow * rows + ocol] = __int_as_float(__float_as_int(tile[tx][ty])) + (float)(__popc(0u) + min(0, 1));
}
