/* The transpose families (family.h): out (cols x rows) = the transpose of in (rows x cols), one
 * block per 32 x 32 tile: `transpose` with a thread per element (32 x 32 threads; lessons 3 to
 * 5), `transpose_32x8` with 32 x 8 threads, four elements each (lesson 6). */
#include <stdio.h>

#include "family.h"
#include "reference.h"

static void output_shape(int rows, int cols, int *orows, int *ocols)
{
    *orows = cols;
    *ocols = rows;
}

static const char *size_text(int rows, int cols, char *buf, size_t len)
{
    snprintf(buf, len, "%dx%d", rows, cols);
    return buf;
}

/* A transpose only moves values: exact. */
static struct tolerance tolerance(int rows, int cols)
{
    (void)rows, (void)cols;
    return tolerance_exact();
}

static double reference_at(const float *in, const float *unused, int rows, int cols, size_t i)
{
    (void)unused;
    return ref_transpose_at(in, rows, cols, i);
}

/* out[c * rows + r] is in[r * cols + c]. */
static void input_run(int rows, int cols, size_t i, int k, size_t *first, size_t *count, size_t *stride)
{
    (void)k;
    *first = i % (size_t)rows * (size_t)cols + i / (size_t)rows;
    *count = *stride = 1;
}

/* The emulator's cost of one element (a load, a store, a barrier for its thread) is about that
 * of four multiply-adds: lesson 3's 4000x3000 took 3.5 s of CPU on the development machine. */
static double work(int rows, int cols)
{
    return (double)rows * cols * 4;
}

/* A transpose reads and writes every element once: a copy's work, and cudaMemcpy its limit. */
static double bytes_moved(int rows, int cols)
{
    return 2.0 * rows * cols * sizeof(float);
}

/* Both launches: the kernel's parameters, how its output is judged, and where the emulator counts
 * it; the block is 32 x threads_y threads, one 32 x 32 tile. */
#define TRANSPOSE_FAMILY(family_name, threads_y)                                                    \
    {                                                                                               \
        .name = family_name, .ninputs = 1, .input_names = {"in", NULL}, .output_name = "out",       \
        .params = "const float *in, float *out, int rows, int cols", .nscalars = 2,                 \
        .block_x = 32, .block_y = threads_y, .tile_x = 32, .tile_y = 32,                            \
        .output_shape = output_shape, .size_text = size_text, .tolerance = tolerance,               \
        .reference_at = reference_at, .input_run = input_run, .output_is_input_moved = 1, .output_tile = 32, .work = work,  \
        .limit = {"cudaMemcpy", bytes_moved, "GB/s", 1e9, "bytes read and written per second"},     \
        .count_rows = 256, .count_cols = 256, /* 8 x 8 tiles */                                     \
        .count_draw = {{32, 4, 12}, {32, 4, 12}}, .timed_sample = 8,                                \
        .grains = {{4, 8, 16, 32, 64}, {4, 8, 16, 32, 64}}, /* float4 to twice the launch's tile */ \
    }

const struct family family_transpose = TRANSPOSE_FAMILY("transpose", 32);
WB_FAMILY(family_transpose);

/* The same problem with a quarter of the threads: the launch asks for coarsening. */
const struct family family_transpose_32x8 = TRANSPOSE_FAMILY("transpose_32x8", 8);
WB_FAMILY(family_transpose_32x8);
