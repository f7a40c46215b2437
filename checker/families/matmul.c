/* The matmul family (family.h): C = A * B for N x N floats, one thread per element of C in
 * 32 x 32 blocks; lessons 1 and 2. */
#include <stdio.h>
#include <stdlib.h>

#include "family.h"
#include "reference.h"

static void output_shape(int rows, int cols, int *orows, int *ocols)
{
    *orows = rows;
    *ocols = cols;
}

static const char *size_text(int rows, int cols, char *buf, size_t len)
{
    (void)cols;
    snprintf(buf, len, "N=%d", rows);
    return buf;
}

/* A K-term dot product's rounding grows with K. */
static struct tolerance tolerance(int rows, int cols)
{
    (void)cols;
    return tolerance_dot(rows);
}

static double reference_at(const float *A, const float *B, int rows, int cols, size_t i)
{
    return ref_matmul_at(A, B, rows, (int)(i / (size_t)cols), (int)(i % (size_t)cols));
}

/* B*A: the kernel with A and B swapped, at sizes where the CPU computes it quickly. */
static int swapped(const float *A, const float *B, int rows, int cols, float *out)
{
    (void)cols;
    if ((size_t)rows * rows > 300 * 300)
        return -1;
    ref_matmul_swapped(A, B, rows, out);
    return 0;
}

/* A multiply-add per term: 2 N^3 floating-point operations, cuBLAS's SGEMM the yardstick. */
static double flops(int rows, int cols)
{
    return 2.0 * rows * cols * rows;
}

static double work(int rows, int cols)
{
    return (double)rows * cols * rows;
}

const struct family family_matmul = {
    .name = "matmul",
    .ninputs = 2,
    .input_names = {"A", "B"},
    .output_name = "C",
    .params = "const float *A, const float *B, float *C, int N",
    .mangled_params = "PKfS0_Pfi",
    .mangled_params_nested = "PKfS1_Pfi",
    .nscalars = 1,
    .block_x = 32, .block_y = 32, .tile_x = 32, .tile_y = 32,
    .output_shape = output_shape,
    .size_text = size_text,
    .tolerance = tolerance,
    .reference_at = reference_at,
    .mistake = swapped,
    .output_is_sum = 1,
    .output_tile = 32,
    .work = work,
    .limit = {"cublasSgemm", flops, "TFLOP/s", 1e12, "floating-point operations per second"},
    .count_rows = 128, .count_cols = 128, /* 4 x 4 blocks of 8 tiles each, counted in about a second */
};
WB_FAMILY(family_matmul);
