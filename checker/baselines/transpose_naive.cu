/*
 * Baseline for lesson 3                                      transpose_naive.cu
 *
 * Why this is the baseline: it is the simplest correct transpose, one thread
 * per element and no shared memory. Its reads are fine but its writes are
 * not, and lesson 3's shared-memory tile exists to fix exactly that. Lesson 3
 * passes when its kernel beats this one by the factor
 * lessons/03_bank_conflicts/thresholds sets.
 *
 * A warp is 32 threads with consecutive threadIdx.x and one threadIdx.y:
 *   in[r*cols + c]    32 consecutive floats of one row of `in`: coalesced;
 *   out[c*rows + r]   32 addresses `rows` floats apart, down a column of
 *                     `out`: every thread needs its own memory segment, so
 *                     each store wastes most of the bytes the memory moves.
 *
 * Same signature and launch as lesson 3: block = dim3(32, 32),
 * grid = dim3(ceil(cols/32), ceil(rows/32)).
 */

__global__ void transpose_naive(const float *in, float *out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;   // column of `in`
    int r = blockIdx.y * blockDim.y + threadIdx.y;   // row of `in`

    if (r < rows && c < cols)
        out[c * rows + r] = in[r * cols + c];        // coalesced read, strided write
}
