/* Lesson 6's check: the coarsened transpose (32 x 8 threads, a 32 x 32 tile, four elements
 * each) against lesson 5's one-element-per-thread kernel and against cudaMemcpy itself. */
#include "check.h"

const struct lesson_spec lesson = {
    /* The stub (lesson 4's kernel under the 32 x 8 launch) is right at 1 x 1 only: worth 0 there. */
    LESSON_CASES(TRANSPOSE_CORRECTNESS_1X1(0, 1), SPEED_RC(8192, 8192, 21)),
    .baseline_is = "lesson 5's swizzled transpose (32x32 threads, one element each)",
};
