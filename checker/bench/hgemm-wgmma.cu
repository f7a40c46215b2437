// Lesson 11's first measurement (issue 49, not yet a lesson): C = A * B in half precision, the
// products summed in float, with Hopper's own machinery. The tensor memory accelerator (TMA) copies
// each tile into shared memory already swizzled (its 128-byte mode: lesson 5's and lesson 10's XOR,
// done by the copy engine); an mbarrier per stage counts the bytes that landed (STAGES stages: the
// copier runs ahead, the multipliers wait on the bytes); wgmma reads the tiles straight from shared
// memory through descriptors that name the same swizzle. A is M x K row-major (K-major for wgmma), B
// is K x N row-major (N-major: wgmma's transposed B), as lesson 10's. One block makes 128 x 128 of C:
// warps 0-3 (one warpgroup) multiply, two m64n128k16 halves per K-step of 16; warp 4's first lane
// copies. Against cublasGemmEx in the same run, each the median of 20 launches (no L2 flush between,
// the same for both), on inputs whose sums are exact in float (the outputs must match bit for bit).
//   nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o build/hgemm-wgmma checker/bench/hgemm-wgmma.cu -lcublas
//   build/hgemm-wgmma [N]   (N a multiple of 128, of BN; -DSTAGES=n, -DB_LBO, -DB_SBO: B's descriptor offsets;
//                           -DBN=256 -DCONSUMERS=2: two warpgroups multiply a 128 x 256 block, one m64 each;
//                           -DSWIZZLE=64 or 32: the copies and descriptors swizzle 64 or 32 bytes, the tiles
//                           copied as boxes that many bytes wide, 128 / SWIZZLE times as many;
//                           -DGROUP=g: blocks take their tiles g rows of blocks at a time, column by
//                           column, so the blocks resident together share more of A and B in the L2)
// docs/measurements.md has what it measured on an H100 (2026-12-06).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cublas_v2.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

#define BM 128
#ifndef BN
#define BN 128       // 128 or 256: the block's columns, and each product's n
#endif
#ifndef CONSUMERS
#define CONSUMERS 1  // warpgroups that multiply: 1 (both m64 halves each) or 2 (one each)
#endif
#define BK 64
#ifndef STAGES
#define STAGES 4
#endif
#ifndef SWIZZLE
#define SWIZZLE 128        // bytes: a box's row, and the span the copy engine's XOR permutes
#endif
#define SPAN_ELEMS (SWIZZLE / 2)
#define SW_MODE (SWIZZLE == 128 ? 1 : SWIZZLE == 64 ? 2 : 3) // the descriptor's bits 62-63
#ifndef B_LBO
#define B_LBO (BK * SWIZZLE) // bytes from one box of B's columns to the next
#endif
#ifndef B_SBO
#define B_SBO (8 * SWIZZLE)  // bytes from 8 rows of k to the next 8
#endif
#ifndef GROUP
#define GROUP 0            // 0: block (x, y) makes tile (x, y), a row of tiles after another
#endif
#define A_BYTES (BM * BK * 2)
#define B_BYTES (BK * BN * 2)
#define STAGE_BYTES (A_BYTES + B_BYTES)

#include "../tests/ptx/hopper_asm.cuh" // smem, desc, the mbarrier's, tma_2d, D8, wgmma_64x128x16

// d (128 floats a thread) += A(64 x 16, K-major) * B(16 x 256, N-major).
__device__ static inline void wgmma_64x256x16(float *d, uint64_t da, uint64_t db)
{
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, 1, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
                 "%128, %129, p, 1, 1, 0, 1;\n}"
                 : D8(0), D8(8), D8(16), D8(24), D8(32), D8(40), D8(48), D8(56), D8(64), D8(72), D8(80), D8(88), D8(96), D8(104), D8(112), D8(120)
                 : "l"(da), "l"(db));
}

// Block: CONSUMERS warpgroups multiply (each HALVES of the block's two m64 halves of BM x BN), and
// the first lane of the warp after them copies. Dynamic shared memory, 1024-aligned: STAGES x (A as
// BK / SPAN_ELEMS boxes of SPAN_ELEMS x BM, B as BN / SPAN_ELEMS boxes of SPAN_ELEMS x BK).
#define HALVES (2 / CONSUMERS)
#define ACC (BN / 2) /* floats a thread holds of one m64 x BN product */
#define THREADS (128 * CONSUMERS + 32)
__global__ void __launch_bounds__(THREADS) hgemm_wgmma(const __grid_constant__ CUtensorMap mapA,
                                                        const __grid_constant__ CUtensorMap mapB, float *C, int N)
{
    extern __shared__ __align__(1024) unsigned char raw[];
    unsigned char *buf = (unsigned char *)(((uintptr_t)raw + 1023) & ~(uintptr_t)1023);
    __shared__ __align__(8) uint64_t full[STAGES], empty[STAGES];
    int t = threadIdx.x, ktiles = N / BK;
    int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    if (GROUP) { // the launch's i-th block takes the i-th tile down columns of GROUP rows of tiles
        int i = blockIdx.y * gridDim.x + blockIdx.x, span = GROUP * gridDim.x, first = i / span * GROUP;
        int rows = min(GROUP, (int)gridDim.y - first);
        m0 = (first + i % span % rows) * BM, n0 = i % span / rows * BN;
    }
    if (t == 0) {
        for (int s = 0; s < STAGES; s++) {
            bar_init(&full[s], 1);
            bar_init(&empty[s], 128 * CONSUMERS);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    if (t >= 128 * CONSUMERS) { // the copier
        if (t == 128 * CONSUMERS)
            for (int kt = 0; kt < ktiles; kt++) {
                int s = kt % STAGES;
                if (kt >= STAGES)
                    bar_wait(&empty[s], ((kt / STAGES) - 1) & 1);
                unsigned char *a = buf + s * STAGE_BYTES, *b = a + A_BYTES;
                bar_expect(&full[s], STAGE_BYTES);
                for (int j = 0; j < BK / SPAN_ELEMS; j++)
                    tma_2d(a + j * (BM * SWIZZLE), &mapA, kt * BK + SPAN_ELEMS * j, m0, &full[s]);
                for (int j = 0; j < BN / SPAN_ELEMS; j++)
                    tma_2d(b + j * (BK * SWIZZLE), &mapB, n0 + SPAN_ELEMS * j, kt * BK, &full[s]);
            }
        return;
    }

    int wg = t / 128;
    float acc[HALVES][ACC];
#pragma unroll
    for (int h = 0; h < HALVES; h++)
#pragma unroll
        for (int i = 0; i < ACC; i++)
            acc[h][i] = 0.0f;
    for (int kt = 0; kt < ktiles; kt++) {
        int s = kt % STAGES;
        bar_wait(&full[s], (kt / STAGES) & 1);
        uint32_t a = smem(buf + s * STAGE_BYTES), b = a + A_BYTES;
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int k = 0; k < BK / 16; k++)
#pragma unroll
            for (int h = 0; h < HALVES; h++) {
                // k's 32 bytes of A lie in box k * 32 / SWIZZLE, at k * 32 % SWIZZLE into its rows
                uint64_t da = desc(a + (k * 32 / SWIZZLE) * (BM * SWIZZLE) + (wg * HALVES + h) * 64 * SWIZZLE +
                                       k * 32 % SWIZZLE, 16, 8 * SWIZZLE, SW_MODE),
                         db = desc(b + k * 16 * SWIZZLE, B_LBO, B_SBO, SW_MODE);
#if BN == 256
                wgmma_64x256x16(acc[h], da, db);
#else
                wgmma_64x128x16(acc[h], da, db);
#endif
            }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        bar_arrive(&empty[s]);
    }
    // The accumulators: warp w's lanes hold rows 16 (w % 4) + lane/4 (+8) of each m64 half, two
    // columns in each group of 8.
    int w = t / 32, l = t % 32;
#pragma unroll
    for (int h = 0; h < HALVES; h++)
#pragma unroll
        for (int i = 0; i < ACC; i++) {
            int row = m0 + (wg * HALVES + h) * 64 + 16 * (w % 4) + l / 4 + 8 * ((i / 2) % 2);
            int col = n0 + 8 * (i / 4) + 2 * (l % 4) + i % 2;
            C[(size_t)row * N + col] = acc[h][i];
        }
}

static PFN_cuTensorMapEncodeTiled_v12000 encode;

// A row-major rows x cols matrix of halves, read in boxes of box_cols x box_rows, swizzled SWIZZLE bytes.
static CUtensorMap tensor_map(void *base, int rows, int cols, int box_cols, int box_rows)
{
    CUtensorMap m;
    cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows}, strides[1] = {(cuuint64_t)cols * 2};
    cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows}, step[2] = {1, 1};
    CUresult r = encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, base, dims, strides, box, step,
                        CU_TENSOR_MAP_INTERLEAVE_NONE,
                        SWIZZLE == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                       : SWIZZLE == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "cuTensorMapEncodeTiled: %d\n", (int)r);
        exit(1);
    }
    return m;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096, reps = 20;
    cudaDriverEntryPointQueryResult q;
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000, cudaEnableDefault,
                                           &q));
    size_t nn = (size_t)n * n;
    std::vector<__half> h(nn);
    std::vector<__half> hb(nn);
    srand(1);
    for (size_t i = 0; i < nn; i++) {
        h[i] = __float2half((float)(rand() % 9 - 4) / 4);
        hb[i] = __float2half((float)(rand() % 9 - 4) / 4);
    }
    __half *A, *B;
    float *C, *R;
    CHECK(cudaMalloc(&A, nn * 2));
    CHECK(cudaMalloc(&B, nn * 2));
    CHECK(cudaMalloc(&C, nn * 4));
    CHECK(cudaMalloc(&R, nn * 4));
    CHECK(cudaMemcpy(A, h.data(), nn * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, hb.data(), nn * 2, cudaMemcpyHostToDevice));
    CUtensorMap ma = tensor_map(A, n, n, SPAN_ELEMS, BM), mb = tensor_map(B, n, n, SPAN_ELEMS, BK);
    int bytes = STAGES * STAGE_BYTES + 1024;
    CHECK(cudaFuncSetAttribute(hgemm_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    dim3 grid(n / BN, n / BM);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    auto ours = [&] { hgemm_wgmma<<<grid, THREADS, bytes>>>(ma, mb, C, n); };
    cublasHandle_t hd;
    cublasCreate(&hd);
    float one = 1, zero = 0;
    // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets B first.
    auto theirs = [&] { cublasGemmEx(hd, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, CUDA_R_16F, n, A, CUDA_R_16F, n,
                                     &zero, R, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT); };
    ours();
    theirs();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> c(nn), r(nn);
    CHECK(cudaMemcpy(c.data(), C, nn * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(r.data(), R, nn * 4, cudaMemcpyDeviceToHost));
    size_t wrong = 0, first = nn;
    for (size_t i = 0; i < nn; i++)
        if (c[i] != r[i] && wrong++ == 0)
            first = i;
    auto time = [&](auto f) {
        std::vector<float> ms(reps);
        for (int i = 0; i < reps; i++) {
            cudaEventRecord(e0);
            f();
            cudaEventRecord(e1);
            cudaEventSynchronize(e1);
            cudaEventElapsedTime(&ms[i], e0, e1);
        }
        std::sort(ms.begin(), ms.end());
        return ms[reps / 2];
    };
    float t_ours = time(ours), t_cublas = time(theirs);
    double flop = 2.0 * n * n * n;
    printf("N=%d BN=%d consumers=%d stages=%d swizzle=%d group=%d lbo=%d sbo=%d: %zu of %zu elements differ from "
           "cuBLAS", n, BN, CONSUMERS, STAGES, SWIZZLE, GROUP, B_LBO, B_SBO, wrong, nn);
    if (wrong)
        printf(" (first at %zu,%zu: %g, cuBLAS %g)", first / n, first % n, c[first], r[first]);
    printf("\n  wgmma %.3f ms %.0f TFLOP/s; cublasGemmEx %.3f ms %.0f TFLOP/s; %.1f%% of cuBLAS\n", t_ours,
           flop / t_ours / 1e9, t_cublas, flop / t_cublas / 1e9, 100.0 * t_cublas / t_ours);
    CHECK(cudaGetLastError());
    return 0;
}
