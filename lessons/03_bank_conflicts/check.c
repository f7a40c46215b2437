/* Lesson 3's check: a transpose through a 32x32 shared tile, right at every shape (square or
 * not, partial tiles at every edge) and faster than the naive transpose's strided writes. */
#include "check.h"

const struct lesson_spec lesson = {
    LESSON_CASES(TRANSPOSE_CORRECTNESS(0), SPEED_RC(8192, 8192, 20)),
    .baseline_is = "the naive transpose (checker/baselines/transpose_naive.cu)",
};
