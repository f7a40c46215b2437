/* Unit tests for checker/src/judging/reference.c: the CPU references (one matmul element, the whole
 * B*A of swapped operands, one transpose element) on small known examples, and
 * reference_sample's choice of output elements for small and large outputs; the families' input runs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "reference.h"
#include "unit.h"

static void matmul_2x2_known(void **state)
{
    (void)state;
    /* [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50] */
    float A[4] = {1, 2, 3, 4}, B[4] = {5, 6, 7, 8};
    assert_true(ref_matmul_at(A, B, 2, 0, 0) == 19.0);
    assert_true(ref_matmul_at(A, B, 2, 0, 1) == 22.0);
    assert_true(ref_matmul_at(A, B, 2, 1, 0) == 43.0);
    assert_true(ref_matmul_at(A, B, 2, 1, 1) == 50.0);
}

static void matmul_3x3_not_symmetric(void **state)
{
    (void)state;
    /* A * I = A, I * A = A, at every element (row and col must not be mixed up). */
    float A[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            assert_true(ref_matmul_at(A, I, 3, r, c) == A[r * 3 + c]);
            assert_true(ref_matmul_at(I, A, 3, r, c) == A[r * 3 + c]);
        }
}

static void matmul_accumulates_in_double(void **state)
{
    (void)state;
    /* 1 + 2^-30 - 1: a float accumulator loses the small term, a double keeps it. */
    float A[9] = {1.0f, 1.0f, -1.0f, 0, 0, 0, 0, 0, 0};
    float B[9] = {1.0f, 0, 0, 0x1p-30f, 0, 0, 1.0f, 0, 0};
    assert_true(ref_matmul_at(A, B, 3, 0, 0) == 0x1p-30);
    /* Products are taken in double too: (1 + 2^-20)^2 - (1 + 2^-19) = 2^-40, which the
     * float product (1 + 2^-20)^2 would lose. */
    float C[4] = {1.0f + 0x1p-20f, -(1.0f + 0x1p-19f), 0, 0};
    float D[4] = {1.0f + 0x1p-20f, 0, 1.0f, 0};
    assert_true(ref_matmul_at(C, D, 2, 0, 0) == 0x1p-40);
}

static void matmul_swapped_is_b_times_a(void **state)
{
    (void)state;
    /* [5 6; 7 8] * [1 2; 3 4] = [23 34; 31 46] */
    float A[4] = {1, 2, 3, 4}, B[4] = {5, 6, 7, 8}, BA[4];
    memset(BA, 0xFF, sizeof BA);
    ref_matmul_swapped(A, B, 2, BA);
    assert_true(BA[0] == 23.0f);
    assert_true(BA[1] == 34.0f);
    assert_true(BA[2] == 31.0f);
    assert_true(BA[3] == 46.0f);
}

static void matmul_swapped_agrees_with_at(void **state)
{
    (void)state;
    enum { N = 5 };
    float A[N * N], B[N * N], BA[N * N];
    for (int i = 0; i < N * N; i++) {
        A[i] = (float)((i * 7) % 11) - 5.0f;
        B[i] = (float)((i * 3) % 13) * 0.25f;
    }
    ref_matmul_swapped(A, B, N, BA);
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            assert_true(BA[r * N + c] == (float)ref_matmul_at(B, A, N, r, c));
}

/* Elements of a matmul many at a time, bit for bit what ref_matmul_at gives one at a time: inputs
 * whose sums round in double (not exact), rows with one element, several, an element twice,
 * the last row and column. */
static void matmul_each_is_at_bit_for_bit(void **state)
{
    (void)state;
    enum { N = 37 };
    static float A[N * N], B[N * N];
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < N * N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        A[i] = (float)(x % 100003) / 7919.0f - 6.0f;
        B[i] = (float)((x >> 20) % 65521) / 1e9f * ((x & 1) ? 1.0f : -1.0f);
    }
    const uint64_t at[] = {0, 5, 5, N - 1, N + 3, 2 * N, 2 * N + 1, 2 * N + 30, (uint64_t)N * N - N, (uint64_t)N * N - 1};
    enum { M = sizeof at / sizeof at[0] };
    double want[M];
    ref_matmul_each(A, B, N, at, M, want);
    for (int i = 0; i < M; i++)
        assert_memory_equal(&want[i], &(double){ref_matmul_at(A, B, N, (int)(at[i] / N), (int)(at[i] % N))},
                            sizeof(double));
}

/* Every element of small known transposes. */
static void transposes_known(void **state)
{
    (void)state;
    const struct {
        const char *what;
        int rows, cols;
        float in[6];
        double want[6];
    } cases[] = {
        {"[1 2 3; 4 5 6] (2 x 3) to [1 4; 2 5; 3 6]", 2, 3, {1, 2, 3, 4, 5, 6}, {1, 4, 2, 5, 3, 6}},
        {"[1 2; 3 4; 5 6] (3 x 2) to [1 3 5; 2 4 6]", 3, 2, {1, 2, 3, 4, 5, 6}, {1, 3, 5, 2, 4, 6}},
        {"one row (1 x 4) to one column: the same order", 1, 4, {9, 8, 7, 6}, {9, 8, 7, 6}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (size_t i = 0; i < (size_t)(cases[k].rows * cases[k].cols); i++) {
            double got = ref_transpose_at(cases[k].in, cases[k].rows, cases[k].cols, i);
            if (got != cases[k].want[i])
                fail_msg("%s: element %zu is %g, not %g", cases[k].what, i, got, cases[k].want[i]);
        }
}

/* A family sampled at the timed size (timed_sample) names, for each output element, the run of
 * each input that its reference reads (input_run): with every other input element a NaN, the
 * reference is the same bits. Shapes with a row's last slice partial and square and not. */
static void input_runs_hold_what_the_reference_reads(void **state)
{
    (void)state;
    const char *const names[] = {"transpose", "transpose_32x8", "reduce", "reduce_4096", "matmul", "matmul_128"};
    const int shapes[][2] = {{3, 5}, {7, 4100}, {33, 31}, {2, 513}, {9, 9}};
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        const struct family *f = family_named(names[n]);
        assert_non_null(f);
        assert_true(f->timed_sample > 0 || f->timed_output_blocks > 0);
        assert_non_null(f->input_run);
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int rows = shapes[s][0], cols = f->ninputs > 1 ? rows : shapes[s][1], orows, ocols;
            size_t elems = (size_t)rows * (size_t)cols;
            float *in[2], *holes[2] = {NULL, NULL};
            for (int k = 0; k < f->ninputs; k++) {
                in[k] = malloc(elems * sizeof *in[k]), holes[k] = malloc(elems * sizeof *holes[k]);
                assert_non_null(in[k]), assert_non_null(holes[k]);
                for (size_t e = 0; e < elems; e++)
                    in[k][e] = (float)((e * 7919 + 31 * (size_t)k) % 1000) / 64.0f - 7.0f, holes[k][e] = NAN;
            }
            f->output_shape(rows, cols, &orows, &ocols);
            for (size_t i = 0; i < (size_t)orows * (size_t)ocols; i++) {
                for (int k = 0; k < f->ninputs; k++) {
                    size_t first, count, stride;
                    f->input_run(rows, cols, i, k, &first, &count, &stride);
                    assert_true(count > 0 && stride > 0 && first + (count - 1) * stride < elems);
                    for (size_t j = 0; j < count; j++)
                        holes[k][first + j * stride] = in[k][first + j * stride];
                }
                double want = f->reference_at(in[0], f->ninputs > 1 ? in[1] : NULL, rows, cols, i);
                double got = f->reference_at(holes[0], holes[1], rows, cols, i);
                assert_memory_equal(&want, &got, sizeof want);
                for (int k = 0; k < f->ninputs; k++)
                    for (size_t e = 0; e < elems; e++)
                        holes[k][e] = NAN;
            }
            for (int k = 0; k < f->ninputs; k++)
                free(in[k]), free(holes[k]);
        }
    }
}

static void sample_small_is_everything(void **state)
{
    (void)state;
    size_t idx[64];
    memset(idx, 0xAB, sizeof idx);
    size_t n = reference_sample(5, 7, 64, 10, 1234, idx);
    assert_int_equal(n, 35);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(idx[i], i);
    /* Exactly max_full elements still counts as small. */
    n = reference_sample(8, 8, 64, 10, 1234, idx);
    assert_int_equal(n, 64);
    assert_int_equal(idx[63], 63);
}

static int contains(const size_t *idx, size_t n, size_t v)
{
    for (size_t i = 0; i < n; i++)
        if (idx[i] == v)
            return 1;
    return 0;
}

static void check_large_sample(int rows, int cols, size_t max_full, size_t random, unsigned long long seed)
{
    size_t cap = random + 2 * (size_t)(rows + cols);
    if (max_full > cap)
        cap = max_full;
    size_t *idx = malloc(cap * sizeof *idx);
    assert_non_null(idx);
    size_t n = reference_sample(rows, cols, max_full, random, seed, idx);
    size_t total = (size_t)rows * (size_t)cols;
    assert_true(n <= cap);
    assert_true(n >= random + (size_t)rows + (size_t)cols - 1);
    for (int c = 0; c < cols; c++)
        if (!contains(idx, n, (size_t)(rows - 1) * cols + c))
            fail_msg("%dx%d: last row, col %d not sampled", rows, cols, c);
    for (int r = 0; r < rows; r++)
        if (!contains(idx, n, (size_t)r * cols + cols - 1))
            fail_msg("%dx%d: last col, row %d not sampled", rows, cols, r);
    assert_true(contains(idx, n, 0));
    assert_true(contains(idx, n, (size_t)(rows - 1) * cols)); /* the other two corners */
    assert_true(contains(idx, n, (size_t)cols - 1));
    for (size_t i = 0; i < n; i++)
        if (idx[i] >= total)
            fail_msg("%dx%d: index %zu out of range", rows, cols, idx[i]);
    free(idx);
}

static void sample_large_covers_edges(void **state)
{
    (void)state;
    check_large_sample(50, 70, 100, 200, 1);
    check_large_sample(1000, 1000, 4096, 1000, 42);
    check_large_sample(257, 100, 1024, 0, 7);
    check_large_sample(1, 300, 100, 20, 9);
    check_large_sample(300, 1, 100, 20, 9);
}

static void sample_random_part_spreads(void **state)
{
    (void)state;
    /* The random part reaches beyond the edges: some index is neither in the last row nor in
     * the last column nor 0. */
    enum { R = 100, C = 100, RANDOM = 500 };
    size_t idx[RANDOM + 2 * (R + C)];
    size_t n = reference_sample(R, C, 1000, RANDOM, 99, idx);
    size_t inner = 0;
    int row_hit[R] = {0}, col_hit[C] = {0}, rows_hit = 0, cols_hit = 0;
    for (size_t i = 0; i < n; i++)
        if (idx[i] != 0 && idx[i] / C != R - 1 && idx[i] % C != C - 1) {
            inner++;
            rows_hit += !row_hit[idx[i] / C]++;
            cols_hit += !col_hit[idx[i] % C]++;
        }
    assert_true(inner >= RANDOM / 2);
    /* 500 draws over 99 x 99 inner elements reach most rows and most columns. */
    assert_true(rows_hit > R / 2);
    assert_true(cols_hit > C / 2);
}

static void sample_depends_on_seed_only(void **state)
{
    (void)state;
    enum { R = 64, C = 64, RANDOM = 100 };
    size_t a[RANDOM + 2 * (R + C)], b[RANDOM + 2 * (R + C)], c[RANDOM + 2 * (R + C)];
    size_t na = reference_sample(R, C, 100, RANDOM, 5, a);
    size_t nb = reference_sample(R, C, 100, RANDOM, 5, b);
    size_t nc = reference_sample(R, C, 100, RANDOM, 6, c);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na * sizeof a[0]);
    assert_int_equal(na, nc);
    assert_memory_not_equal(a, c, na * sizeof a[0]);
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(matmul_2x2_known),
    cmocka_unit_test(matmul_3x3_not_symmetric),
    cmocka_unit_test(matmul_accumulates_in_double),
    cmocka_unit_test(matmul_swapped_is_b_times_a),
    cmocka_unit_test(matmul_swapped_agrees_with_at),
    cmocka_unit_test(matmul_each_is_at_bit_for_bit),
    cmocka_unit_test(transposes_known),
    cmocka_unit_test(input_runs_hold_what_the_reference_reads),
    cmocka_unit_test(sample_small_is_everything),
    cmocka_unit_test(sample_large_covers_edges),
    cmocka_unit_test(sample_random_part_spreads),
    cmocka_unit_test(sample_depends_on_seed_only))
