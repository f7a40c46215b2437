/* Lesson 2's check: the tiled matmul must be right at sizes that are not multiples of the
 * tile, and clearly faster than lesson 1's naive kernel. */
#include "check.h"

const struct lesson_spec lesson = {
    LESSON_CASES(MATMUL_CORRECTNESS(2), SPEED_N(2048, 15)),
    .baseline_is = "lesson 1's naive kernel",
};
