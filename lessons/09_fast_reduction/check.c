/* Lesson 9's check: slice sums at the memory's speed, against lesson 7's block sum run once per
 * 256 elements and against CUB's whole-array sum, timed in the same run. */
#include "check.h"

const struct lesson_spec lesson = {
    /* rows x cols: a single element, one short of and one past a slice, rows of 16-byte aligned whole
     * slices each followed by a short one (3 x 5000; 100 x 4100, the first with 64 rows or more, is
     * where compute-sanitizer runs), a row of several slices with a short last one on no 16-byte
     * boundary (5 x 10001), every residue class (cols % 4 != 0 takes the float-by-float paths), a
     * large size; the stub is already correct (it must become faster). */
    LESSON_CASES(CORRECT_RC(1, 1, 0), CORRECT_RC(1, 4095, 0), CORRECT_RC(3, 4097, 0), CORRECT_RC(3, 5000, 0),
                 CORRECT_RC(5, 10001, 0), RESIDUES(0), CORRECT_RC(100, 4100, 0), CORRECT_RC(700, 9000, 0),
                 SPEED_RC(8192, 8192, 25)),
    /* H200, 20 runs each (docs/measurements.md): the solution 2.26-2.31x the baseline and 105.5% of
     * CUB's sum; the loop kept rolled (slice_loads_one_at_a_time, 4 bytes in flight) 1.34x and 62.7%.
     * The thresholds sit near their geometric middles (1.74-1.75x, 81%): 1.75x and 80%. In the
     * emulator: the loads' bytes in flight (the stub: 4) and the barriers (the stub: 32; lesson 7's
     * three-barrier block sum once per slice is as fast as one); sectors within 5% of the baseline's,
     * since a block may add its warps' sums into out with atomics (8 a block, each a read and a
     * write: 3% more) where the baseline stores once. */
    .min_speedup = 1.75,
    .min_limit_share = 0.80,
    .max_sector_ratio = 1.05,
    .no_bank_conflicts = 1,
    .min_loaded_between_barriers = 16,
    .max_barriers_per_thread = 4,
    .baseline_is = "lesson 7's block sum once per 256 elements (the stub, exercises/09_fast_reduction/slice_sum.cu)",
};
