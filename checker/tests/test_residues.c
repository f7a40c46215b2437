/* Unit tests for checker/src/judging/residues.c: the sizes a family's grains call for put each
 * dimension in every residue class (a multiple of each grain and of no larger one; 1, -1 and 2
 * modulo every grain; each N % 4), rows that are a multiple of a grain meet cols that are not
 * and the other way round, and every shape of every family is small enough for the emulator,
 * which must run all of them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "../judge/check_run.h"
#include "family.h"
#include "residues.h"
#include "unit.h"

static const char *const families[] = {"matmul", "matmul_128", "matmul_f16", "matmul_f16_tma", "transpose",
                                       "transpose_32x8", "reduce", "reduce_4096"};

static int has(const int *v, int n, int (*ok)(int v, int g), int g)
{
    for (int i = 0; i < n; i++)
        if (ok(v[i], g))
            return 1;
    return 0;
}
static int multiple_only(int v, int g) { return v % g == 0 && v % (2 * g) != 0; }
static int one_past(int v, int g) { return v > g && v % g == 1; }
static int one_short(int v, int g) { return v % g == g - 1; }
static int mod4(int v, int r) { return v % 4 == r; }

static void each_dimension_in_every_class(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof families / sizeof *families; f++)
        for (int d = 0; d < (family_named(families[f])->nscalars == 1 ? 1 : 2); d++) { /* square: one */
            const int *grains = family_named(families[f])->grains[d];
            int v[MAX_RESIDUE_SIZES], n = residue_sizes(grains, v, MAX_RESIDUE_SIZES);
            for (int i = 1; i < n; i++)
                assert_true(v[i] > v[i - 1]); /* ascending, once each */
            for (int k = 0; k < MAX_GRAINS && grains[k]; k++) {
                int g = grains[k];
                assert_true(has(v, n, multiple_only, g));
                assert_true(has(v, n, one_past, g));
                assert_true(has(v, n, one_short, g));
            }
            for (int r = 0; r < 4; r++)
                assert_true(has(v, n, mod4, r));
            /* every power of two below the largest grain too: a kernel may key on part of a grain
             * (the halves' chunk is 8 elements: N % 8 == 4 must be tried) */
            int largest = 1;
            for (int k = 0; k < MAX_GRAINS && grains[k]; k++)
                largest = grains[k];
            for (int p = 2; p < largest; p *= 2)
                assert_true(has(v, n, multiple_only, p));
        }
}

/* A family whose sizes are multiples of a step (lesson 11's tensor maps: 8) keeps the classes of
 * the step's multiples: every shape rounded up, once each, both block edges and one past them. */
static void stepped_shapes_are_multiples_once_each(void **state)
{
    (void)state;
    const struct family *f = family_named("matmul_f16_tma");
    assert_int_equal(f->size_step, 8);
    struct shape s[MAX_RESIDUE_SHAPES];
    int n = residue_shapes_stepped(f->size_step, s, residue_shapes(f->grains, 1, s, MAX_RESIDUE_SHAPES));
    int has[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        assert_int_equal(s[i].rows % 8, 0);
        assert_int_equal(s[i].rows, s[i].cols);
        for (int k = 0; k < i; k++)
            assert_false(s[k].rows == s[i].rows);
        has[0] |= s[i].rows == 8, has[1] |= s[i].rows == 256, has[2] |= s[i].rows == 264;
    }
    assert_true(has[0] && has[1] && has[2]);
    /* and a step of 1 changes nothing */
    struct shape t[2] = {{3, 5}, {3, 5}};
    assert_int_equal(residue_shapes_stepped(1, t, 2), 2);
    assert_int_equal(t[1].cols, 5);
}

static void rows_and_cols_in_different_classes(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof families / sizeof *families; f++) {
        const struct family *fam = family_named(families[f]);
        struct shape s[MAX_RESIDUE_SHAPES];
        int n = residue_shapes(fam->grains, fam->nscalars == 1, s, MAX_RESIDUE_SHAPES);
        assert_true(n >= 8);
        for (int i = 0; i < n; i++) {
            assert_true(s[i].rows >= 1 && s[i].cols >= 1);
            /* the emulator runs every one of them (it skips only sizes above this) */
            assert_true(fam->work(s[i].rows, s[i].cols) * (fam->emu_cost > 0 ? fam->emu_cost : 1) <= EMU_MAX_WORK);
            if (fam->nscalars == 1)
                assert_int_equal(s[i].rows, s[i].cols);
        }
        if (fam->nscalars == 1)
            continue;
        for (int d = 0; d < 2; d++)
            for (int k = 0; k < MAX_GRAINS && fam->grains[d][k]; k++) {
                int g = fam->grains[d][k], apart = 0, both = 0, other_largest = 1;
                for (int j = 0; j < MAX_GRAINS && fam->grains[!d][j]; j++)
                    other_largest = fam->grains[!d][j];
                for (int i = 0; i < n; i++) {
                    int mine = d ? s[i].cols : s[i].rows, other = d ? s[i].rows : s[i].cols;
                    apart |= mine % g == 0 && other % g != 0;
                    both |= mine % g == 0 && other % other_largest == 0;
                }
                assert_true(apart);
                assert_true(both);
            }
    }
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(each_dimension_in_every_class),
    cmocka_unit_test(stepped_shapes_are_multiples_once_each),
    cmocka_unit_test(rows_and_cols_in_different_classes))
