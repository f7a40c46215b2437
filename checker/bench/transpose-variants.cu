// The numbers behind lesson 6: one large transpose done several ways, each timed with the L2
// flushed before every launch, beside cudaMemcpy of the same bytes (the physical limit of a
// kernel that reads and writes every element once).
//
//   nvcc -O3 -arch=native -o build/transpose-variants checker/bench/transpose-variants.cu
//   build/transpose-variants [N] [REPS]        (default 8192 15: N x N floats, median of REPS)
//
// Prints, per variant: median ms, GB/s (read + write), % of the copy, and whether its output is
// the transpose. docs/measurements.md has the H200's table.
#include "bench.cuh"

// The kernels are written here, not included from solutions/: lesson 6 asks students to try
// other launches with this tool, and a handout has no solutions/.
constexpr int TILE = 32;

// ---- 32 x 32 threads, one element each (lessons 4 and 5) --------------------------------------

// [TILE][TILE + 1]: the padded tile of lesson 4.
__global__ void padded_32x32(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    if (r < rows && c < cols)
        tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
    __syncthreads();
    int orow = blockIdx.x * TILE + threadIdx.y, ocol = blockIdx.y * TILE + threadIdx.x;
    if (orow < cols && ocol < rows)
        out[orow * rows + ocol] = tile[threadIdx.x][threadIdx.y];
}

// ---- 32 x 8 threads, a 32 x 32 tile: four elements each ---------------------------------------

// Where [row][col] of the tile lives: PAD adds a word per row, SWZ XORs the column with the row.
template <int PAD, bool SWZ>
__device__ __forceinline__ float &at(float (&tile)[TILE][TILE + PAD], int row, int col)
{
    return tile[row][SWZ ? (col ^ row) : col];
}

// All four loads, one barrier, all four stores: the coarsened kernel (PAD 1: lesson 6's solution;
// SWZ: the same with lesson 5's swizzle; neither: a 32-way conflict on every read of the tile).
template <int PAD, bool SWZ, int BY = 8>
__global__ void coarse_32x8(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + PAD];
    int c = blockIdx.x * TILE + threadIdx.x;
#pragma unroll
    for (int k = 0; k < TILE; k += BY) {
        int r = blockIdx.y * TILE + threadIdx.y + k;
        if (r < rows && c < cols)
            at<PAD, SWZ>(tile, threadIdx.y + k, threadIdx.x) = in[r * cols + c];
    }
    __syncthreads();
    int ocol = blockIdx.y * TILE + threadIdx.x;
#pragma unroll
    for (int k = 0; k < TILE; k += BY) {
        int orow = blockIdx.x * TILE + threadIdx.y + k;
        if (orow < cols && ocol < rows)
            out[orow * rows + ocol] = at<PAD, SWZ>(tile, threadIdx.x, threadIdx.y + k);
    }
}

// Four elements each, one at a time: each load is followed by a barrier, so a thread has one
// load in flight, as in lesson 4 (the barrier waits for the store into the tile, which waits for
// the load). The stores need no barrier between them.
__global__ void rounds_32x8(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int c = blockIdx.x * TILE + threadIdx.x;
    for (int k = 0; k < TILE; k += 8) {
        int r = blockIdx.y * TILE + threadIdx.y + k;
        if (r < rows && c < cols)
            tile[threadIdx.y + k][threadIdx.x] = in[r * cols + c];
        __syncthreads();
    }
    int ocol = blockIdx.y * TILE + threadIdx.x;
    for (int k = 0; k < TILE; k += 8) {
        int orow = blockIdx.x * TILE + threadIdx.y + k;
        if (orow < cols && ocol < rows)
            out[orow * rows + ocol] = tile[threadIdx.x][threadIdx.y + k];
    }
}

// ---- the copy's own kernel: float4, grid-stride ----------------------------------------------

__global__ void copy_float4(const float4 *in, float4 *out, size_t n4)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

// ---- timing -----------------------------------------------------------------------------------

struct variant {
    const char *name;
    void (*kernel)(const float *, float *, int, int);
    dim3 block;
};

int main(int argc, char **argv)
{
    int n = arg_int(argc, argv, 1, 8192), reps = arg_int(argc, argv, 2, 15);
    size_t elems = (size_t)n * n, bytes = elems * sizeof(float);
    bench b(reps);
    b.describe("%dx%d floats, L2 flushed before each launch, median of %d\n", n, n, reps);
    std::vector<float> host(elems);
    for (size_t i = 0; i < elems; i++)
        host[i] = (float)(i % 65521);
    float *in = on_device(host), *out = device_floats(elems);
    auto time = [&](auto f) { return b.median_ms(f); };
    auto gbs = [&](float ms) { return 2.0 * bytes / (ms * 1e-3) / 1e9; };

    float copy_ms = b.copy_ms(out, in, bytes);
    printf("%-28s %8s %9s %7s  %s\n", "variant", "ms", "GB/s", "% copy", "output");
    printf("%-28s %8.3f %9.0f %6.1f%%  -\n", "cudaMemcpy device to device", copy_ms, gbs(copy_ms), 100.0);
    float f4_ms = time([&] { copy_float4<<<b.prop.multiProcessorCount * 8, 256>>>((const float4 *)in, (float4 *)out, elems / 4); });
    printf("%-28s %8.3f %9.0f %6.1f%%  -\n", "copy kernel, float4", f4_ms, gbs(f4_ms), 100.0 * copy_ms / f4_ms);

    const variant variants[] = {
        {"32x32, padded (lesson 4)", padded_32x32, dim3(32, 32)},
        {"32x8 x4, rounds (padded)", rounds_32x8, dim3(32, 8)},
        {"32x8 x4, unpadded", coarse_32x8<0, false>, dim3(32, 8)},
        {"32x8 x4, padded", coarse_32x8<1, false>, dim3(32, 8)},
        {"32x8 x4, swizzled", coarse_32x8<0, true>, dim3(32, 8)},
        {"32x16 x2, padded", coarse_32x8<1, false, 16>, dim3(32, 16)},
        {"32x4 x8, padded", coarse_32x8<1, false, 4>, dim3(32, 4)},
    };
    dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    std::vector<float> got(elems);
    for (const variant &v : variants) {
        CHECK(cudaMemset(out, 0, bytes));
        float ms = time([&] { v.kernel<<<grid, v.block>>>(in, out, n, n); });
        CHECK(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost));
        size_t wrong = 0;
        for (size_t r = 0; r < (size_t)n; r++)
            for (size_t c = 0; c < (size_t)n; c++)
                wrong += got[c * n + r] != host[r * n + c];
        printf("%-28s %8.3f %9.0f %6.1f%%  %s\n", v.name, ms, gbs(ms), 100.0 * copy_ms / ms,
               wrong ? "WRONG" : "transposed");
    }
    return 0;
}
