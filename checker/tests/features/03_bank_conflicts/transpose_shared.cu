/* A right transpose written with CUDA features beyond the lessons' own (checker/tests/features/
 * is laid out like a hand-in): both judges must compile it and pass it (make test). Features:
 * __ldg, __fmaf_rn, float4 loads and stores through reinterpret_cast, make_float4, min, max,
 * __float_as_int, __int_as_float, __popc, __threadfence_block. */
#define TILE 32

__global__ void transpose_shared(const float *in, float *out, int rows, int cols)
{
    // [TILE rows][TILE + 4 cols]: rows stay 16-byte aligned for the float4 pass
    __shared__ float tile[TILE][TILE + 4];
    int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
    int tx = threadIdx.x, ty = threadIdx.y;
    int r = r0 + ty, c = c0 + tx;
    float v = (r < rows && c < cols) ? __ldg(&in[r * cols + c]) : 0.0f;
    tile[ty][tx] = __fmaf_rn(v, 1.0f, 0.0f);
    __syncthreads();
    // A quarter of the threads rewrite their row's tile four floats at a time (LDS.128/STS.128).
    if (tx < TILE / 4) {
        float4 q = *reinterpret_cast<const float4 *>(&tile[ty][4 * tx]);
        *reinterpret_cast<float4 *>(&tile[ty][4 * tx]) = make_float4(q.x, q.y, q.z, max(q.w, q.w));
    }
    __threadfence_block();
    __syncthreads();
    int orow = c0 + ty, ocol = r0 + tx;
    if (orow < cols && ocol < rows)
        out[orow * rows + ocol] = __int_as_float(__float_as_int(tile[tx][ty])) + (float)(__popc(0u) + min(0, 1));
}
