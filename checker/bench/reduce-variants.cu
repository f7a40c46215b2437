// The numbers behind lesson 7: block sums of a large matrix done the classic ways, each timed
// with the L2 flushed before every launch, beside cudaMemcpy of the same bytes.
//
//   nvcc -O3 -arch=native -o build/reduce-variants checker/bench/reduce-variants.cu
//   build/reduce-variants [ROWS] [COLS] [REPS]      (default 8192 8192 15)
//
// Every variant has 256 threads per block and writes out[row][b] = the sum of a slice of
// SLICE consecutive elements of that row (256: one element per thread; 512: two, added as they
// are loaded). Prints median ms, GB/s read, % of the copy's GB/s, and whether every block sum is
// within the error bound of a double-precision sum.
#include <cmath>

#include "block_sums.cuh"

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

// Every variant: the loads, the block's sum by one of the trees below (each a struct whose sum(v)
// every thread calls with its value; the block's sum in thread 0), thread 0's store.
template <int SLICE, class Tree>
__global__ void block_sums(const float *in, float *out, int rows, int cols)
{
    float v = Tree::sum(load<SLICE>(in, rows, cols));
    if (threadIdx.x == 0)
        store(out, cols, SLICE, v);
}

// Versions 1 to 4 start from every thread's value in shared memory.
__device__ __forceinline__ float *in_shared(float v)
{
    __shared__ float s[THREADS];
    s[threadIdx.x] = v;
    __syncthreads();
    return s;
}

// 1. Interleaved addressing, divergent: at step d, threads whose index is a multiple of 2d add.
struct interleaved {
    static __device__ float sum(float v)
    {
        float *s = in_shared(v);
        int t = threadIdx.x;
        for (int d = 1; d < THREADS; d *= 2) {
            if (t % (2 * d) == 0)
                s[t] += s[t + d];
            __syncthreads();
        }
        return s[0];
    }
};

// 2. Interleaved addressing, strided index: the first threads do the work (no divergence), at
//    word 2*d*t: a stride of 2d words, a 2d-way bank conflict (up to 32) at every step. Lesson 7's
//    baseline (its stub, exercises/07_reduction/block_sum.cu).
struct strided {
    static __device__ float sum(float v)
    {
        float *s = in_shared(v);
        for (int d = 1; d < THREADS; d *= 2) {
            int i = 2 * d * threadIdx.x;
            if (i < THREADS)
                s[i] += s[i + d];
            __syncthreads();
        }
        return s[0];
    }
};

// Sequential addressing down to `left` values: thread t adds word t + d to word t, consecutive
// words, no conflict.
__device__ __forceinline__ float *sequential_steps(float v, int left)
{
    float *s = in_shared(v);
    int t = threadIdx.x;
    for (int d = THREADS / 2; d >= left; d /= 2) {
        if (t < d)
            s[t] += s[t + d];
        __syncthreads();
    }
    return s;
}

// 3. Sequential addressing all the way.
struct sequential {
    static __device__ float sum(float v) { return sequential_steps(v, 1)[0]; }
};

// 4. Sequential down to 64 values, then the first warp adds them with shuffles: no barrier and
//    no shared memory for the last five steps. Lesson 7's solution.
struct sequential_shuffle {
    static __device__ float sum(float v)
    {
        float *s = sequential_steps(v, 64);
        return threadIdx.x < 32 ? warp_sum(s[threadIdx.x] + s[threadIdx.x + 32], 32) : 0.0f;
    }
};

// 5. Shuffles first: each warp sums its 32 values with shuffles, 8 partial sums meet in shared
//    memory, the first warp adds them. One barrier.
struct shuffle_first {
    static __device__ float sum(float v) { return block_total(v); }
};

struct variant {
    const char *name;
    void (*kernel)(const float *, float *, int, int);
    int slice;
};

int main(int argc, char **argv)
{
    sum_bench b(argc, argv);
    float copy_ms = b.copy_ms(b.copy, b.in, b.bytes);
    double copy_gbs = 2 * b.gbs(copy_ms);
    printf("%-34s %8s %9s %7s  %s\n", "variant", "ms", "GB/s", "% copy", "sums");
    printf("%-34s %8.3f %9.0f %6.1f%%  -\n", "cudaMemcpy (read + write)", copy_ms, copy_gbs, 100.0);

    const variant variants[] = {
        {"1 interleaved, divergent", block_sums<THREADS, interleaved>, THREADS},
        {"2 strided index (conflicts)", block_sums<THREADS, strided>, THREADS},
        {"3 sequential addressing", block_sums<THREADS, sequential>, THREADS},
        {"4 sequential + shuffles", block_sums<THREADS, sequential_shuffle>, THREADS},
        {"5 shuffles first", block_sums<THREADS, shuffle_first>, THREADS},
        {"1 interleaved, 2 per thread", block_sums<2 * THREADS, interleaved>, 2 * THREADS},
        {"2 strided index, 2 per thread", block_sums<2 * THREADS, strided>, 2 * THREADS},
        {"3 sequential, 2 per thread", block_sums<2 * THREADS, sequential>, 2 * THREADS},
        {"4 seq + shuffles, 2 per thread", block_sums<2 * THREADS, sequential_shuffle>, 2 * THREADS},
        {"5 shuffles first, 2 per thread", block_sums<2 * THREADS, shuffle_first>, 2 * THREADS},
    };
    for (const variant &v : variants) {
        block_sums_run r = b.time(v.kernel, v.slice);
        printf("%-34s %8.3f %9.0f %6.1f%%  %s\n", v.name, r.ms, b.gbs(r.ms), 100.0 * b.gbs(r.ms) / copy_gbs,
               r.wrong ? "WRONG" : "right");
    }
    return 0;
}
