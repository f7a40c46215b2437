// What the measuring tools in checker/tools/ share (transpose-variants.cu, reduce-variants.cu):
// error checks, the GPU's name line, and a median of launches each timed after an L2 flush.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

struct bench {
    cudaDeviceProp prop;
    char *flush = nullptr;
    size_t flush_bytes = 0;
    cudaEvent_t t0, t1;
    int reps;

    explicit bench(int reps_) : reps(reps_)
    {
        CHECK(cudaGetDeviceProperties(&prop, 0));
        flush_bytes = 4 * (size_t)prop.l2CacheSize;
        CHECK(cudaMalloc(&flush, flush_bytes));
        CHECK(cudaEventCreate(&t0));
        CHECK(cudaEventCreate(&t1));
    }
    // "NVIDIA H200, 132 SMs, L2 60 MiB, driver API 13000"
    void describe() const
    {
        int driver = 0;
        CHECK(cudaDriverGetVersion(&driver));
        printf("%s, %d SMs, L2 %d MiB, driver API %d", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, driver);
    }
    // Median ms of `reps` runs of f, each after the L2 was overwritten.
    template <class F> float median_ms(F f)
    {
        std::vector<float> ms(reps);
        for (int i = 0; i < reps; i++) {
            CHECK(cudaMemset(flush, i, flush_bytes));
            CHECK(cudaEventRecord(t0));
            f();
            CHECK(cudaEventRecord(t1));
            CHECK(cudaEventSynchronize(t1));
            CHECK(cudaGetLastError());
            CHECK(cudaEventElapsedTime(&ms[i], t0, t1));
        }
        std::sort(ms.begin(), ms.end());
        return ms[reps / 2];
    }
};

// A rows x cols matrix of floats in [-1, 1), the same for every run (srand(1)).
static std::vector<float> random_matrix(size_t elems)
{
    std::vector<float> host(elems);
    srand(1);
    for (size_t i = 0; i < elems; i++)
        host[i] = 2.0f * (float)rand() / (float)RAND_MAX - 1.0f;
    return host;
}

// The block sums in out (rows x ceil(cols/slice), on the GPU) that differ from a double-precision
// sum of their slice of host by more than any order of adding n floats can: (n - 1) * 2^-24 *
// sum |x| (Higham). Returns how many.
static size_t wrong_slice_sums(const std::vector<float> &host, const float *out, int rows, int cols, int slice)
{
    int nb = (cols + slice - 1) / slice;
    std::vector<float> got((size_t)rows * nb);
    CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (int r = 0; r < rows; r++)
        for (int k = 0; k < nb; k++) {
            double want = 0, mag = 0;
            for (int c = k * slice; c < std::min(cols, (k + 1) * slice); c++) {
                want += host[(size_t)r * cols + c];
                mag += fabs(host[(size_t)r * cols + c]);
            }
            wrong += fabs(got[(size_t)r * nb + k] - want) > (slice - 1) * ldexp(1.0, -24) * mag;
        }
    return wrong;
}
