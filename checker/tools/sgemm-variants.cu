// The numbers behind the SGEMM capstone (issue 13): C = A * B for N x N floats, row-major,
// written several ways and timed beside cuBLAS's SGEMM in the same run.
//
//   nvcc -O3 -arch=sm_90 -o build/sgemm-variants checker/tools/sgemm-variants.cu -lcublas
//   build/sgemm-variants [N] [REPS]         (default 4096 15; N a multiple of 128)
//
// Prints per variant: median ms, TFLOP/s (2 N^3 / time), % of cuBLAS, and the largest
// difference from cuBLAS's C relative to the largest |C|.
#include <cmath>
#include <cublas_v2.h>

#include "bench.cuh"

// ---- lesson 2: 32 x 32 tiles, one element of C per thread ------------------------------------
__global__ void tiled_32(const float *A, const float *B, float *C, int N)
{
    __shared__ float As[32][32], Bs[32][32];
    int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * 32 + ty, col = blockIdx.x * 32 + tx;
    float acc = 0;
    for (int k0 = 0; k0 < N; k0 += 32) {
        As[ty][tx] = A[(size_t)row * N + k0 + tx];
        Bs[ty][tx] = B[(size_t)(k0 + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < 32; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[(size_t)row * N + col] = acc;
}

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

// ---- 128 x 128 block tile, K-step 8, 256 threads, an 8 x 8 patch of C each ---------------------
// A's tile is stored transposed, As[k][m], so that a thread reads its 8 values of A for one k as
// two float4 (LDS.128); PAD words per row of As move the transposed stores off each other's banks.
// A thread's patch is rows {4ty..4ty+3, 64+4ty..} x cols {4tx..4tx+3, 64+4tx..}: a quarter-warp's
// 8 float4 reads of Bs are 128 consecutive bytes. PREFETCH loads the next tiles into registers
// before computing on these.
template <int PAD, bool PREFETCH>
__global__ __launch_bounds__(256) void regblock_8x8(const float *A, const float *B, float *C, int N)
{
    __shared__ __align__(16) float As[8][128 + PAD];
    __shared__ __align__(16) float Bs[8][128];
    int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    int row0 = blockIdx.y * 128, col0 = blockIdx.x * 128;
    int a_row = tid / 2, a_k = (tid % 2) * 4;   // A: 128 rows x 8 k, one float4 each
    int b_k = tid / 32, b_col = (tid % 32) * 4; // B: 8 k x 128 cols, one float4 each
    const float *Ap = A + (size_t)(row0 + a_row) * N + a_k;
    const float *Bp = B + (size_t)b_k * N + col0 + b_col;
    float acc[8][8] = {};
    float4 an = *(const float4 *)Ap, bn = *(const float4 *)Bp;
    for (int k0 = 0; k0 < N; k0 += 8) {
        if (!PREFETCH && k0 > 0) {
            an = *(const float4 *)(Ap + k0);
            bn = *(const float4 *)(Bp + (size_t)k0 * N);
        }
        As[a_k + 0][a_row] = an.x;
        As[a_k + 1][a_row] = an.y;
        As[a_k + 2][a_row] = an.z;
        As[a_k + 3][a_row] = an.w;
        *(float4 *)&Bs[b_k][b_col] = bn;
        __syncthreads();
        if (PREFETCH && k0 + 8 < N) {
            an = *(const float4 *)(Ap + k0 + 8);
            bn = *(const float4 *)(Bp + (size_t)(k0 + 8) * N);
        }
#pragma unroll
        for (int k = 0; k < 8; k++) {
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
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 8; i++) {
        int row = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        *(float4 *)&C[(size_t)row * N + col0 + tx * 4] = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *(float4 *)&C[(size_t)row * N + col0 + 64 + tx * 4] = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}

// The same with two buffers of each tile: the next tiles go into the other buffer while this one
// is read, so one barrier per K-step instead of two.
__global__ __launch_bounds__(256) void regblock_8x8_2buf(const float *A, const float *B, float *C, int N)
{
    __shared__ __align__(16) float As[2][8][128 + 4];
    __shared__ __align__(16) float Bs[2][8][128];
    int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    int row0 = blockIdx.y * 128, col0 = blockIdx.x * 128;
    int a_row = tid / 2, a_k = (tid % 2) * 4;
    int b_k = tid / 32, b_col = (tid % 32) * 4;
    const float *Ap = A + (size_t)(row0 + a_row) * N + a_k;
    const float *Bp = B + (size_t)b_k * N + col0 + b_col;
    float acc[8][8] = {};
    float4 an = *(const float4 *)Ap, bn = *(const float4 *)Bp;
    As[0][a_k + 0][a_row] = an.x;
    As[0][a_k + 1][a_row] = an.y;
    As[0][a_k + 2][a_row] = an.z;
    As[0][a_k + 3][a_row] = an.w;
    *(float4 *)&Bs[0][b_k][b_col] = bn;
    __syncthreads();
    int buf = 0;
    for (int k0 = 0; k0 < N; k0 += 8) {
        bool more = k0 + 8 < N;
        if (more) {
            an = *(const float4 *)(Ap + k0 + 8);
            bn = *(const float4 *)(Bp + (size_t)(k0 + 8) * N);
        }
#pragma unroll
        for (int k = 0; k < 8; k++) {
            float4 a0 = *(const float4 *)&As[buf][k][ty * 4], a1 = *(const float4 *)&As[buf][k][64 + ty * 4];
            float4 b0 = *(const float4 *)&Bs[buf][k][tx * 4], b1 = *(const float4 *)&Bs[buf][k][64 + tx * 4];
            float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                    acc[i][j] += a[i] * b[j];
        }
        if (more) {
            buf ^= 1;
            As[buf][a_k + 0][a_row] = an.x;
            As[buf][a_k + 1][a_row] = an.y;
            As[buf][a_k + 2][a_row] = an.z;
            As[buf][a_k + 3][a_row] = an.w;
            *(float4 *)&Bs[buf][b_k][b_col] = bn;
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 8; i++) {
        int row = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        *(float4 *)&C[(size_t)row * N + col0 + tx * 4] = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *(float4 *)&C[(size_t)row * N + col0 + 64 + tx * 4] = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}

struct variant {
    const char *name;
    void (*kernel)(const float *, const float *, float *, int);
    dim3 block;
    int tile;
};

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096, reps = argc > 2 ? atoi(argv[2]) : 15;
    size_t elems = (size_t)n * n, bytes = elems * sizeof(float);
    bench b(reps);
    b.describe();
    printf("; N=%d fp32, median of %d, L2 flushed before each launch\n", n, reps);
    std::vector<float> hA(elems), hB(elems), ref(elems), got(elems);
    srand(1);
    for (size_t i = 0; i < elems; i++) {
        hA[i] = 2.0f * (float)rand() / (float)RAND_MAX - 1.0f;
        hB[i] = 2.0f * (float)rand() / (float)RAND_MAX - 1.0f;
    }
    float *A, *B, *C;
    CHECK(cudaMalloc(&A, bytes));
    CHECK(cudaMalloc(&B, bytes));
    CHECK(cudaMalloc(&C, bytes));
    CHECK(cudaMemcpy(A, hA.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, hB.data(), bytes, cudaMemcpyHostToDevice));
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
        {"lesson 2: 32x32 tiles, 1 per thread", tiled_32, dim3(32, 32), 32},
        {"64x64 tile, 4x4 per thread", regblock_4x4, dim3(16, 16), 64},
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
