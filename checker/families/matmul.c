/* The matmul families (family.h): C = A * B for N x N matrices. `matmul`: floats, one thread
 * per element of C in 32 x 32 blocks (lessons 1 and 2); `matmul_128`: floats, 256 threads per
 * 128 x 128 block of C, 64 elements each (lesson 8, the register-blocked SGEMM); `matmul_f16`:
 * A and B in half precision, C in float, the same launch (lesson 10, on the tensor cores);
 * `matmul_f16_tma`: the same product, A and B given as tensor maps, 288 threads per 128 x 256 block
 * of C (lesson 11, Hopper's copies and wgmma). */
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

static void reference_each(const float *A, const float *B, int rows, int cols, const uint64_t *order, size_t n,
                           double *want)
{
    (void)cols;
    ref_matmul_each(A, B, rows, order, n, want);
}

/* C[r][c] reads row r of A and column c of B. */
static void input_run(int rows, int cols, size_t i, int k, size_t *first, size_t *count, size_t *stride)
{
    size_t n = (size_t)rows, r = i / (size_t)cols, c = i % (size_t)cols;
    *first = k == 0 ? r * n : c;
    *count = n;
    *stride = k == 0 ? 1 : n;
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

/* The lesson-10 swizzle on one side only: the tiles' 16-byte chunks (8 halves) stored at chunk
 * c ^ (row % 8) of their row and read where they were (or the other way round), so the product
 * takes A's element (r, k) from chunk (k / 8) ^ (r % 8) of row r, and B's (k, n) from chunk
 * (n / 8) ^ (k % 8) of row k; a chunk moved past N reads the tile's zero fill. The XOR keeps a
 * chunk in its group of 8, so any tile of a multiple of 64 halves a row gives the same. */
static float chunk_moved(const float *M, int N, int row, int col)
{
    int from = ((col / 8) ^ (row % 8)) * 8 + col % 8;
    return from < N ? M[(size_t)row * N + from] : 0.0f;
}

static int one_side_swizzled(const float *A, const float *B, int N, int a_moved, int b_moved, float *out)
{
    if ((size_t)N * N > 300 * 300)
        return -1;
    for (int r = 0; r < N; r++)
        for (int n = 0; n < N; n++) {
            double acc = 0.0;
            for (int k = 0; k < N; k++)
                acc += (double)(a_moved ? chunk_moved(A, N, r, k) : A[(size_t)r * N + k]) *
                       (double)(b_moved ? chunk_moved(B, N, k, n) : B[(size_t)k * N + n]);
            out[(size_t)r * N + n] = (float)acc;
        }
    return 0;
}
static int a_swizzled_once(const float *A, const float *B, int rows, int cols, float *out)
{
    (void)cols;
    return one_side_swizzled(A, B, rows, 1, 0, out);
}
static int b_swizzled_once(const float *A, const float *B, int rows, int cols, float *out)
{
    (void)cols;
    return one_side_swizzled(A, B, rows, 0, 1, out);
}
static int both_swizzled_once(const float *A, const float *B, int rows, int cols, float *out)
{
    (void)cols;
    return one_side_swizzled(A, B, rows, 1, 1, out);
}
#define SWIZZLED_ONCE(which)                                                                                    \
    "the output is the product with " which " 16-byte chunks taken from the places the swizzle gives them "     \
    "(chunk c of row r at c ^ (r % 8)) instead of their own: the copy into shared memory and the ldmatrix that " \
    "reads it disagree on the swizzle (one of them swizzles, the other does not). Swizzle both, or neither."
#define SWAPPED {swapped, "the output is B*A instead of A*B: A and B are swapped."}

/* A multiply-add per term: 2 N^3 floating-point operations, cuBLAS's SGEMM the yardstick. */
static double flops(int rows, int cols)
{
    return 2.0 * rows * cols * rows;
}

static double work(int rows, int cols)
{
    return (double)rows * cols * rows;
}

/* What the launches share: the kernel's parameters, and how its output is judged. */
#define MATMUL_CONTRACT                                                                              \
    .ninputs = 2, .input_names = {"A", "B"}, .output_name = "C",                                    \
    .params = "const float *A, const float *B, float *C, int N", .nscalars = 1
#define MATMUL_JUDGING                                                                               \
    .output_shape = output_shape, .size_text = size_text, .tolerance = tolerance,                    \
    .reference_at = reference_at, .reference_each = reference_each, .input_run = input_run,          \
    .output_is_sum = 1, .work = work,                                                                \
    .timed_output_blocks = 1 /* a block's K loop at N = 4096: about a second in the emulator */
#define FLOPS_PER_SECOND(routine) {routine, flops, "TFLOP/s", 1e12, "floating-point operations per second"}
/* The float matmuls: a block of threads_x x threads_y threads per tile x tile block of C, cuBLAS's
 * SGEMM the yardstick. */
#define FLOAT_MATMUL(family_name, threads_x, threads_y, tile)                                           \
    .name = family_name, MATMUL_CONTRACT, .block_x = threads_x, .block_y = threads_y, .tile_x = tile,   \
    .tile_y = tile, .output_tile = tile, MATMUL_JUDGING, .mistakes = {SWAPPED},                     \
    .limit = FLOPS_PER_SECOND("cublasSgemm")

const struct family family_matmul = {
    FLOAT_MATMUL("matmul", 32, 32, 32),
    .count_rows = 128, .count_cols = 128, /* 4 x 4 blocks of 8 tiles each, counted in about a second */
    .count_draw = {{32, 3, 5}}, /* 96 or 160 */
    .grains = {{4, 8, 16, 32, 64}}, /* float4 to twice the launch's tile; square: the cols' are the rows' */
};
WB_FAMILY(family_matmul);

/* The same contract for a register-blocked kernel: 256 threads per 128 x 128 block of C. */
const struct family family_matmul_128 = {
    FLOAT_MATMUL("matmul_128", 256, 1, 128),
    .count_rows = 256, .count_cols = 256, /* 2 x 2 blocks, 32 K-steps of 8 */
    /* Not drawn: 128, the one other multiple of the 128-row block the emulator can afford (at a
     * partial block the sectors' rule, calibrated on whole ones, does not hold; 384 takes ~8 s). */
    .count_draw = {{128, 1, 1}},
    .grains = {{4, 8, 16, 32, 64, 128}}, /* float4, the K-step, a thread's and a warp's tiles, the block's */
};
WB_FAMILY(family_matmul_128);

/* Half-precision A and B, float C, summed in float (the tensor cores' mma with a float
 * accumulator), launched as matmul_128. The inputs are drawn on a grid of 1/32 in [-1, 1) (6
 * bits): every one is a half, every product a multiple of 2^-10 and every sum up to N = 8192
 * exact in float, so the order of the additions, which differs between a tensor core and the
 * CPU, changes no bit. cuBLAS's half-precision GEMM (cublasGemmEx, float output) the yardstick. */
const struct family family_matmul_f16 = {
    .name = "matmul_f16",
    .ninputs = 2, .input_names = {"A", "B"}, .output_name = "C", .input_half = 1,
    .params = "const unsigned short *A, const unsigned short *B, float *C, int N",
    .nscalars = 1,
    .block_x = 256, .block_y = 1, .tile_x = 128, .tile_y = 128,
    MATMUL_JUDGING,
    .mistakes = {SWAPPED, {a_swizzled_once, SWIZZLED_ONCE("A's")}, {b_swizzled_once, SWIZZLED_ONCE("B's")},
                 {both_swizzled_once, SWIZZLED_ONCE("A's and B's")}},
    .limit = FLOPS_PER_SECOND("cublasGemmEx"),
    .output_tile = 128,
    .input_bits = 6,
    .count_rows = 256, .count_cols = 256, /* 2 x 2 blocks, 4 K-steps of 64 */
    .count_draw = {{128, 1, 1}},
    .grains = {{8, 16, 32, 64, 128}}, /* a 16-byte chunk, an mma's k, a warp's n, the K-step, the block's */
};
WB_FAMILY(family_matmul_f16);

/* The same product as matmul_f16, A and B given as tensor maps (lesson 11): 128-byte-swizzled
 * boxes of 64 halves a row (A: 128 rows of m, one K-step of a 128-row block; B: 64 rows of k),
 * copied by the tensor memory accelerator. 288 threads (two warpgroups that multiply, one warp
 * that copies) per 128 x 256 block of C, 200 KiB of dynamic shared memory (four 48 KiB stages and
 * the 1 KiB that aligns them fit), built for sm_90a. N a multiple of 8: a map's rows are whole
 * 16-byte units. */
const struct family family_matmul_f16_tma = {
    .name = "matmul_f16_tma",
    .ninputs = 2, .input_names = {"A", "B"}, .output_name = "C", .input_half = 1,
    .params = "const CUtensorMap A, const CUtensorMap B, float *C, int N",
    .nscalars = 1,
    .block_x = 288, .block_y = 1, .tile_x = 256, .tile_y = 128,
    MATMUL_JUDGING,
    .mistakes = {SWAPPED},
    .limit = FLOPS_PER_SECOND("cublasGemmEx"),
    .output_tile = 128,
    .input_bits = 6,
    .count_rows = 256, .count_cols = 256, /* 1 x 2 blocks, 4 K-steps of 64 */
    /* Not drawn: 384 (2 x 3 blocks, 6 K-steps; 128 would be one block making twice the product,
     * mostly its store). */
    .count_draw = {{128, 3, 3}},
    .grains = {{8, 16, 64, 128, 256}}, /* a map's row unit, a product's k, the K-step, the block's rows and cols */
    .input_box = {{64, 128}, {64, 64}},
    .tensor_swizzle = 128,
    .size_step = 8,
    .dynamic_shared = 200 * 1024,
    .sm_90a = 1,
    .emu_cost = 0.25, /* N = 384, its residue class of 128, in about a second */
    .reordered_elems = 384 * 384, /* six K-steps: stages 0 and 1 refilled */
};
WB_FAMILY(family_matmul_f16_tma);
