// The numbers behind the SGEMM capstone (issue 13): C = A * B for N x N floats, row-major,
// written several ways and timed beside cuBLAS's SGEMM in the same run.
//
//   nvcc -O3 -arch=sm_90 -o build/sgemm-variants checker/bench/sgemm-variants.cu -lcublas
//   build/sgemm-variants [N] [REPS]         (default 4096 15; N a multiple of 128)
//
// Prints per variant: median ms, TFLOP/s (2 N^3 / time), % of cuBLAS, and the largest
// difference from cuBLAS's C relative to the largest |C|.
#include <cmath>
#include <cublas_v2.h>

#include "bench.cuh"

// The lessons' own kernels, as they are graded (bounds checked at every edge): lesson 2's tiled
// kernel and lesson 8's solution, whose tile sizes (BM, BN, BK) the variants below share. (So
// this is an authors' tool: a handout, without solutions/, cannot build it.)
#include "../../solutions/02_tiled_matmul/matmul_tiled.cu"
#include "../../solutions/08_sgemm/sgemm_blocked.cu"

// ---- 64 x 64 block tile, 16 x 16 threads, a 4 x 4 patch of C each ------------------------------
__global__ void regblock_4x4(const float *A, const float *B, float *C, int N)
{
    __shared__ float As[64][16], Bs[16][64];
    int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < N; k0 += 16) {
        for (int i = tid; i < 64 * 16; i += 256) {
            As[i / 16][i % 16] = A[(size_t)(row0 + i / 16) * N + k0 + i % 16];
            Bs[i / 64][i % 64] = B[(size_t)(k0 + i / 64) * N + col0 + i % 64];
        }
        __syncthreads();
        for (int k = 0; k < 16; k++) {
            float a[4], b[4];
            for (int i = 0; i < 4; i++) {
                a[i] = As[ty * 4 + i][k];
                b[i] = Bs[k][tx * 4 + i];
            }
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            C[(size_t)(row0 + ty * 4 + i) * N + col0 + tx * 4 + j] = acc[i][j];
}

// ---- lesson 8's block tile without its edge checks (N a multiple of 128), taken apart ----------
// A's tile is stored transposed, As[k][m], so that a thread reads its 8 values of A for one k as
// two float4 (LDS.128); APAD words per row of As move the transposed stores off each other's banks.
// A thread's patch is rows {4ty..4ty+3, 64+4ty..} x cols {4tx..4tx+3, 64+4tx..}: a quarter-warp's
// 8 float4 reads of Bs are 128 consecutive bytes. Thread t loads one float4 of each tile: of A,
// row t/2 and columns (t%2)*4 on; of B, row t/32 and columns (t%32)*4 on.

// Thread t's float4 of A (down a column of As) and of B into the tiles.
template <int APAD>
__device__ __forceinline__ void stage(float (&As)[BK][BM + APAD], float (&Bs)[BK][BN], float4 a, float4 b)
{
    int t = threadIdx.x, a_row = t / 2, a_k = (t % 2) * 4;
    As[a_k + 0][a_row] = a.x;
    As[a_k + 1][a_row] = a.y;
    As[a_k + 2][a_row] = a.z;
    As[a_k + 3][a_row] = a.w;
    *(float4 *)&Bs[t / 32][(t % 32) * 4] = b;
}

// One K-step: the 64 products of the thread's patch from the tiles, added into acc.
template <int APAD>
__device__ __forceinline__ void multiply(const float (&As)[BK][BM + APAD], const float (&Bs)[BK][BN], float (&acc)[8][8])
{
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
#pragma unroll
    for (int k = 0; k < BK; k++) {
        float4 a0 = *(const float4 *)&As[k][ty * 4], a1 = *(const float4 *)&As[k][64 + ty * 4];
        float4 b0 = *(const float4 *)&Bs[k][tx * 4], b1 = *(const float4 *)&Bs[k][64 + tx * 4];
        float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int j = 0; j < 8; j++)
                acc[i][j] += a[i] * b[j];
    }
}

// The thread's patch of C, as two float4 a row.
__device__ __forceinline__ void store_patch(float *C, int N, const float (&acc)[8][8])
{
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16, row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        int row = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        *(float4 *)&C[(size_t)row * N + col0 + tx * 4] = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *(float4 *)&C[(size_t)row * N + col0 + 64 + tx * 4] = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}

// Where thread t's float4s of A and B lie for the K-step at 0: the next steps' are k0 further
// along A's row and k0 rows down B.
__device__ __forceinline__ const float *a_start(const float *A, int N)
{
    return A + (size_t)(blockIdx.y * BM + threadIdx.x / 2) * N + (threadIdx.x % 2) * 4;
}
__device__ __forceinline__ const float *b_start(const float *B, int N)
{
    return B + (size_t)(threadIdx.x / 32) * N + blockIdx.x * BN + (threadIdx.x % 32) * 4;
}

// One buffer of each tile, two barriers a K-step; PREFETCH loads the next tiles into registers
// before computing on these (lesson 8's solution does).
template <int APAD, bool PREFETCH>
__global__ __launch_bounds__(256) void regblock_8x8(const float *A, const float *B, float *C, int N)
{
    __shared__ __align__(16) float As[BK][BM + APAD];
    __shared__ __align__(16) float Bs[BK][BN];
    const float *Ap = a_start(A, N), *Bp = b_start(B, N);
    float acc[8][8] = {};
    float4 an = *(const float4 *)Ap, bn = *(const float4 *)Bp;
    for (int k0 = 0; k0 < N; k0 += BK) {
        if (!PREFETCH && k0 > 0) {
            an = *(const float4 *)(Ap + k0);
            bn = *(const float4 *)(Bp + (size_t)k0 * N);
        }
        stage<APAD>(As, Bs, an, bn);
        __syncthreads();
        if (PREFETCH && k0 + BK < N) {
            an = *(const float4 *)(Ap + k0 + BK);
            bn = *(const float4 *)(Bp + (size_t)(k0 + BK) * N);
        }
        multiply<APAD>(As, Bs, acc);
        __syncthreads();
    }
    store_patch(C, N, acc);
}

// The same with two buffers of each tile: the next tiles go into the other buffer while this one
// is read, so one barrier per K-step instead of two.
__global__ __launch_bounds__(256) void regblock_8x8_2buf(const float *A, const float *B, float *C, int N)
{
    __shared__ __align__(16) float As[2][BK][BM + PAD];
    __shared__ __align__(16) float Bs[2][BK][BN];
    const float *Ap = a_start(A, N), *Bp = b_start(B, N);
    float acc[8][8] = {};
    stage<PAD>(As[0], Bs[0], *(const float4 *)Ap, *(const float4 *)Bp);
    __syncthreads();
    int buf = 0;
    for (int k0 = 0; k0 < N; k0 += BK) {
        bool more = k0 + BK < N;
        float4 an, bn;
        if (more) {
            an = *(const float4 *)(Ap + k0 + BK);
            bn = *(const float4 *)(Bp + (size_t)(k0 + BK) * N);
        }
        multiply<PAD>(As[buf], Bs[buf], acc);
        if (more) {
            buf ^= 1;
            stage<PAD>(As[buf], Bs[buf], an, bn);
        }
        __syncthreads();
    }
    store_patch(C, N, acc);
}

struct variant {
    const char *name;
    void (*kernel)(const float *, const float *, float *, int);
    dim3 block;
    int tile;
};

int main(int argc, char **argv)
{
    int n = arg_int(argc, argv, 1, 4096), reps = arg_int(argc, argv, 2, 15);
    size_t elems = (size_t)n * n, bytes = elems * sizeof(float);
    bench b(reps);
    b.describe("N=%d fp32, median of %d, L2 flushed before each launch\n", n, reps);
    float *A = on_device(random_matrix(elems, 1)), *B = on_device(random_matrix(elems, 2)), *C = device_floats(elems);
    std::vector<float> ref(elems), got(elems);
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cublasSetMathMode(h, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cuBLAS would not start\n");
        return 1;
    }
    const float one = 1, zero = 0;
    // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets B first.
    float cublas_ms = b.median_ms([&] { cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n); });
    CHECK(cudaMemcpy(ref.data(), C, bytes, cudaMemcpyDeviceToHost));
    double flop = 2.0 * n * (double)n * n, cmax = 0;
    for (float v : ref)
        cmax = std::max(cmax, (double)fabsf(v));
    printf("%-36s %8s %9s %8s  %s\n", "variant", "ms", "TFLOP/s", "% cuBLAS", "max |diff| / max |C|");
    printf("%-36s %8.3f %9.2f %7.1f%%  -\n", "cublasSgemm", cublas_ms, flop / cublas_ms / 1e9, 100.0);

    const variant variants[] = {
        {"lesson 2: 32x32 tiles, 1 per thread", matmul_tiled, dim3(32, 32), 32},
        {"64x64 tile, 4x4 per thread", regblock_4x4, dim3(16, 16), 64},
        {"lesson 8: padded, prefetch, edges", sgemm_blocked, dim3(256), 128},
        {"128x128x8, 8x8, As padded +4", regblock_8x8<4, false>, dim3(256), 128},
        {"128x128x8, 8x8, As unpadded", regblock_8x8<0, false>, dim3(256), 128},
        {"128x128x8, 8x8, padded, prefetch", regblock_8x8<4, true>, dim3(256), 128},
        {"128x128x8, 8x8, unpadded, prefetch", regblock_8x8<0, true>, dim3(256), 128},
        {"128x128x8, 8x8, padded, 2 buffers", regblock_8x8_2buf, dim3(256), 128},
    };
    for (const variant &v : variants) {
        dim3 grid(n / v.tile, n / v.tile);
        CHECK(cudaMemset(C, 0, bytes));
        float ms = b.median_ms([&] { v.kernel<<<grid, v.block>>>(A, B, C, n); });
        CHECK(cudaMemcpy(got.data(), C, bytes, cudaMemcpyDeviceToHost));
        double diff = 0;
        for (size_t i = 0; i < elems; i++)
            diff = std::max(diff, (double)fabsf(got[i] - ref[i]));
        printf("%-36s %8.3f %9.2f %7.1f%%  %.2e\n", v.name, ms, flop / ms / 1e9, 100.0 * cublas_ms / ms, diff / cmax);
    }
    cublasDestroy(h);
    return 0;
}
