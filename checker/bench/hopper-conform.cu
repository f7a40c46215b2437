// The GPU's answers to the Hopper probes (checker/tests/ptx/hopper_cases.h), which the interpreter
// must give bit for bit (test_ptx_hopper.c replays them in make test): each tensor copy's box as
// it lies in shared memory, each wgmma product; and lesson 11's GEMM (hopper.cu's `gemm`) on exact
// inputs against the CPU. Prints the record (checker/tests/conformance/records/hopper-probes.txt): a
// header naming the GPU, its driver and the date, then a case and its FNV-1a hash a line; with a
// folder argument, each answer's bytes there too (for a difference's diff).
//   nvcc -O2 -gencode arch=compute_90a,code=sm_90a -o build/hopper-conform checker/bench/hopper-conform.cu -lcuda
//   build/hopper-conform [DIR] > checker/tests/conformance/records/hopper-probes.txt
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>
#include <cuda.h>
#include <cudaTypedefs.h>

#include "../tests/ptx/hopper.cu"
#include "../tests/ptx/hopper_cases.h"

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

static PFN_cuTensorMapEncodeTiled_v12000 encode;

static CUtensorMap tensor_map(void *base, uint64_t cols, uint64_t rows, uint64_t row_bytes, int box_x, int box_y,
                              int swizzle)
{
    CUtensorMap m;
    cuuint64_t dims[2] = {cols, rows}, strides[1] = {row_bytes};
    cuuint32_t box[2] = {(cuuint32_t)box_x, (cuuint32_t)box_y}, step[2] = {1, 1};
    CUtensorMapSwizzle sw = swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                            : swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B : CU_TENSOR_MAP_SWIZZLE_NONE;
    CUresult r = encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, base, dims, strides, box, step,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "cuTensorMapEncodeTiled: %d\n", (int)r);
        exit(1);
    }
    return m;
}

static void answer(const char *dir, const char *name, const void *p, size_t n)
{
    printf("%s\t%016llx\n", name, (unsigned long long)hopper_hash(p, n));
    if (!dir)
        return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s.bin", dir, name);
    for (char *c = path + strlen(dir) + 1; *c; c++)
        if (*c == ' ' || *c == '(' || *c == ')' || *c == ',')
            *c = '_';
    FILE *f = fopen(path, "wb");
    if (f)
        fwrite(p, 1, n, f), fclose(f);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : NULL;
    cudaDriverEntryPointQueryResult q;
    CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", (void **)&encode, cudaEnableDefault, &q));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0;
    cudaDriverGetVersion(&driver);
    char day[32];
    time_t now = time(NULL);
    strftime(day, sizeof day, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    printf("# Hopper probes (checker/tests/ptx/hopper_cases.h) answered by %s, CUDA driver %d, %s:\n"
           "#   build/hopper-conform > checker/tests/conformance/records/hopper-probes.txt\n", prop.name, driver, day);

    // Tensor copies.
    std::vector<uint16_t> tensor(TMA_ROWS * TMA_ROW_BYTES / 2);
    for (int r = 0; r < TMA_ROWS; r++)
        for (int k = 0; k < TMA_ROW_BYTES / 2; k++)
            tensor[r * TMA_ROW_BYTES / 2 + k] = tma_element(r * TMA_ROW_BYTES / 2 + k);
    uint16_t *dt;
    unsigned *dout;
    CHECK(cudaMalloc(&dt, tensor.size() * 2));
    CHECK(cudaMalloc(&dout, 65536));
    CHECK(cudaMemcpy(dt, tensor.data(), tensor.size() * 2, cudaMemcpyHostToDevice));
    std::vector<unsigned char> host(65536);
    // Each copy; the last one faults on a GPU (hopper_cases.h), and is answered "fault" where it does.
    auto copy = [&](const struct tma_case *c) {
        CUtensorMap m = tensor_map(dt, TMA_COLS, TMA_ROWS, TMA_ROW_BYTES, c->box_x, c->box_y, c->swizzle);
        int bytes = c->box_x * c->box_y * 2;
        tma_probe<<<1, 128, bytes + 1024>>>(m, dout, c->x, c->y, bytes);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            printf("%s\tfault\n", c->name);
            fprintf(stderr, "%s: %s\n", c->name, cudaGetErrorString(e));
            return;
        }
        CHECK(cudaMemcpy(host.data(), dout, bytes, cudaMemcpyDeviceToHost));
        answer(dir, c->name, host.data(), bytes);
    };
    for (int i = 0; i < TMA_CASES - 1; i++)
        copy(&tma_cases[i]);

    // Products.
    std::vector<uint16_t> tile(16384);
    std::vector<float> cin(64 * 16), d(64 * 16);
    hopper_inputs(tile.data(), cin.data());
    unsigned short *dtile;
    float *dc, *dd;
    CHECK(cudaMalloc(&dtile, 32768));
    CHECK(cudaMalloc(&dc, 4096));
    CHECK(cudaMalloc(&dd, 4096));
    CHECK(cudaMemcpy(dtile, tile.data(), 32768, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, cin.data(), 4096, cudaMemcpyHostToDevice));
    CHECK(cudaFuncSetAttribute(wgmma_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 32768 + 1024));
    for (int i = 0; i < WGMMA_CASES; i++) {
        const struct wgmma_case *c = &wgmma_cases[i];
        wgmma_probe<<<1, 128, 32768 + 1024>>>(dtile, dc, dd, hopper_desc(c->a_start, c->a_lbo, c->a_sbo, c->mode),
                                             hopper_desc(c->b_start, c->b_lbo, c->b_sbo, c->mode), c->trans_b);
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(d.data(), dd, 4096, cudaMemcpyDeviceToHost));
        answer(dir, c->name, d.data(), 4096);
    }

    // Lesson 11's GEMM on exact inputs, against the CPU (its mistakes are the interpreter's to name);
    // then the copy that faults, last.
    const int n = 256;
    std::vector<uint16_t> a(n * n), b(n * n);
    uint64_t x = 99;
    for (int i = 0; i < n * n; i++)
        a[i] = 0x3C00 ^ (uint16_t)((hopper_next(&x) & 1) << 15), b[i] = (uint16_t)((hopper_next(&x) % 5) << 12);
    std::vector<float> cpu(n * n, 0.0f), gpu(n * n);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) {
            float av = a[i * n + k] >> 15 ? -1.0f : 1.0f;
            for (int j = 0; j < n; j++) {
                uint16_t h = b[k * n + j];
                float bv = h == 0 ? 0.0f : ldexpf(1.0f, (h >> 10) - 15); // 0, or 2^(e - 15)
                cpu[i * n + j] += av * bv;
            }
        }
    uint16_t *da, *db;
    float *dg;
    CHECK(cudaMalloc(&da, n * n * 2));
    CHECK(cudaMalloc(&db, n * n * 2));
    CHECK(cudaMalloc(&dg, n * n * 4));
    CHECK(cudaMemcpy(da, a.data(), n * n * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), n * n * 2, cudaMemcpyHostToDevice));
    CUtensorMap ma = tensor_map(da, n, n, n * 2, 64, 128, 128), mb = tensor_map(db, n, n, n * 2, 64, 64, 128);
    CHECK(cudaFuncSetAttribute(gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, STAGES * STAGE_BYTES + 1024));
    gemm<<<dim3(n / 128, n / 128), 160, STAGES * STAGE_BYTES + 1024>>>(ma, mb, dg, n, RIGHT);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(gpu.data(), dg, n * n * 4, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n * n; i++)
        wrong += gpu[i] != cpu[i];
    fprintf(stderr, "gemm N=%d: %d of %d elements differ from the CPU's\n", n, wrong, n * n);
    copy(&tma_cases[TMA_CASES - 1]);
    return wrong != 0;
}
