/* Lesson 3's check: a transpose through a 32x32 shared tile, right at every shape (square or
 * not, partial tiles at every edge) and faster than the naive transpose's strided writes. */
#include "check.h"

const struct lesson_spec lesson = {
    LESSON_CASES(TRANSPOSE_CORRECTNESS(1), SPEED_RC(8192, 8192, 15)),
    /* H200, median of 10 runs: the solution 1.86x, the naive transpose as student 1.00x (docs/measurements.md).
     * The threshold sits near their geometric middle. */
    .min_speedup = 1.35,
    .max_sector_ratio = 0.5,
    .baseline_is = "the naive transpose (checker/baselines/transpose_naive.cu)",
};
