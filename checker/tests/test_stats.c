/* Unit tests for checker/src/judging/stats.c: the median of timings (odd and even counts, input left
 * as it was), the relative spread between the quartiles, and the speed-up ratio. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "stats.h"
#include "unit.h"

static void assert_close(double got, double want)
{
    if (fabs(got - want) > 1e-9 * (fabs(want) > 1 ? fabs(want) : 1))
        fail_msg("got %.12g, want %.12g", got, want);
}

static void median_single(void **state)
{
    (void)state;
    float x[] = {4.25f};
    assert_close(stats_median(x, 1), 4.25);
}

static void median_odd_count(void **state)
{
    (void)state;
    float x[] = {9.0f, 1.0f, 5.0f, 3.0f, 7.0f};
    assert_close(stats_median(x, 5), 5.0);
    float y[] = {2.0f, 100.0f, 1.0f};
    assert_close(stats_median(y, 3), 2.0);
}

static void median_even_count_is_mean_of_middle_two(void **state)
{
    (void)state;
    float x[] = {4.0f, 1.0f, 3.0f, 2.0f};
    assert_close(stats_median(x, 4), 2.5);
    float y[] = {10.0f, 1.0f};
    assert_close(stats_median(y, 2), 5.5);
}

static void median_with_duplicates(void **state)
{
    (void)state;
    float x[] = {3.0f, 1.0f, 3.0f, 3.0f, 2.0f, 8.0f};
    assert_close(stats_median(x, 6), 3.0);
}

static void median_leaves_input_unsorted(void **state)
{
    (void)state;
    float x[] = {5.0f, 2.0f, 9.0f, 1.0f, 7.0f, 3.0f, 8.0f};
    float copy[sizeof x / sizeof x[0]];
    memcpy(copy, x, sizeof x);
    assert_close(stats_median(x, 7), 5.0);
    assert_memory_equal(x, copy, sizeof x);
    (void)stats_rel_spread(x, 7);
    assert_memory_equal(x, copy, sizeof x);
}

static void rel_spread_constant_is_zero(void **state)
{
    (void)state;
    float x[] = {2.5f, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f};
    assert_close(stats_rel_spread(x, 6), 0.0);
    float one[] = {1.0f};
    assert_close(stats_rel_spread(one, 1), 0.0);
}

static void rel_spread_known_set(void **state)
{
    (void)state;
    /* Sorted 1..5: quartiles 2 and 4, median 3: (4 - 2) / 2 / 3 = 1/3, in any order. */
    float x[] = {4.0f, 1.0f, 5.0f, 2.0f, 3.0f};
    assert_close(stats_rel_spread(x, 5), 1.0 / 3.0);
    /* Sorted 10, 20, 30, 40: quartiles at positions 0.75 and 2.25 -> 17.5 and 32.5,
     * median 25: (32.5 - 17.5) / 2 / 25 = 0.3. */
    float y[] = {40.0f, 10.0f, 30.0f, 20.0f};
    assert_close(stats_rel_spread(y, 4), 0.3);
}

static void rel_spread_one_outlier_is_ignored(void **state)
{
    (void)state;
    /* Quartiles of 9 samples are samples 3 and 7 (of 1..9): one slow launch does not move them. */
    float x[] = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 50.0f};
    assert_close(stats_rel_spread(x, 9), 0.0);
}

static void speedup_ratio(void **state)
{
    (void)state;
    assert_close(stats_speedup(10.0, 2.0), 5.0);
    assert_close(stats_speedup(1.0, 4.0), 0.25);
    assert_close(stats_speedup(3.0, 3.0), 1.0);
}

static void speedup_zero_for_nonpositive(void **state)
{
    (void)state;
    assert_true(stats_speedup(0.0, 1.0) == 0.0);
    assert_true(stats_speedup(1.0, 0.0) == 0.0);
    assert_true(stats_speedup(-2.0, 1.0) == 0.0);
    assert_true(stats_speedup(2.0, -1.0) == 0.0);
    assert_true(stats_speedup(-2.0, -1.0) == 0.0);
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(median_single),
    cmocka_unit_test(median_odd_count),
    cmocka_unit_test(median_even_count_is_mean_of_middle_two),
    cmocka_unit_test(median_with_duplicates),
    cmocka_unit_test(median_leaves_input_unsorted),
    cmocka_unit_test(rel_spread_constant_is_zero),
    cmocka_unit_test(rel_spread_known_set),
    cmocka_unit_test(rel_spread_one_outlier_is_ignored),
    cmocka_unit_test(speedup_ratio),
    cmocka_unit_test(speedup_zero_for_nonpositive))
