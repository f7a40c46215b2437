/* The reduce families (family.h): slice sums. `in` is rows x cols; `out` is rows x
 * ceil(cols/SLICE) and out[r][b] is the sum of in[r][SLICE b .. SLICE b + SLICE - 1] (fewer in a
 * row's last slice, when cols is not a multiple of SLICE). One block of 256 threads per slice:
 * blockIdx.x walks the slices of a row, blockIdx.y the rows. `reduce`: slices of 256, one
 * element per thread (lesson 7); `reduce_4096`: slices of 4096, sixteen per thread (lesson 9). */
#include <stdio.h>

#include "family.h"

#define THREADS 256

static void shape(int slice, int rows, int cols, int *orows, int *ocols)
{
    *orows = rows;
    *ocols = (cols + slice - 1) / slice;
}

static const char *size_text(int rows, int cols, char *buf, size_t len)
{
    snprintf(buf, len, "%dx%d", rows, cols);
    return buf;
}

/* Any order of adding n floats errs by at most gamma(n-1) * sum |x_i|, gamma(k) = k u / (1 - k u)
 * with u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, section 4.2); adding
 * zeros for missing elements is exact. The inputs lie in [-1, 1), so sum |x_i| <= n. At n = 256
 * the bound is 0.0039: any dropped or doubled element (0.5 on average) lies far outside it, and
 * no valid order of additions can reach it. At n = 4096 it would be 1.0, wider than an element:
 * there the inputs are drawn on a grid instead (input_bits), on which every order is exact. */
static struct tolerance higham(int slice, int cols)
{
    double n = cols < slice ? cols : slice, k = n > 1 ? n - 1 : 0, u = 0x1p-24;
    return (struct tolerance){k * u / (1 - k * u) * n, 0.0};
}

static double slice_sum(int slice, const float *in, int cols, size_t i)
{
    int nslices = (cols + slice - 1) / slice;
    size_t row = i / (size_t)nslices;
    int first = (int)(i % (size_t)nslices) * slice, last = first + slice < cols ? first + slice : cols;
    double sum = 0;
    for (int c = first; c < last; c++)
        sum += in[row * (size_t)cols + (size_t)c];
    return sum;
}

/* The emulator's cost of one element (a load, the tree's shared loads and stores, and up to
 * nine barriers per thread, each a switch between the block's threads). */
static double work(int rows, int cols)
{
    return (double)rows * cols * 12;
}

/* A sum reads every element once: its work is the bytes read, CUB's its limit. */
static double bytes_read(int rows, int cols)
{
    return (double)rows * cols * sizeof(float);
}

/* Each slice's functions, as the descriptor's pointers take them. */
#define SLICE_FUNCTIONS(S)                                                                        \
    static void output_shape_##S(int rows, int cols, int *orows, int *ocols)                      \
    {                                                                                             \
        shape(S, rows, cols, orows, ocols);                                                       \
    }                                                                                             \
    static double reference_at_##S(const float *in, const float *unused, int rows, int cols, size_t i) \
    {                                                                                             \
        (void)unused, (void)rows;                                                                 \
        return slice_sum(S, in, cols, i);                                                         \
    }                                                                                             \
    static void input_run_##S(int rows, int cols, size_t i, int k, size_t *first, size_t *count,  \
                              size_t *stride)                                                     \
    {                                                                                             \
        (void)rows, (void)k;                                                                      \
        slice_run(S, cols, i, first, count, stride);                                              \
    }
/* out[r * nb + b] sums in[r * cols + S * b] onwards, S of them but in a row's last slice. */
static void slice_run(int slice, int cols, size_t i, size_t *first, size_t *count, size_t *stride)
{
    *stride = 1;
    size_t nb = (size_t)(cols + slice - 1) / (size_t)slice, r = i / nb, b = i % nb;
    *first = r * (size_t)cols + b * (size_t)slice;
    *count = (size_t)cols - b * (size_t)slice < (size_t)slice ? (size_t)cols - b * (size_t)slice : (size_t)slice;
}
SLICE_FUNCTIONS(256)
SLICE_FUNCTIONS(4096)

static struct tolerance tolerance_256(int rows, int cols)
{
    (void)rows;
    return higham(256, cols);
}

static struct tolerance exact(int rows, int cols)
{
    (void)rows, (void)cols;
    return tolerance_exact();
}

#define REDUCE_CONTRACT                                                                           \
    .ninputs = 1, .input_names = {"in", NULL}, .output_name = "out",                              \
    .params = "const float *in, float *out, int rows, int cols", .nscalars = 2,                   \
    .block_x = THREADS, .block_y = 1,                                                             \
    .tile_y = 1, .size_text = size_text, .output_is_sum = 1, .work = work
/* A block sums S elements of a row: the tile and the functions of its slice (SLICE_FUNCTIONS). */
#define SLICES_OF(S)                                                                              \
    .tile_x = S, .output_shape = output_shape_##S, .reference_at = reference_at_##S,              \
    .input_run = input_run_##S

const struct family family_reduce = {
    .name = "reduce",
    REDUCE_CONTRACT,
    SLICES_OF(256),
    .tolerance = tolerance_256,
    .count_rows = 16, .count_cols = 4096, /* 256 blocks */
    .count_draw = {{1, 8, 24}, {256, 8, 24}},
    .timed_sample = 8,
    .grains = {{4}, {4, 32, 256}}, /* rows: any; cols: float4, a warp, the block's slice */
};
WB_FAMILY(family_reduce);

/* Inputs on a grid of 2^-11 in [-1, 1) (12 random bits): a sum of up to 4096 of them is a multiple
 * of 2^-11 of magnitude at most 2^12, at most 2^23 steps of the grid, so every partial sum is exact
 * in a float, in any order, and the judge asks for the exact sum: a dropped or doubled element
 * always shows. */
const struct family family_reduce_4096 = {
    .name = "reduce_4096",
    REDUCE_CONTRACT,
    SLICES_OF(4096),
    .tolerance = exact,
    .input_bits = 12,
    .limit = {"cub::DeviceReduce::Sum", bytes_read, "GB/s", 1e9, "bytes read per second"},
    .count_rows = 4, .count_cols = 16384, /* 16 blocks of 4096 */
    .count_draw = {{1, 2, 6}, {4096, 2, 5}},
    .timed_sample = 8,
    .grains = {{4}, {4, 32, 256, 1024, 4096}}, /* float4, a warp, a float per thread, a float4 per thread, the slice */
};
WB_FAMILY(family_reduce_4096);
