/* Lesson 4's check: the padded transpose must be right and clearly faster than lesson 3's
 * unpadded one, whose column read is a 32-way bank conflict. */
#include "check.h"

const struct lesson_spec lesson = {
    LESSON_CASES(TRANSPOSE_CORRECTNESS(0), SPEED_RC(8192, 8192, 20)),
    .baseline_is = "lesson 3's unpadded transpose",
};
