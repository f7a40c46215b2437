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
    .baseline_is = "lesson 7's block sum once per 256 elements (the stub, exercises/09_fast_reduction/slice_sum.cu)",
};
