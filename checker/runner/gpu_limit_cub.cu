// cub::DeviceReduce::Sum for the GPU runner's yardsticks (gpu_limit.c), callable from C: CUB is
// a C++ template library, compiled here by nvcc into the runner.
#include <climits>

#include <cub/device/device_reduce.cuh>

#include "gpu_limit.h"

extern "C" cudaError_t cub_sum_prepare(size_t n, void **temp, size_t *temp_bytes)
{
    if (n > INT_MAX)
        return cudaErrorInvalidValue;
    cudaError_t e = cub::DeviceReduce::Sum(nullptr, *temp_bytes, (const float *)nullptr, (float *)nullptr, (int)n);
    return e == cudaSuccess ? cudaMalloc(temp, *temp_bytes) : e;
}

extern "C" cudaError_t cub_sum(const float *in, size_t n, float *out, void *temp, size_t temp_bytes)
{
    return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, (int)n);
}
