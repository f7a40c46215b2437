/*
 * Lesson 7's baseline: block sums with the strided-index tree, whose shared
 * memory accesses are 2- to 8-way bank conflicts (lessons/07_reduction/README.md).
 * The contract is exercises/07_reduction/block_sum.cu's; the stub is this
 * kernel under the lesson's name.
 */

#define THREADS 256                // blockDim.x: one element per thread

__global__ void block_sum_strided(const float *in, float *out, int rows, int cols)
{
    // [THREADS] partial sums: s[t] starts as element t of the block's slice.
    __shared__ float s[THREADS];

    int t = threadIdx.x;                       // 0..255; warp t / 32, lane t % 32
    int c = blockIdx.x * THREADS + t;          // this thread's column of `in`
    int nb = (cols + THREADS - 1) / THREADS;   // slices per row: the columns of `out`
    const float *row = in + (size_t)blockIdx.y * cols;
    s[t] = c < cols ? row[c] : 0.0f;           // past the row's end: add nothing
    __syncthreads();

    // The tree: at step d (1, 2, 4, ..., 128) the sums d words apart are added
    // in pairs, by the first threads of the block (no divergence until fewer
    // than 32 are left). Thread t works on word i = 2*d*t.
    for (int d = 1; d < THREADS; d *= 2) {
        int i = 2 * d * t;
        if (i < THREADS)
            s[i] += s[i + d];
        __syncthreads();
    }
    if (t == 0)
        out[(size_t)blockIdx.y * nb + blockIdx.x] = s[0];
}
