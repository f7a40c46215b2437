// What the measuring tools in checker/tools/ share (transpose-variants.cu, reduce-variants.cu):
// error checks, the GPU's name line, and a median of launches each timed after an L2 flush.
#pragma once
#include <algorithm>
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
