/* The reduce family (family.h): block sums. `in` is rows x cols; `out` is rows x ceil(cols/256)
 * and out[r][b] is the sum of in[r][256 b .. 256 b + 255] (fewer in a row's last slice, when
 * cols is not a multiple of 256). One block of 256 threads per slice: blockIdx.x walks the
 * slices of a row, blockIdx.y the rows. Lesson 7. */
#include <stdio.h>

#include "family.h"

#define SLICE 256

static void output_shape(int rows, int cols, int *orows, int *ocols)
{
    *orows = rows;
    *ocols = (cols + SLICE - 1) / SLICE;
}

static const char *size_text(int rows, int cols, char *buf, size_t len)
{
    snprintf(buf, len, "%dx%d", rows, cols);
    return buf;
}

/* Any order of adding n floats errs by at most gamma(n-1) * sum |x_i| against the exact sum,
 * gamma(k) = k u / (1 - k u) with u = 2^-24 (Higham, Accuracy and Stability of Numerical
 * Algorithms, section 4.2); adding zeros for missing elements is exact. The inputs lie in
 * [-1, 1), so sum |x_i| <= n. At n = 256 the bound is 0.0039: any dropped or doubled element
 * (0.5 on average) lies far outside it, and no valid order of additions can reach it. */
static struct tolerance tolerance(int rows, int cols)
{
    (void)rows;
    double n = cols < SLICE ? cols : SLICE, k = n > 1 ? n - 1 : 0, u = 0x1p-24;
    return (struct tolerance){k * u / (1 - k * u) * n, 0.0};
}

static double reference_at(const float *in, const float *unused, int rows, int cols, size_t i)
{
    (void)unused, (void)rows;
    int nslices = (cols + SLICE - 1) / SLICE;
    size_t row = i / (size_t)nslices;
    int first = (int)(i % (size_t)nslices) * SLICE, last = first + SLICE < cols ? first + SLICE : cols;
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

const struct family family_reduce = {
    .name = "reduce",
    .ninputs = 1,
    .input_names = {"in", NULL},
    .output_name = "out",
    .params = "const float *in, float *out, int rows, int cols",
    .mangled_params = "PKfPfii",
    .mangled_params_nested = "PKfPfii",
    .nscalars = 2,
    .block_x = SLICE, .block_y = 1, .tile_x = SLICE, .tile_y = 1,
    .output_shape = output_shape,
    .size_text = size_text,
    .tolerance = tolerance,
    .reference_at = reference_at,
    .output_is_sum = 1,
    .work = work,
    .count_rows = 16, .count_cols = 4096, /* 256 blocks */
    .count_draw = {{1, 8, 24}, {SLICE, 8, 24}},
    .grains = {{4}, {4, 32, SLICE}}, /* rows: any; cols: float4, a warp, the block's slice */
};
WB_FAMILY(family_reduce);
