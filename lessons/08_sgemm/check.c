/* Lesson 8's check, the capstone: a register-blocked SGEMM against lesson 2's tiled kernel
 * (launched with its own 32 x 32 threads) and against cuBLAS's SGEMM, timed in the same run. */
#include "check.h"

const struct lesson_spec lesson = {
    /* The stub is already correct (it must become faster): its correctness cases earn nothing. The
     * sizes cross the 128 x 128 block and the 8-wide K-step at every edge, and N % 4 != 0 takes the
     * float-by-float paths. */
    LESSON_CASES(MATMUL_128_CORRECTNESS, SPEED_N(4096, 30)),
    .baseline_is = "lesson 2's tiled kernel (32x32 threads, one element of C each)",
};
