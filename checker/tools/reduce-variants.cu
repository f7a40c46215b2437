// The numbers behind lesson 7: block sums of a large matrix done the classic ways, each timed
// with the L2 flushed before every launch, beside cudaMemcpy of the same bytes.
//
//   nvcc -O3 -arch=native -o build/reduce-variants checker/tools/reduce-variants.cu
//   build/reduce-variants [ROWS] [COLS] [REPS]      (default 8192 8192 15)
//
// Every variant has 256 threads per block and writes out[row][b] = the sum of a slice of
// SLICE consecutive elements of that row (256: one element per thread; 512: two, added as they
// are loaded). Prints median ms, GB/s read, % of the copy's GB/s, and whether every block sum is
// within the error bound of a double-precision sum.
#include <cmath>

#include "bench.cuh"

constexpr int THREADS = 256;

// Loads this thread's part of its block's slice: one element, or two added.
template <int SLICE>
__device__ __forceinline__ float load(const float *in, int rows, int cols)
{
    int row = blockIdx.y, c = blockIdx.x * SLICE + threadIdx.x;
    const float *r = in + (size_t)row * cols;
    float v = c < cols ? r[c] : 0.0f;
    if (SLICE == 2 * THREADS && c + THREADS < cols)
        v += r[c + THREADS];
    return v;
}

__device__ __forceinline__ void store(float *out, int cols, int slice, float v)
{
    int nb = (cols + slice - 1) / slice;
    out[(size_t)blockIdx.y * nb + blockIdx.x] = v;
}

// 1. Interleaved addressing, divergent: at step s, threads whose index is a multiple of 2s add.
template <int SLICE>
__global__ void interleaved(const float *in, float *out, int rows, int cols)
{
    __shared__ float s[THREADS];
    int t = threadIdx.x;
    s[t] = load<SLICE>(in, rows, cols);
    __syncthreads();
    for (int d = 1; d < THREADS; d *= 2) {
        if (t % (2 * d) == 0)
            s[t] += s[t + d];
        __syncthreads();
    }
    if (t == 0)
        store(out, cols, SLICE, s[0]);
}

// 2. Interleaved addressing, strided index: the first threads do the work (no divergence), at
//    word 2*d*t: a stride of 2d words, a 2d-way bank conflict (up to 32) at every step.
template <int SLICE>
__global__ void strided(const float *in, float *out, int rows, int cols)
{
    __shared__ float s[THREADS];
    int t = threadIdx.x;
    s[t] = load<SLICE>(in, rows, cols);
    __syncthreads();
    for (int d = 1; d < THREADS; d *= 2) {
        int i = 2 * d * t;
        if (i < THREADS)
            s[i] += s[i + d];
        __syncthreads();
    }
    if (t == 0)
        store(out, cols, SLICE, s[0]);
}

// 3. Sequential addressing: thread t adds word t + d to word t, consecutive words, no conflict.
template <int SLICE>
__global__ void sequential(const float *in, float *out, int rows, int cols)
{
    __shared__ float s[THREADS];
    int t = threadIdx.x;
    s[t] = load<SLICE>(in, rows, cols);
    __syncthreads();
    for (int d = THREADS / 2; d > 0; d /= 2) {
        if (t < d)
            s[t] += s[t + d];
        __syncthreads();
    }
    if (t == 0)
        store(out, cols, SLICE, s[0]);
}

// 4. Sequential down to 64 values, then the first warp adds them with shuffles: no barrier and
//    no shared memory for the last five steps.
template <int SLICE>
__global__ void sequential_shuffle(const float *in, float *out, int rows, int cols)
{
    __shared__ float s[THREADS];
    int t = threadIdx.x;
    s[t] = load<SLICE>(in, rows, cols);
    __syncthreads();
    for (int d = THREADS / 2; d > 32; d /= 2) {
        if (t < d)
            s[t] += s[t + d];
        __syncthreads();
    }
    if (t < 32) {
        float v = s[t] + s[t + 32];
        for (int d = 16; d > 0; d /= 2)
            v += __shfl_down_sync(0xffffffffu, v, d);
        if (t == 0)
            store(out, cols, SLICE, v);
    }
}

// 5. Shuffles first: each warp sums its 32 values with shuffles, 8 partial sums meet in shared
//    memory, the first warp adds them. One barrier.
template <int SLICE>
__global__ void shuffle_first(const float *in, float *out, int rows, int cols)
{
    __shared__ float s[THREADS / 32];
    int t = threadIdx.x;
    float v = load<SLICE>(in, rows, cols);
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_down_sync(0xffffffffu, v, d);
    if (t % 32 == 0)
        s[t / 32] = v;
    __syncthreads();
    if (t < 32) {
        v = t < THREADS / 32 ? s[t] : 0.0f;
        for (int d = 4; d > 0; d /= 2)
            v += __shfl_down_sync(0xffffffffu, v, d);
        if (t == 0)
            store(out, cols, SLICE, v);
    }
}

struct variant {
    const char *name;
    void (*kernel)(const float *, float *, int, int);
    int slice;
};

int main(int argc, char **argv)
{
    int rows = argc > 1 ? atoi(argv[1]) : 8192, cols = argc > 2 ? atoi(argv[2]) : 8192;
    int reps = argc > 3 ? atoi(argv[3]) : 15;
    size_t elems = (size_t)rows * cols, bytes = elems * sizeof(float);
    bench b(reps);
    b.describe();
    printf("; %dx%d floats, 256 threads per block, L2 flushed before each launch, median of %d\n", rows, cols, reps);
    std::vector<float> host = random_matrix(elems);
    float *in, *out, *copy;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&copy, bytes));
    CHECK(cudaMalloc(&out, bytes / THREADS + 4096));
    CHECK(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));

    float copy_ms = b.median_ms([&] { CHECK(cudaMemcpy(copy, in, bytes, cudaMemcpyDeviceToDevice)); });
    double copy_gbs = 2.0 * bytes / (copy_ms * 1e-3) / 1e9;
    printf("%-34s %8s %9s %7s  %s\n", "variant", "ms", "GB/s", "% copy", "sums");
    printf("%-34s %8.3f %9.0f %6.1f%%  -\n", "cudaMemcpy (read + write)", copy_ms, copy_gbs, 100.0);

    const variant variants[] = {
        {"1 interleaved, divergent", interleaved<THREADS>, THREADS},
        {"2 strided index (conflicts)", strided<THREADS>, THREADS},
        {"3 sequential addressing", sequential<THREADS>, THREADS},
        {"4 sequential + shuffles", sequential_shuffle<THREADS>, THREADS},
        {"5 shuffles first", shuffle_first<THREADS>, THREADS},
        {"1 interleaved, 2 per thread", interleaved<2 * THREADS>, 2 * THREADS},
        {"2 strided index, 2 per thread", strided<2 * THREADS>, 2 * THREADS},
        {"3 sequential, 2 per thread", sequential<2 * THREADS>, 2 * THREADS},
        {"4 seq + shuffles, 2 per thread", sequential_shuffle<2 * THREADS>, 2 * THREADS},
        {"5 shuffles first, 2 per thread", shuffle_first<2 * THREADS>, 2 * THREADS},
    };
    for (const variant &v : variants) {
        int nb = (cols + v.slice - 1) / v.slice;
        dim3 grid(nb, rows);
        float ms = b.median_ms([&] { v.kernel<<<grid, THREADS>>>(in, out, rows, cols); });
        size_t wrong = wrong_slice_sums(host, out, rows, cols, v.slice);
        double gbs = bytes / (ms * 1e-3) / 1e9;
        printf("%-34s %8.3f %9.0f %6.1f%%  %s\n", v.name, ms, gbs, 100.0 * gbs / copy_gbs, wrong ? "WRONG" : "right");
    }
    return 0;
}
