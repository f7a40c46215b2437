/* Unit tests for checker/model/time_model.c: each term priced from its own count at the GPU's
 * figures, the bound the busiest term after its factor, and a record's counts read back the way
 * the fit reads them (`workbook time-terms`). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "time_model.h"
#include "unit.h"

/* A test GPU whose rates are round: one SM at 1 Hz, so a term is its count over its rate. */
static const struct gpu_figures toy = {
    .name = "toy", .sms = 1, .clock_hz = 1, .l2_bytes_s = 32, .l1_sectors_clk = 4, .shared_wavefronts_clk = 1,
    .issue_clk = 4, .fma_clk = 4, .hmma_clk = 1, .load_latency_s = 10,
    .factor = {[TIME_L1] = 1, [TIME_L2] = 1, [TIME_SHARED] = 1, [TIME_ISSUE] = 1, [TIME_FMA] = 1, [TIME_TENSOR] = 1,
               [TIME_LATENCY] = 1},
};

static void each_term_from_its_count(void **state)
{
    (void)state;
    struct mem_counts c = {0};
    c.op[GLOBAL_LD].wavefronts = 40, c.op[GLOBAL_ST].wavefronts = 8, c.block_ld_sectors = 10;
    c.op[SHARED_LD].wavefronts = 30, c.op[SHARED_ST].wavefronts = 6;
    c.issued[ISSUE_FLOAT] = 20, c.issued[ISSUE_INTEGER] = 12, c.issued[ISSUE_TENSOR] = 1;
    c.mma_multiply_adds = 3 * 2048; /* a wgmma's worth of three m16n8k16s, in one instruction */
    c.burst_threads = 1, c.min_burst_bytes = 16;
    double t[TIME_TERMS];
    time_terms(&c, 64, &toy, t);
    assert_true(t[TIME_L1] == 48.0 / 4);           /* every sector, loads and stores */
    assert_true(t[TIME_L2] == (10.0 + 8) * 32 / 32); /* a block's first reads, and the stores */
    assert_true(t[TIME_SHARED] == 36.0);
    assert_true(t[TIME_ISSUE] == 33.0 / 4);
    assert_true(t[TIME_FMA] == 20.0 / 4);
    assert_true(t[TIME_TENSOR] == 3.0);              /* by the multiply-adds, not the instructions */
    assert_true(fabs(t[TIME_LATENCY] - 40.0 * 32 * 10 / (16 * 64)) < 1e-12);
    /* No thread loads: no latency to hide; occupancy not known: 2048 threads. */
    c.burst_threads = 0;
    time_terms(&c, 0, &toy, t);
    assert_true(t[TIME_LATENCY] == 0.0);
    c.burst_threads = 1;
    time_terms(&c, 0, &toy, t);
    assert_true(fabs(t[TIME_LATENCY] - 40.0 * 32 * 10 / (16 * 2048)) < 1e-12);
}

static void bound_by_the_busiest_after_its_factor(void **state)
{
    (void)state;
    double t[TIME_TERMS] = {[TIME_SHARED] = 36, [TIME_L2] = 30};
    enum time_term bound;
    assert_true(time_predicted(t, &toy, &bound) == 36.0);
    assert_int_equal(bound, TIME_SHARED);
    struct gpu_figures slow_l2 = toy;
    slow_l2.factor[TIME_L2] = 1.5;
    assert_true(time_predicted(t, &slow_l2, &bound) == 45.0);
    assert_int_equal(bound, TIME_L2);
}

/* The H200's file: every factor set (a factor left out would zero its term), the errors the
 * judge says of the model present, and lesson 11 not claimed as measured. */
static void h200_figures_complete(void **state)
{
    (void)state;
    for (int k = 0; k < TIME_TERMS; k++)
        assert_true(gpu_h200.factor[k] > 0.25 && gpu_h200.factor[k] < 4);
    assert_true(gpu_h200.held_out_median > 0 && gpu_h200.held_out_p90 >= gpu_h200.held_out_median);
    assert_true(gpu_h200.kernels > 0);
    assert_true(gpu_h200.lesson_error[11] == 0);
    assert_string_equal(gpu_h200.name, "H200");
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(each_term_from_its_count),
    cmocka_unit_test(bound_by_the_busiest_after_its_factor),
    cmocka_unit_test(h200_figures_complete))
