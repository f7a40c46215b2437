/* Unit tests for checker/src/judging/compare.c, tolerance.c and poison.c: the tolerances, within(),
 * compare_outputs() and compare_sampled() (counting wrong, never-written (also in the last row
 * / column), guard and other NaN elements, edge tiles versus inner tiles, the first
 * mismatches) and diagnose() for every pattern it names. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "text.h"
#include "unit.h"

#define QUIET_NAN_BITS 0x7FC00000u /* the NaN arithmetic produces: neither poison nor guard */

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float *filled(size_t n, float v)
{
    float *x = malloc(n * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = v;
    return x;
}

/* Element i of a rows x cols matrix holding distinct values 1, 2, 3, ... */
static float *counting(size_t n)
{
    float *x = malloc(n * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(i + 1);
    return x;
}

/* ---- tolerances and within() ---- */

static void tolerance_exact_is_zero(void **state)
{
    (void)state;
    struct tolerance t = tolerance_exact();
    assert_true(t.atol == 0.0);
    assert_true(t.rtol == 0.0);
}

static void tolerance_dot_is_two_k_epsilon(void **state)
{
    (void)state;
    int ks[] = {1, 2, 31, 1000, 4096};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        struct tolerance t = tolerance_dot(ks[i]);
        double expect = 2.0 * ks[i] * FLT_EPSILON;
        assert_true(fabs(t.atol - expect) <= 1e-6 * expect);
        assert_true(fabs(t.rtol - expect) <= 1e-6 * expect);
    }
}

static void tolerance_dot_grows_with_k(void **state)
{
    (void)state;
    double prev = 0.0;
    for (int k = 1; k <= 4096; k *= 2) {
        struct tolerance t = tolerance_dot(k);
        assert_true(t.atol > prev);
        assert_true(t.rtol > prev);
        prev = t.atol;
    }
    /* Still far tighter than one missing term of a dot product of inputs in [-1, 1). */
    assert_true(tolerance_dot(4096).atol < 0.01);
}

static void tolerance_dot_nonpositive_k_counts_as_one_term(void **state)
{
    (void)state;
    struct tolerance one = tolerance_dot(1);
    assert_true(one.atol > 0.0);
    assert_true(tolerance_dot(0).atol == one.atol);
    assert_true(tolerance_dot(-5).rtol == one.rtol);
}

static void within_exact_only_equal(void **state)
{
    (void)state;
    struct tolerance t = tolerance_exact();
    assert_true(within(0.75f, 0.75, t));
    assert_true(within(-3.0f, -3.0, t));
    assert_true(within(0.0f, -0.0, t));
    assert_false(within(nextafterf(0.75f, 1.0f), 0.75, t));
    assert_false(within(0.75f, 0.7500001, t));
}

static void within_dot_uses_atol_plus_rtol(void **state)
{
    (void)state;
    struct tolerance t = tolerance_dot(1000); /* atol = rtol = 2000 eps ~ 2.38e-4 */
    /* Near 1: allowed |diff| = atol + rtol*1 ~ 4.77e-4. */
    assert_true(within(1.0004f, 1.0, t));
    assert_false(within(1.0006f, 1.0, t));
    assert_true(within(0.9996f, 1.0, t));
    assert_false(within(0.9994f, 1.0, t));
    /* Near 0 only atol counts. */
    assert_true(within(2.0e-4f, 0.0, t));
    assert_false(within(3.0e-4f, 0.0, t));
    /* The relative part scales with |want|: 100 allows ~2.4e-2. */
    assert_true(within(100.02f, 100.0, t));
    assert_false(within(100.03f, 100.0, t));
}

static void within_nan_never(void **state)
{
    (void)state;
    struct tolerance huge = {1e30, 1e30};
    assert_false(within(NAN, 1.0, huge));
    assert_false(within(from_bits(POISON_BITS), 0.0, huge));
    assert_false(within(from_bits(GUARD_BITS), 0.0, huge));
    assert_false(within(1.0f, NAN, huge));
    assert_false(within(NAN, NAN, huge));
    assert_false(within(NAN, NAN, tolerance_exact()));
}

static void bit_patterns_are_nans_and_has_bits_tells_them_apart(void **state)
{
    (void)state;
    float poison = from_bits(POISON_BITS), guard = from_bits(GUARD_BITS), q = from_bits(QUIET_NAN_BITS);
    assert_true(isnan(poison));
    assert_true(isnan(guard));
    assert_true(has_bits(poison, POISON_BITS));
    assert_false(has_bits(poison, GUARD_BITS));
    assert_true(has_bits(guard, GUARD_BITS));
    assert_false(has_bits(guard, POISON_BITS));
    assert_false(has_bits(q, POISON_BITS));
    assert_false(has_bits(q, GUARD_BITS));
    assert_true(has_bits(1.0f, 0x3F800000u));
    assert_int_equal(to_bits(poison), POISON_BITS);
}

/* ---- compare_outputs ---- */

/* A small matrix, want, and got: the same distinct values 1, 2, 3, ... for the test to spoil. */
struct matrices {
    float want[64], got[64];
};

static struct matrices *counting_pair(void)
{
    static struct matrices m;
    for (int i = 0; i < 64; i++)
        m.want[i] = m.got[i] = (float)(i + 1);
    return &m;
}

/* Every count a comparison keeps against want's (the fields not given: 0), each named when it
 * differs. */
static void assert_counts(const struct comparison *c, struct comparison want)
{
    const struct {
        const char *name;
        size_t got, want;
    } counts[] = {
        {"wrong", c->wrong, want.wrong},
        {"never_written", c->never_written, want.never_written},
        {"never_written_last_row", c->never_written_last_row, want.never_written_last_row},
        {"never_written_last_col", c->never_written_last_col, want.never_written_last_col},
        {"guard_values", c->guard_values, want.guard_values},
        {"shared_values", c->shared_values, want.shared_values},
        {"other_nans", c->other_nans, want.other_nans},
        {"wrong_inside", c->wrong_inside, want.wrong_inside},
        {"shown", c->shown, want.shown},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (counts[i].got != counts[i].want)
            fail_msg("%s: %zu, expected %zu", counts[i].name, counts[i].got, counts[i].want);
}

static void compare_all_equal(void **state)
{
    (void)state;
    struct matrices *m = counting_pair();
    struct comparison c;
    memset(&c, 0x5A, sizeof c); /* whatever was there before must be cleared */
    compare_outputs(m->got, m->want, 3, 4, 32, tolerance_exact(), &c);
    assert_int_equal(c.rows, 3);
    assert_int_equal(c.cols, 4);
    assert_int_equal(c.tile, 32);
    assert_counts(&c, (struct comparison){0});
}

static void compare_counts_each_kind(void **state)
{
    (void)state;
    struct matrices *m = counting_pair();
    m->got[1] = 99.0f;                       /* wrong number */
    m->got[4] = from_bits(POISON_BITS);      /* never written */
    m->got[7] = from_bits(POISON_BITS);
    m->got[10] = from_bits(GUARD_BITS);      /* copied from a guard zone */
    m->got[13] = from_bits(QUIET_NAN_BITS);  /* a NaN the kernel computed */
    m->got[14] = -from_bits(QUIET_NAN_BITS); /* another one, other sign */
    struct comparison c;
    compare_outputs(m->got, m->want, 4, 4, 32, tolerance_exact(), &c);
    assert_counts(&c, (struct comparison){.wrong = 6, .never_written = 2, .never_written_last_col = 1,
                                          .guard_values = 1, .other_nans = 2, .shown = MAX_SHOWN_MISMATCHES});
}

static void compare_counts_poison_in_last_row_and_col(void **state)
{
    (void)state;
    enum { R = 4, C = 5 };
    struct matrices *m = counting_pair();
    m->got[3 * C + 0] = from_bits(POISON_BITS); /* last row */
    m->got[3 * C + 2] = from_bits(POISON_BITS); /* last row */
    m->got[3 * C + 4] = from_bits(POISON_BITS); /* last row and last col */
    m->got[1 * C + 4] = from_bits(POISON_BITS); /* last col */
    m->got[0 * C + 1] = from_bits(POISON_BITS); /* neither */
    m->got[3 * C + 1] = 0.0f;                   /* wrong, not poison */
    m->got[2 * C + 4] = from_bits(GUARD_BITS);  /* last col, but a guard value */
    struct comparison c;
    compare_outputs(m->got, m->want, R, C, 32, tolerance_exact(), &c);
    assert_counts(&c, (struct comparison){.wrong = 7, .never_written = 5, .never_written_last_row = 3,
                                          .never_written_last_col = 2, .guard_values = 1,
                                          .shown = MAX_SHOWN_MISMATCHES});
}

static void compare_within_tolerance_is_not_wrong(void **state)
{
    (void)state;
    float want[3] = {1.0f, 2.0f, 3.0f}, got[3] = {1.0001f, 2.0f, 3.01f};
    struct comparison c;
    compare_outputs(got, want, 1, 3, 32, tolerance_dot(1000), &c);
    assert_int_equal(c.wrong, 1);
    assert_int_equal(c.first[0].col, 2);
    compare_outputs(got, want, 1, 3, 32, tolerance_exact(), &c);
    assert_int_equal(c.wrong, 2);
}

/* Wrong elements in a tile at the edge (a partial tile row or column) or inside a full tile:
 * compare_outputs counts them all, and those inside apart. */
static void compare_tells_edge_tiles_from_inner_ones(void **state)
{
    (void)state;
    const struct {
        const char *what;
        int rows, cols;
        int nwrong, at[3][2]; /* (row, col) of each wrong element */
        size_t inside;
    } cases[] = {
        {"33 x 33, row 32: the partial tile row", 33, 33, 1, {{32, 5}}, 0},
        {"33 x 33, col 32 and the corner", 33, 33, 2, {{0, 32}, {32, 32}}, 0},
        {"33 x 33, (0, 0) and (31, 31) inside, (32, 0) at the edge", 33, 33, 3, {{0, 0}, {31, 31}, {32, 0}}, 2},
        {"64 x 40: rows all in full tiles, cols 32..39 the edge", 64, 40, 3, {{63, 31}, {63, 32}, {0, 39}}, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t n = (size_t)cases[k].rows * cases[k].cols;
        float *want = filled(n, 1.0f), *got = filled(n, 1.0f);
        for (int i = 0; i < cases[k].nwrong; i++)
            got[cases[k].at[i][0] * cases[k].cols + cases[k].at[i][1]] = 2.0f;
        struct comparison c;
        compare_outputs(got, want, cases[k].rows, cases[k].cols, 32, tolerance_exact(), &c);
        if (c.wrong != (size_t)cases[k].nwrong || c.wrong_inside != cases[k].inside)
            fail_msg("%s: %zu wrong, %zu inside; expected %d, %zu", cases[k].what, c.wrong, c.wrong_inside,
                     cases[k].nwrong, cases[k].inside);
        free(want);
        free(got);
    }
}

static void compare_records_first_mismatches_in_order_capped(void **state)
{
    (void)state;
    enum { R = 5, C = 7 };
    struct matrices *m = counting_pair();
    size_t bad[] = {2, 3, 9, 15, 16, 20, 28, 33, 34};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        m->got[bad[i]] = -1.0f - (float)i;
    struct comparison c;
    compare_outputs(m->got, m->want, R, C, 32, tolerance_exact(), &c);
    assert_int_equal(c.wrong, sizeof bad / sizeof bad[0]);
    assert_int_equal(c.shown, MAX_SHOWN_MISMATCHES);
    for (size_t i = 0; i < MAX_SHOWN_MISMATCHES; i++) {
        assert_int_equal(c.first[i].row, (int)(bad[i] / C));
        assert_int_equal(c.first[i].col, (int)(bad[i] % C));
        assert_true(c.first[i].want == (double)(bad[i] + 1));
        assert_true(c.first[i].got == -1.0f - (float)i);
    }
}

static void compare_fewer_mismatches_than_cap(void **state)
{
    (void)state;
    struct matrices *m = counting_pair();
    m->got[5] = from_bits(POISON_BITS);
    m->got[2] = 0.0f;
    struct comparison c;
    compare_outputs(m->got, m->want, 2, 3, 32, tolerance_exact(), &c);
    assert_int_equal(c.shown, 2);
    assert_int_equal(c.first[0].row, 0);
    assert_int_equal(c.first[0].col, 2);
    assert_int_equal(c.first[1].row, 1);
    assert_int_equal(c.first[1].col, 2);
    assert_true(has_bits(c.first[1].got, POISON_BITS)); /* the bits survive */
}

/* ---- compare_sampled ---- */

static void compare_sampled_checks_only_the_samples(void **state)
{
    (void)state;
    enum { R = 3, C = 4 };
    float *got = counting(R * C);
    got[1] = 100.0f;                  /* not sampled: ignored */
    got[6] = 100.0f;                  /* sampled, wrong */
    got[11] = from_bits(POISON_BITS); /* sampled, never written */
    size_t idx[] = {0, 6, 11, 4};
    double want[] = {1.0, 7.0, 12.0, 5.0};
    struct comparison c;
    compare_sampled(got, want, idx, 4, R, C, 2, tolerance_exact(), &c);
    assert_int_equal(c.rows, R);
    assert_int_equal(c.cols, C);
    assert_int_equal(c.tile, 2);
    /* 3 x 4 with tile 2: (1, 2) lies in a full tile; row 2 is the partial tile row. */
    assert_counts(&c, (struct comparison){.wrong = 2, .never_written = 1, .never_written_last_row = 1,
                                          .never_written_last_col = 1, .wrong_inside = 1, .shown = 2});
    assert_int_equal(c.first[0].row, 1);
    assert_int_equal(c.first[0].col, 2);
    assert_true(c.first[0].want == 7.0);
    assert_true(c.first[0].got == 100.0f);
    assert_int_equal(c.first[1].row, 2);
    assert_int_equal(c.first[1].col, 3);
    free(got);
}

static void compare_sampled_uses_double_reference(void **state)
{
    (void)state;
    float got[2] = {1.0f, 0.1f};
    size_t idx[] = {0, 1};
    double want[] = {1.0, 0.1}; /* 0.1 is not a float: exact tolerance must see the difference */
    struct comparison c;
    compare_sampled(got, want, idx, 2, 1, 2, 32, tolerance_exact(), &c);
    assert_int_equal(c.wrong, 1);
    assert_int_equal(c.first[0].col, 1);
    compare_sampled(got, want, idx, 2, 1, 2, 32, tolerance_dot(1), &c);
    assert_int_equal(c.wrong, 0);
}

/* ---- diagnose ---- */

static const char *diagnose_square(const float *got, const float *want, int n, int tile,
                                   int sums, const float *input, const float *swapped,
                                   struct tolerance tol)
{
    static struct comparison c;
    compare_outputs(got, want, n, n, tile, tol, &c);
    struct diagnosis_inputs d = {sums, want, got, input, tol, 0, {swapped}, {"the output is B*A instead of A*B: A and B are swapped."}};
    return diagnose(&c, &d);
}

/* A rectangle of got, rows [r0, r1) x cols [c0, c1), set to one value. */
struct spoiled {
    int r0, r1, c0, c1;
    float value;
};

/* What diagnose says of outputs (a count from 1 up, got a copy of it with up to three rectangles
 * spoiled), compared with tile 32 (0: no tiles) and an exact tolerance: phrases it must say and
 * phrases it must not. sums -1: diagnose without its inputs. */
static void diagnoses_each_pattern(void **state)
{
    (void)state;
    const float P = from_bits(POISON_BITS), G = from_bits(GUARD_BITS), Q = from_bits(QUIET_NAN_BITS);
    const struct {
        const char *what;
        int rows, cols, tile, sums;
        struct spoiled spoil[3];
        const char *says[3], *lacks[3];
    } cases[] = {
        {"all correct", 3, 3, 32, 1, {{0}}, {"every element matches"}, {NULL}},
        {"all poison", 33, 33, 32, 1, {{0, 33, 0, 33, P}}, {"wrote nothing"}, {NULL}},
        /* a kernel that handles only whole tiles: rows and cols 32..39 unwritten, more than the
         * last row or column alone */
        {"40 x 40, the partial tiles unwritten", 40, 40, 32, 1, {{32, 40, 0, 40, P}, {0, 32, 32, 40, P}},
         {"partial tiles at the edge", "576 elements", "multiples of 32"}, {NULL}},
        /* the edge tiles are exactly the last row and the last column: both unwritten is neither
         * "only the last row" nor "only the last column" */
        {"33 x 33, the last row and column unwritten", 33, 33, 32, 1, {{32, 33, 0, 33, P}, {0, 32, 32, 33, P}},
         {"65 elements in the partial tiles at the edge"}, {"only the last"}},
        {"33 x 33, the last row unwritten", 33, 33, 32, 1, {{32, 33, 0, 33, P}},
         {"only the last row was never written"}, {NULL}},
        /* the last column lies in whole tiles: the sentence is the same */
        {"64 x 64, the last column unwritten", 64, 64, 32, 0, {{0, 64, 63, 64, P}},
         {"only the last column was never written"}, {NULL}},
        {"33 x 33, two unwritten", 33, 33, 32, 1, {{3, 4, 4, 5, P}, {32, 33, 1, 2, P}},
         {"never written", "2 of 1089", "the first at row 3, col 4"}, {"partial tiles"}},
        {"guard values", 33, 33, 32, 0, {{32, 33, 32, 33, G}, {0, 1, 5, 6, G}}, {"guard pattern", "2 elements"},
         {NULL}},
        {"a NaN computed", 33, 33, 32, 1, {{1, 2, 7, 8, Q}}, {"NaN where the reference", "1 element is NaN"}, {NULL}},
        /* on a GPU a barrier (or a loop of loads) inside the bounds check shows only as this: the
         * sentence names it beside the bounds themselves */
        {"wrong in edge tiles only", 33, 33, 32, 1, {{32, 33, 7, 8, 0.0f}, {10, 11, 32, 33, 0.0f}},
         {"only tiles at the edge", "a barrier inside `if (row < N && col < N)`"}, {NULL}},
        /* below one tile there is no inside: said so, instead of blaming the edge */
        {"1 x 1, wrong", 1, 1, 32, 1, {{0, 1, 0, 1, -1.0f}}, {"smaller than one 32x32 tile"},
         {"only tiles at the edge"}},
        {"31 x 31, the last wrong", 31, 31, 32, 1, {{30, 31, 30, 31, -1.0f}}, {"smaller than one 32x32 tile"},
         {"only tiles at the edge"}},
        {"wrong inside", 33, 33, 32, 1, {{0, 1, 0, 1, 0.0f}, {32, 33, 7, 8, 0.0f}},
         {"some of them well inside", "2 of 1089"}, {NULL}},
        /* C[i] += ... on an output that starts as NaN, or sums over the NaN guard past an input's
         * end: NaN everywhere, not the poison's own bits; both causes are named */
        {"all NaN", 33, 33, 32, 1, {{0, 33, 0, 33, NAN}},
         {"values computed from the output itself", "loads past the end of an input"}, {NULL}},
        /* a stub that stores its sum without ever adding to it */
        {"all 0", 33, 33, 32, 1, {{0, 33, 0, 33, 0.0f}}, {"every element is 0", "TODO"}, {NULL}},
        /* poison, guard and computed NaNs together: never-written is named first */
        {"poison, guard and NaN", 33, 33, 32, 1, {{32, 33, 32, 33, P}, {0, 1, 1, 2, G}, {0, 1, 2, 3, Q}},
         {"never written"}, {"guard"}},
        /* an output whose elements form no tiles (block sums): no sentence about tiles or edges */
        {"5 x 3 without tiles", 5, 3, 0, -1, {{4, 5, 2, 3, -5.0f}},
         {"1 of 15 elements are wrong, the first at row 4, col 2"}, {"tile", "matrix"}},
        /* the inputs are optional: only the comparison counts then */
        {"without inputs", 33, 33, 32, -1, {{3, 4, 1, 2, -5.0f}}, {"some of them well inside"}, {NULL}},
        /* one missing element of the last row is not "the last row was never written" */
        {"part of the last row", 33, 33, 32, -1, {{32, 33, 5, 6, P}}, {"never written"}, {"only the last row"}},
        /* in a one-column output every element is in the last column: that says nothing */
        {"a single column", 257, 1, 32, -1, {{0, 100, 0, 1, P}}, {NULL}, {"only the last column"}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int rows = cases[k].rows, cols = cases[k].cols;
        float *want = counting((size_t)rows * cols), *got = counting((size_t)rows * cols);
        for (int e = 0; e < 3; e++) {
            const struct spoiled *z = &cases[k].spoil[e];
            for (int r = z->r0; r < z->r1; r++)
                for (int c = z->c0; c < z->c1; c++)
                    got[r * cols + c] = z->value;
        }
        struct comparison c;
        compare_outputs(got, want, rows, cols, cases[k].tile, tolerance_exact(), &c);
        struct diagnosis_inputs d = {cases[k].sums, want, got, NULL, tolerance_exact(), 0, {0}, {0}};
        const char *said = diagnose(&c, cases[k].sums < 0 ? NULL : &d);
        for (int i = 0; i < 3; i++) {
            if (cases[k].says[i] && !strstr(said, cases[k].says[i]))
                fail_msg("%s: expected \"%s\" in \"%s\"", cases[k].what, cases[k].says[i], said);
            if (cases[k].lacks[i] && strstr(said, cases[k].lacks[i]))
                fail_msg("%s: did not expect \"%s\" in \"%s\"", cases[k].what, cases[k].lacks[i], said);
        }
        free(want);
        free(got);
    }
}

/* Lesson 5 with the swizzle where the tile is written but not where it is read: each tile's
 * values, moved within it. Said so, where every wrong whole tile holds its own values; a value from
 * elsewhere (another tile's) is the general sentence again. */
/* Every element 0: a stub's TODO, or, where the kernel was right at another size, a count that is
 * 0 at this one (lesson 9's last slice taken as cols % 4096, at a multiple of 4096). */
static void diagnose_all_zero(void **state)
{
    (void)state;
    float want[6] = {1, 2, 3, 4, 5, 6}, got[6] = {0};
    struct comparison c;
    compare_outputs(got, want, 2, 3, 0, tolerance_exact(), &c);
    struct diagnosis_inputs d = {1, want, got, NULL, tolerance_exact(), 0, {0}, {0}};
    assert_contains(diagnose(&c, &d), "every element is 0: the kernel stored zeros instead of computing them (is a "
                                      "TODO still open?), or added nothing at this size");
    d.right_elsewhere = 1;
    const char *s = diagnose(&c, &d);
    assert_contains(s, "every element is 0, though the kernel's output was right at another size: at this size nothing "
                       "was added into any of them, so a count or a bound is 0 here (a length taken as a remainder, "
                       "cols % SLICE say, is 0 where cols is a multiple of SLICE).");
    assert_lacks(s, "TODO");
}

static void diagnose_values_moved_within_tiles(void **state)
{
    (void)state;
    int n = 64;
    float *want = counting((size_t)n * n), *got = counting((size_t)n * n);
    for (int r = 32; r < 64; r++) /* the tile at (32, 0): each row's values in the XOR-swizzled order */
        for (int c = 0; c < 32; c++)
            got[r * n + c] = want[r * n + (c ^ (r % 32))];
    const char *s = diagnose_square(got, want, n, 32, 0, NULL, NULL, tolerance_exact());
    assert_contains(s, "992 of 4096 elements are wrong, and each wrong 32x32 tile inside the matrix holds its own right values, in the wrong places: the "
                       "tile is read with other indices than it was written with");
    got[0 * n + 33] = want[40 * n + 1]; /* a value of another tile */
    s = diagnose_square(got, want, n, 32, 0, NULL, NULL, tolerance_exact());
    assert_contains(s, "some of them well inside the matrix");
    assert_lacks(s, "its own right values");
    free(want);
    free(got);
}

/* Lesson 10's store at column 8j + t where 8j + 2t was meant: right sums, stored in the wrong
 * places, the rest never written. Said so, not "a bounds check too strict"; values of nowhere near
 * (another sum) are not "moved". */
static void diagnose_values_stored_in_wrong_places(void **state)
{
    (void)state;
    int n = 64;
    float *want = counting((size_t)n * n), *got = counting((size_t)n * n);
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            int j = c / 8, k = c % 8;
            got[r * n + c] = k < 4 ? want[r * n + 8 * j + 2 * k] : k == 4 ? want[r * n + 8 * j + 7] : from_bits(POISON_BITS);
        }
    const char *s = diagnose_square(got, want, n, 128, 1, NULL, NULL, tolerance_exact());
    assert_contains(s, "hold a right value of another place near them (row 0, col 1 holds row 0, col 2's), and the "
                       "places nothing was stored in still hold the NaN poison: the values are computed right and "
                       "stored in the wrong places");
    assert_lacks(s, "too strict");
    for (int i = 0; i < n * n; i++) /* values of no place */
        got[i] = has_bits(got[i], POISON_BITS) ? got[i] : -1000.0f - (float)i;
    s = diagnose_square(got, want, n, 128, 1, NULL, NULL, tolerance_exact());
    assert_lacks(s, "wrong places");
    assert_contains(s, "never written");
    free(want);
    free(got);
}

static void diagnose_transpose_copied(void **state)
{
    (void)state;
    /* Input 3 x 2, output 2 x 3. */
    float input[6] = {1, 2, 3, 4, 5, 6};
    float want[6] = {1, 3, 5, 2, 4, 6};
    float got[6];
    memcpy(got, input, sizeof got);
    struct comparison c;
    compare_outputs(got, want, 2, 3, 32, tolerance_exact(), &c);
    assert_int_equal(c.wrong, 4);
    struct diagnosis_inputs d = {0, want, got, input, tolerance_exact(), 0, {0}, {0}};
    assert_contains(diagnose(&c, &d), "copied instead of transposing");
}

static void diagnose_transpose_not_a_copy(void **state)
{
    (void)state;
    /* Wrong in one place only: not a copy, so no copy diagnosis. */
    float input[6] = {1, 2, 3, 4, 5, 6};
    float want[6] = {1, 3, 5, 2, 4, 6};
    float got[6] = {1, 3, 5, 2, 4, 7};
    struct comparison c;
    compare_outputs(got, want, 2, 3, 32, tolerance_exact(), &c);
    struct diagnosis_inputs d = {0, want, got, input, tolerance_exact(), 0, {0}, {0}};
    assert_lacks(diagnose(&c, &d), "copied");
}

static void diagnose_matmul_rowcol_swapped(void **state)
{
    (void)state;
    float want[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    float got[9] = {1, 4, 7, 2, 5, 8, 3, 6, 9};
    const char *s = diagnose_square(got, want, 3, 32, 1, NULL, NULL, tolerance_dot(3));
    assert_contains(s, "row and col are swapped");
}

static void diagnose_matmul_ab_swapped(void **state)
{
    (void)state;
    /* A = [1 2; 3 4], B = [0 1; 1 0]: AB = [2 1; 4 3], BA = [3 4; 1 2] (not AB's transpose). */
    float want[4] = {2, 1, 4, 3};
    float swapped[4] = {3, 4, 1, 2};
    float got[4];
    memcpy(got, swapped, sizeof got);
    const char *s = diagnose_square(got, want, 2, 32, 1, NULL, swapped, tolerance_dot(2));
    assert_contains(s, "A and B are swapped");
    assert_lacks(s, "row and col");
}

/* Overwritten guard elements are counted and the one nearest the buffer is kept. */
static void guard_scan_finds_nearest_write(void **state)
{
    (void)state;
    float before[8], after[8];
    for (int i = 0; i < 8; i++)
        before[i] = after[i] = from_bits(GUARD_BITS);
    before[5] = 1.0f; /* offset -3 */
    after[5] = 1.0f;  /* offset elems + 5 */
    size_t writes = 0;
    long nearest = 0;
    guard_scan(before, 8, -8, 100, &writes, &nearest);
    guard_scan(after, 8, 100, 100, &writes, &nearest);
    assert_int_equal(writes, 2);
    assert_int_equal(nearest, -3);
    after[0] = 2.0f; /* offset 100: just past the end, the nearest */
    guard_scan(after, 8, 100, 100, &writes, &nearest);
    assert_int_equal(writes, 4);
    assert_int_equal(nearest, 100);
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(tolerance_exact_is_zero),
    cmocka_unit_test(tolerance_dot_is_two_k_epsilon),
    cmocka_unit_test(tolerance_dot_grows_with_k),
    cmocka_unit_test(tolerance_dot_nonpositive_k_counts_as_one_term),
    cmocka_unit_test(within_exact_only_equal),
    cmocka_unit_test(within_dot_uses_atol_plus_rtol),
    cmocka_unit_test(within_nan_never),
    cmocka_unit_test(bit_patterns_are_nans_and_has_bits_tells_them_apart),
    cmocka_unit_test(compare_all_equal),
    cmocka_unit_test(compare_counts_each_kind),
    cmocka_unit_test(compare_counts_poison_in_last_row_and_col),
    cmocka_unit_test(compare_within_tolerance_is_not_wrong),
    cmocka_unit_test(compare_tells_edge_tiles_from_inner_ones),
    cmocka_unit_test(compare_records_first_mismatches_in_order_capped),
    cmocka_unit_test(compare_fewer_mismatches_than_cap),
    cmocka_unit_test(compare_sampled_checks_only_the_samples),
    cmocka_unit_test(compare_sampled_uses_double_reference),
    cmocka_unit_test(diagnoses_each_pattern),
    cmocka_unit_test(diagnose_all_zero),
    cmocka_unit_test(diagnose_values_moved_within_tiles),
    cmocka_unit_test(diagnose_values_stored_in_wrong_places),
    cmocka_unit_test(diagnose_transpose_copied),
    cmocka_unit_test(diagnose_transpose_not_a_copy),
    cmocka_unit_test(diagnose_matmul_rowcol_swapped),
    cmocka_unit_test(diagnose_matmul_ab_swapped),
    cmocka_unit_test(guard_scan_finds_nearest_write))
