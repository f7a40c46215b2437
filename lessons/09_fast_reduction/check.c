/* Lesson 9's check: slice sums at the memory's speed, against lesson 7's block sum run once per
 * 256 elements and against CUB's whole-array sum, timed in the same run. */
#include "check.h"

/* rows x cols: a single element, one short of and one past a slice, a row of several slices with a
 * short last one, every residue class (cols % 4 != 0 takes the float-by-float paths), a large
 * size; the stub is already correct (it must become faster). */
static const struct check_case cases[] = {
    CORRECT_RC(1, 1, 0), CORRECT_RC(1, 4095, 0), CORRECT_RC(3, 4097, 0), CORRECT_RC(5, 10001, 0),
    RESIDUES(0), CORRECT_RC(700, 9000, 0),
    SPEED_RC(8192, 8192, 25),
};

/* H200, 20 runs each (docs/measurements.md): the solution 2.26-2.31x the baseline and 105.5% of
 * CUB's sum; the loop kept rolled (slice_loads_one_at_a_time, 4 bytes in flight) 1.34x and 62.7%.
 * The thresholds are their geometric middles, rounded down: 1.74x and 81%. */
const struct lesson_spec lesson = {
    .min_speedup = 1.75,
    .min_limit_share = 0.80,
    .max_sector_ratio = 1.0,
    .no_bank_conflicts = 1,
    .min_loaded_between_barriers = 16,
    .max_barriers_per_thread = 2,
    .baseline_is = "lesson 7's block sum once per 256 elements (lessons/09_fast_reduction/slice_sum_per_step.cu)",
    CASES(cases),
};
