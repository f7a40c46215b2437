// What the block-sum tools share (reduce-variants.cu, reduce-bandwidth.cu): 256 threads a block,
// each block summing a slice of one row into out[row][b], the warps' shuffles, the matrix from
// the command line, and the timing and checking of a whole launch.
#pragma once
#include "bench.cuh"

constexpr int THREADS = 256;
constexpr unsigned FULL_WARP = 0xffffffffu;

// The sum of v over the first `lanes` lanes of a warp (a power of two), in lane 0.
__device__ __forceinline__ float warp_sum(float v, int lanes)
{
    for (int d = lanes / 2; d > 0; d /= 2)
        v += __shfl_down_sync(FULL_WARP, v, d);
    return v;
}

// The block's sum of every thread's v, in thread 0: shuffles within each warp, 8 warp sums
// through shared memory, the first warp adds them. One barrier.
__device__ __forceinline__ float block_total(float v)
{
    __shared__ float warp_sums[THREADS / 32];
    v = warp_sum(v, 32);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    v = threadIdx.x < THREADS / 32 ? warp_sums[threadIdx.x] : 0.0f;
    return threadIdx.x < 32 ? warp_sum(v, THREADS / 32) : v;
}

// The block's sum into out[blockIdx.y][blockIdx.x], out having ceil(cols / slice) columns.
__device__ __forceinline__ void store(float *out, int cols, int slice, float v)
{
    int nb = (cols + slice - 1) / slice;
    out[(size_t)blockIdx.y * nb + blockIdx.x] = v;
}

// The block sums in out (rows x ceil(cols/slice), on the GPU) that differ from a double-precision
// sum of their slice of host by more than any order of adding n floats can: (n - 1) * 2^-24 *
// sum |x| (Higham). Returns how many.
inline size_t wrong_slice_sums(const std::vector<float> &host, const float *out, int rows, int cols, int slice)
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

// What both tools time: a rows x cols matrix from the command line (ROWS COLS REPS, default
// 8192 8192 15), on the host and on the GPU, with room for a copy of it and for the sums.
struct block_sums_run {
    float ms;
    size_t wrong;
};
struct sum_bench : bench {
    int rows, cols;
    size_t elems, bytes;
    std::vector<float> host;
    float *in, *copy, *out;

    sum_bench(int argc, char **argv)
        : bench(arg_int(argc, argv, 3, 15)), rows(arg_int(argc, argv, 1, 8192)), cols(arg_int(argc, argv, 2, 8192)),
          elems((size_t)rows * cols), bytes(elems * sizeof(float)), host(random_matrix(elems)), in(on_device(host)),
          copy(device_floats(elems)), out(device_floats(elems / THREADS + 1024))
    {
        describe("%dx%d floats, 256 threads per block, L2 flushed before each launch, median of %d\n", rows, cols, reps);
    }
    // A variant timed over the whole matrix, each block summing a slice of `slice`: its median ms,
    // and how many of its sums are wrong.
    template <class Kernel> block_sums_run time(Kernel kernel, int slice)
    {
        dim3 grid((cols + slice - 1) / slice, rows);
        float ms = median_ms([&] { kernel<<<grid, THREADS>>>(in, out, rows, cols); });
        return {ms, wrong_slice_sums(host, out, rows, cols, slice)};
    }
    // GB/s read at ms
    double gbs(float ms) const { return bytes / (ms * 1e-3) / 1e9; }
};
