/* Lesson 1's check: the naive matmul must be right at every size and must let a warp read B
 * coalesced (threadIdx.x walking a row of C), which the uncoalesced baseline does not. */
#include "check.h"

const struct lesson_spec lesson = {
    LESSON_CASES(MATMUL_CORRECTNESS(1), SPEED_N(2048, 5)),
    /* H200, median of 10 runs: the solution 12.93x, the uncoalesced baseline as student 1.00x (docs/measurements.md).
     * The threshold sits near their geometric middle. */
    .min_speedup = 3.0,
    .max_sector_ratio = 0.5,
    .baseline_is = "the uncoalesced naive kernel (checker/baselines/matmul_uncoalesced.cu)",
};
