/* Unit tests for checker/model/time_model.c: each term priced from its own count at the GPU's
 * figures, the bound the busiest term after its factor, and a record's counts read back the way
 * the fit reads them (`workbook time-terms`: record_role_counts, a sample scaled to its grid). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "check_record.h"
#include "time_model.h"
#include "traffic.h"
#include "unit.h"

/* A test GPU whose figures all differ, so that a term priced with another's rate, or without the
 * SMs or the clock, comes out wrong: an SM-rate term is n / (sms 3 x rate x clock 5). */
static const struct gpu_figures toy = {
    .name = "toy", .sms = 3, .clock_hz = 5, .l2_bytes_s = 7, .l1_sectors_clk = 2, .shared_wavefronts_clk = 11,
    .issue_clk = 4, .fma_clk = 8, .hmma_clk = 13, .fma64_clk = 17, .convert_clk = 19, .load_latency_s = 10,
    .factor = {[TIME_L1] = 1, [TIME_L2] = 1, [TIME_SHARED] = 1, [TIME_ISSUE] = 1, [TIME_FMA] = 1, [TIME_TENSOR] = 1,
               [TIME_LATENCY] = 1},
};
#define CLOSE(x, y) assert_true(fabs((x) - (y)) <= 1e-12 * fabs(y))

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
    CLOSE(t[TIME_L1], 48.0 / (3 * 2 * 5));         /* every sector, loads and stores */
    CLOSE(t[TIME_L2], (10.0 + 8) * 32 / 7);        /* a block's first reads, and the stores */
    CLOSE(t[TIME_SHARED], 36.0 / (3 * 11 * 5));
    CLOSE(t[TIME_ISSUE], 33.0 / (3 * 4 * 5));
    CLOSE(t[TIME_FMA], 20.0 / (3 * 8 * 5));
    CLOSE(t[TIME_TENSOR], 3.0 / (3 * 13 * 5));     /* by the multiply-adds, not the instructions */
    CLOSE(t[TIME_LATENCY], 40.0 * 32 * 10 / (16 * 64 * 3));
    /* No thread loads: no latency to hide; occupancy not known: 2048 threads. */
    c.burst_threads = 0;
    time_terms(&c, 0, &toy, t);
    assert_true(t[TIME_LATENCY] == 0.0);
    c.burst_threads = 1;
    time_terms(&c, 0, &toy, t);
    CLOSE(t[TIME_LATENCY], 40.0 * 32 * 10 / (16 * 2048 * 3));
    /* f64 arithmetic and conversions each at their own rate, in the float units' term */
    c.issued[ISSUE_DOUBLE] = 34, c.issued[ISSUE_CONVERT] = 38;
    time_terms(&c, 64, &toy, t);
    CLOSE(t[TIME_FMA], 20.0 / (3 * 8 * 5) + 34.0 / (3 * 17 * 5) + 38.0 / (3 * 19 * 5));
    CLOSE(t[TIME_ISSUE], (33.0 + 34 + 38) / (3 * 4 * 5));
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

/* A record's counts as the fit reads them: a sample of 2 of a launch's 8 blocks scaled by 4, the
 * bytes in flight and the resident threads not scaled, each role apart; a record from before the
 * block-sectors count takes every load's sector as its block's first; a role it lacks, none. */
static void record_counts_for_the_fit(void **state)
{
    (void)state;
    static struct check_record r;
    memset(&r, 0, sizeof r);
    record_add_count(&r, "student", "global_ld.wavefronts", 100);
    record_add_count(&r, "student", "global_ld.block_sectors", 30);
    record_add_count(&r, "student", "least_burst", 16);
    record_add_count(&r, "student", "issued.tensor", 5);
    record_add_count(&r, "student", "blocks_total", 8);
    record_add_count(&r, "student", "blocks_run", 2);
    record_add_count(&r, "student", "resident_threads", 512);
    record_add_count(&r, "baseline", "global_ld.wavefronts", 50);
    struct mem_counts c;
    double resident;
    assert_int_equal(record_role_counts(&r, "student", &c, &resident), 1);
    assert_int_equal(c.op[GLOBAL_LD].wavefronts, 400);
    assert_int_equal(c.block_ld_sectors, 120);
    assert_int_equal(c.issued[ISSUE_TENSOR], 20);
    assert_int_equal(c.min_burst_bytes, 16);
    assert_true(resident == 512);
    assert_int_equal(record_role_counts(&r, "baseline", &c, &resident), 1);
    assert_int_equal(c.op[GLOBAL_LD].wavefronts, 50);
    assert_int_equal(c.block_ld_sectors, 50);
    assert_true(resident == 0);
    assert_int_equal(record_role_counts(&r, "solution", &c, &resident), 0);
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
    int kernels = 0;
    for (int n = 0; n < MODEL_LESSONS; n++) {
        const struct model_error *e = &gpu_h200.lesson_error[n];
        assert_true(e->kernels == 0 || (e->median >= 0 && e->p90 >= e->median));
        kernels += e->kernels;
    }
    assert_int_equal(kernels, gpu_h200.kernels); /* every kernel of the fit in one lesson's figure */
    assert_int_equal(gpu_h200.lesson_error[11].kernels, 0);
    assert_string_equal(gpu_h200.name, "H200");
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(each_term_from_its_count),
    cmocka_unit_test(bound_by_the_busiest_after_its_factor),
    cmocka_unit_test(record_counts_for_the_fit),
    cmocka_unit_test(h200_figures_complete))
