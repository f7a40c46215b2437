/*
 * Lesson 9's baseline: slice sums done as lesson 7's fastest block sum, once
 * per 256 elements: each of the 16 steps loads one float per thread, adds the
 * block's 256 with shuffles and 8 warp sums in shared memory, and waits at two
 * barriers before the next step's load (lessons/09_fast_reduction/README.md).
 * The contract is exercises/09_fast_reduction/slice_sum.cu's; the stub is
 * this kernel under the lesson's name.
 */

#define THREADS 256                // blockDim.x
#define SLICE 4096                 // elements per block: 16 steps of 256
#define FULL_WARP 0xffffffffu      // all 32 lanes take part in a shuffle

__global__ void slice_sum_per_step(const float *in, float *out, int rows, int cols)
{
    // [THREADS / 32] one sum per warp, rewritten at every step.
    __shared__ float warp_sums[THREADS / 32];

    int t = threadIdx.x;
    int first = blockIdx.x * SLICE;            // the slice's first column
    int nb = (cols + SLICE - 1) / SLICE;       // slices per row: the columns of `out`
    const float *row = in + (size_t)blockIdx.y * cols;
    float total = 0.0f;                        // the slice's sum, in thread 0

    for (int step = 0; step < SLICE; step += THREADS) {
        int c = first + step + t;
        float v = c < cols ? row[c] : 0.0f;    // one float per thread per step
        for (int d = 16; d > 0; d /= 2)
            v += __shfl_down_sync(FULL_WARP, v, d);
        if (t % 32 == 0)
            warp_sums[t / 32] = v;
        __syncthreads();                       // every warp's sum is written
        if (t < 32) {
            v = t < THREADS / 32 ? warp_sums[t] : 0.0f;
            for (int d = 4; d > 0; d /= 2)
                v += __shfl_down_sync(FULL_WARP, v, d);
            total += v;
        }
        __syncthreads();                       // read before the next step writes
    }
    if (t == 0)
        out[(size_t)blockIdx.y * nb + blockIdx.x] = total;
}
