/* Unit tests for checker/src/judging/traffic.c: the figures derived from the counts (conflicts,
 * sectors, the least busy thread's load between barriers, barriers per thread) and every rule of
 * traffic_verdict,
 * each shown to fail with its sentence and to pass at its limit. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "text.h"
#include "traffic.h"
#include "unit.h"

/* A warp-level transpose of one 32 x 32 tile: 32 load requests of 4 sectors each; burst: the
 * least busy thread's bytes in flight per wait (-1: not measured). */
static struct mem_counts tile_counts(uint64_t barrier_arrivals, uint64_t threads, int burst)
{
    struct mem_counts c = {0};
    c.op[GLOBAL_LD] = (struct op_counts){32, 128, 0, 0};
    c.op[GLOBAL_ST] = (struct op_counts){32, 128, 0, 0};
    c.op[SHARED_LD] = (struct op_counts){32, 32, 32, 0};
    c.op[SHARED_ST] = (struct op_counts){32, 32, 32, 0};
    c.barrier_arrivals = barrier_arrivals;
    c.threads = threads;
    c.burst_threads = burst >= 0 ? threads : 0;
    c.min_burst_bytes = burst >= 0 ? (uint64_t)burst : 0;
    return c;
}

static void derived_figures(void **state)
{
    (void)state;
    struct mem_counts one_each = tile_counts(1024, 1024, 4), four_each = tile_counts(256, 256, 16);
    assert_int_equal(sectors(&one_each), 256);
    assert_int_equal(all_conflicts(&one_each), 0);
    assert_true(least_burst(&one_each) == 4.0);
    assert_true(least_burst(&four_each) == 16.0);
    assert_true(barriers_per_thread(&four_each) == 1.0);
    struct mem_counts none = tile_counts(0, 0, -1);
    assert_true(least_burst(&none) == -1.0);
    assert_true(barriers_per_thread(&none) == 0.0);
    none.op[SHARED_LD].wavefronts = 32 * 32;
    assert_int_equal(conflicts(&none.op[SHARED_LD]), 32 * 31);
}

static void each_rule_fails_with_its_sentence(void **state)
{
    (void)state;
    char why[400];
    struct mem_counts base = tile_counts(1024, 1024, 4), c = tile_counts(1024, 1024, 4);
    c.op[SHARED_LD].wavefronts = 64;
    struct traffic_rules no_conflicts = {.no_conflicts = 1};
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &no_conflicts, why, sizeof why), -1);
    assert_contains(why, "32 shared-memory bank conflicts where none are allowed");

    c = tile_counts(1024, 1024, 4);
    c.op[GLOBAL_LD].wavefronts = 256;
    struct traffic_rules sectors_rule = {.max_sector_ratio = 1.0};
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &sectors_rule, why, sizeof why), -1);
    assert_contains(why, "384 global memory sectors (256 loaded, 128 stored), 1.50 of the baseline's 256 (128, 128), "
                         "where at most 1.00 is allowed");

    c = tile_counts(1024 + 256, 256, 4); /* a barrier after every load */
    struct traffic_rules in_flight = {.min_loaded_between_barriers = 16};
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &in_flight, why, sizeof why), -1);
    assert_contains(why, "a thread has 4 bytes of global loads in flight each time it waits for them, on average, where at least 16");

    c = tile_counts(9 * 256, 256, 4);
    struct traffic_rules waits = {.max_barriers_per_thread = 4};
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &waits, why, sizeof why), -1);
    assert_contains(why, "9.0 barriers per thread, where at most 4 are allowed");

    c = tile_counts(1024, 1024, 4); /* half of a 4096-multiply-add product on the tensor cores */
    c.mma_multiply_adds = 2048;
    struct traffic_rules tensor = {.min_tensor_core_share = 1.0, .work = 4096};
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &tensor, why, sizeof why), -1);
    assert_contains(why, "0.50 of the multiply-adds on the tensor cores (mma.sync: 2048 of 4096), where at least 1.00");
    c.mma_multiply_adds = 4096;
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &tensor, why, sizeof why), 0);
    c.core_multiplies = 41; /* mma for show beside a product on the ordinary cores: over 1% */
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &tensor, why, sizeof why), -1);
    assert_contains(why, "41 float multiplies on the ordinary cores (fma, mad, mul), 0.01 of the product's 4096");
    c.core_multiplies = 40;
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &tensor, why, sizeof why), 0);

    /* Instructions: the product made on the integer cores, the tensor cores' counts for show. */
    c = tile_counts(1024, 1024, 4);
    base.issued[ISSUE_FLOAT] = 900, base.issued[ISSUE_CONTROL] = 100;
    c.issued[ISSUE_TENSOR] = 10, c.issued[ISSUE_INTEGER] = 491;
    struct traffic_rules instructions = {.max_instruction_ratio = 0.5};
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &instructions, why, sizeof why), -1);
    assert_contains(why, "501 warp instructions issued, 0.50 of the baseline's 1000, where at most 0.50 is allowed");
    assert_contains(why, "most of yours are integer instructions (491,");
    c.issued[ISSUE_INTEGER] = 490;
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &instructions, why, sizeof why), 0);
    /* Nsight Compute's counts have no instructions: no rule to keep. */
    struct mem_counts unknown = tile_counts(1024, 1024, 4);
    assert_int_equal(traffic_verdict(&c, &unknown, NULL, 0, &instructions, why, sizeof why), 0);

    /* Shared-memory instructions: fragments read word by word where ldmatrix would read four. */
    c = tile_counts(1024, 1024, 4);
    base.issued[ISSUE_SHARED] = 1000;
    c.issued[ISSUE_SHARED] = 201;
    struct traffic_rules shared = {.max_shared_instruction_ratio = 0.2};
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &shared, why, sizeof why), -1);
    assert_contains(why, "201 shared-memory instructions issued, 0.20 of the baseline's 1000, where at most 0.20 is allowed");
    c.issued[ISSUE_SHARED] = 200;
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &shared, why, sizeof why), 0);
    /* Nsight Compute's counts have no instructions: no rule to keep. */
    assert_int_equal(traffic_verdict(&c, &unknown, NULL, 0, &shared, why, sizeof why), 0);

    /* Float atomics on one shared word: three warps of a block where two may, named by its line. */
    c = tile_counts(1024, 1024, 4);
    c.float_atomic_warps = 3;
    struct line_counts adds[2] = {{.where = "k.cu:7:9 (s)", .float_atomic_warps = 2},
                                  {.where = "k.cu:9:9 (s)", .float_atomic_warps = 3}};
    struct traffic_rules turns = {.max_float_atomic_warps = 2};
    assert_int_equal(traffic_verdict(&c, &base, adds, 2, &turns, why, sizeof why), -1);
    assert_contains(why, "3 warps of a block update one shared word with float atomicAdd, or atomicCAS or atomicExch "
                         "in a loop, between two barriers (k.cu:9:9 (s)), where at most 2 may");
    c.float_atomic_warps = 2;
    assert_int_equal(traffic_verdict(&c, &base, adds, 2, &turns, why, sizeof why), 0);
    /* Nsight Compute's counts have none: nothing to keep there. */
    c.float_atomic_warps = 0;
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &turns, why, sizeof why), 0);
}

/* A sample of a launch's blocks made the whole launch's: every count of work times the blocks it
 * stands for, a thread's bytes in flight (a rate) and the barriers per thread unchanged. */
static void sampled_counts_scale_to_the_grid(void **state)
{
    (void)state;
    struct mem_counts c = tile_counts(1024, 256, 16);
    c.issued[ISSUE_FLOAT] = 10, c.mma_multiply_adds = 2048, c.op[GLOBAL_LD].bytes = 4096;
    c.float_atomic_warps = 8;
    counts_scaled(&c, 64);
    assert_int_equal(c.float_atomic_warps, 8); /* a block's most, the same in every block */
    assert_int_equal(c.op[GLOBAL_LD].requests, 32 * 64);
    assert_int_equal(c.op[GLOBAL_LD].wavefronts, 128 * 64);
    assert_int_equal(c.op[GLOBAL_LD].bytes, 4096 * 64);
    assert_int_equal(c.op[SHARED_ST].ideal, 32 * 64);
    assert_int_equal(c.issued[ISSUE_FLOAT], 640);
    assert_int_equal(c.mma_multiply_adds, 2048 * 64);
    assert_true(least_burst(&c) == 16.0);
    assert_true(barriers_per_thread(&c) == 4.0);
    assert_int_equal(c.burst_threads, 256 * 64);
}

/* A broken sector rule names its cause from the lines: the one whose requests touch the most sectors
 * beyond what their bytes fill; or, where every request fills its sectors, the bytes themselves. */
static void sector_rule_names_its_cause(void **state)
{
    (void)state;
    char why[800];
    struct mem_counts base = tile_counts(1024, 1024, 4), c = tile_counts(1024, 1024, 4);
    c.op[GLOBAL_LD].wavefronts = 512 + 128;
    struct line_counts lines[3] = {{.where = "k.cu:10:5 (in)"}, {.where = "k.cu:12:5 (in)"}, {.where = "k.cu:20:9 (out)"}};
    lines[0].op[GLOBAL_LD] = (struct op_counts){32, 512, 0, 32 * 128};  /* 16 sectors a request for 128 bytes */
    lines[1].op[GLOBAL_LD] = (struct op_counts){32, 128, 0, 32 * 64};   /* 4 for 64 */
    lines[2].op[GLOBAL_ST] = (struct op_counts){32, 128, 0, 32 * 128};  /* filled */
    struct traffic_rules sectors_rule = {.max_sector_ratio = 1.0};
    assert_int_equal(traffic_verdict(&c, &base, lines, 3, &sectors_rule, why, sizeof why), -1);
    assert_contains(why, "768 global memory sectors (640 loaded, 128 stored), 3.00 of the baseline's 256 (128, 128), "
                         "where at most 1.00 is allowed: k.cu:10:5 (in) global loads fetch 4.0 times the bytes they ask "
                         "for (16.0 sectors of 32 bytes a request, for 128 bytes: its lanes use little of each sector they "
                         "touch, and other requests fetch the same sectors again); so does 1 more line");
    /* One lane's float a request, thread 0 walking a row: a sector each for 4 bytes. */
    lines[0].op[GLOBAL_LD] = (struct op_counts){256, 256, 0, 256 * 4};
    assert_int_equal(traffic_verdict(&c, &base, lines, 1, &sectors_rule, why, sizeof why), -1);
    assert_contains(why, "k.cu:10:5 (in) global loads fetch 8.0 times the bytes they ask for (1.0 sectors of 32 bytes a "
                         "request, for 4 bytes");
    lines[0].op[GLOBAL_LD].bytes = 256 * 32, lines[1].op[GLOBAL_LD].bytes = 128 * 32;
    assert_int_equal(traffic_verdict(&c, &base, lines, 3, &sectors_rule, why, sizeof why), -1);
    assert_contains(why, "where at most 1.00 is allowed: every line's sectors hold little more than the bytes it asks "
                         "for, so it is the bytes themselves");
    assert_lacks(why, "k.cu");
}

/* A kernel that breaks two rules hears of both at once, not of one per fix. */
static void every_broken_rule_at_once(void **state)
{
    (void)state;
    char why[1200];
    struct mem_counts base = tile_counts(1024, 1024, 4), c = tile_counts(1024, 1024, 4);
    c.op[SHARED_LD].wavefronts = 64;
    c.op[GLOBAL_LD].wavefronts = 256;
    struct traffic_rules both = {.max_sector_ratio = 1.0, .no_conflicts = 1};
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &both, why, sizeof why), -1);
    assert_contains(why, "32 shared-memory bank conflicts where none are allowed; and 384 global memory sectors");
}

static void rules_kept_at_their_limits(void **state)
{
    (void)state;
    char why[400] = "";
    struct mem_counts base = tile_counts(1024, 1024, 4), c = tile_counts(256, 256, 16);
    struct traffic_rules all = {.max_sector_ratio = 1.0, .no_conflicts = 1, .min_loaded_between_barriers = 16, .max_barriers_per_thread = 1};
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &all, why, sizeof why), 0);
    /* No barrier at all, every thread loading its 16 bytes: kept; no rules: anything goes. */
    c = tile_counts(0, 256, 16);
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &all, why, sizeof why), 0);
    struct traffic_rules none = {0};
    c.op[SHARED_LD].wavefronts = 1000;
    assert_int_equal(traffic_verdict(&c, &base, NULL, 0, &none, why, sizeof why), 0);
}

/* Every count counts_named names is read back by counts_set_named to the same value (the record
 * a time model's fit reads, `workbook time-terms`), and a name no count has is refused. */
static void named_counts_read_back(void **state)
{
    (void)state;
    /* Every count a value of its own (the struct is counts alone: a count added to it and not
     * named would stay 0 when read back, and differ). */
    struct mem_counts c, back = {0};
    uint64_t *word = (uint64_t *)&c;
    for (size_t i = 0; i < sizeof c / sizeof *word; i++)
        word[i] = 1000 + i;
    struct named_count named[64];
    int n = counts_named(&c, named, 64);
    assert_true(n > 30);
    for (int i = 0; i < n; i++)
        assert_int_equal(counts_set_named(&back, named[i].key, named[i].value), 1);
    back.burst_threads = c.burst_threads; /* least_burst keeps whether, not how many, threads loaded */
    assert_memory_equal(&back, &c, sizeof c);
    assert_int_equal(counts_set_named(&back, "global_ld.nothing", 1), 0);
    /* No loading thread (-1) reads back as none. */
    assert_int_equal(counts_set_named(&back, "least_burst", -1), 1);
    assert_true(least_burst(&back) == -1.0);
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(derived_figures),
    cmocka_unit_test(named_counts_read_back),
    cmocka_unit_test(each_rule_fails_with_its_sentence),
    cmocka_unit_test(sampled_counts_scale_to_the_grid),
    cmocka_unit_test(sector_rule_names_its_cause),
    cmocka_unit_test(every_broken_rule_at_once),
    cmocka_unit_test(rules_kept_at_their_limits))
