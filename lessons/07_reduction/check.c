/* Lesson 7's check: block sums without bank conflicts (sequential addressing) and with the
 * last steps in one warp (shuffles), against the strided-index tree whose accesses conflict. */
#include "check.h"

const struct lesson_spec lesson = {
    /* rows x cols: a single element, one short of and one past a slice, several rows with a short
     * last slice, and a large size; the stub is already correct (it must become faster). */
    LESSON_CASES(CORRECT_RC(1, 1, 0), CORRECT_RC(1, 255, 0), CORRECT_RC(3, 257, 0), CORRECT_RC(100, 1000, 0),
                 RESIDUES(0), CORRECT_RC(3000, 4000, 0), SPEED_RC(8192, 8192, 25)),
    .baseline_is = "the strided-index tree (the stub, exercises/07_reduction/block_sum.cu)",
};
