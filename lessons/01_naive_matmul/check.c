/* Lesson 1's check: the naive matmul must be right at every size and must let a warp read B
 * coalesced (threadIdx.x walking a row of C), which the uncoalesced baseline does not. */
#include "check.h"

const struct lesson_spec lesson = {
    LESSON_CASES(MATMUL_CORRECTNESS(1), SPEED_N(2048, 5)),
    .baseline_is = "the uncoalesced naive kernel (checker/baselines/matmul_uncoalesced.cu)",
};
