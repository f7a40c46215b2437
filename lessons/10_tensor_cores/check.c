/* Lesson 10's check, the tensor-core tile: a half-precision GEMM on mma.sync fed by ldmatrix,
 * against lesson 8's SGEMM (float inputs of the same values, its own launch) and against
 * cuBLAS's half-precision GEMM (cublasGemmEx), timed in the same run. */
#include "check.h"

const struct lesson_spec lesson = {
    /* The sizes cross the 128 x 128 block, the 64-wide K-step and the 16-byte chunk at every
     * edge, and N % 8 != 0 takes the half-by-half copies. The stub's stand-in is already correct
     * (on the ordinary cores, its reads of A's tile in conflict), so being right earns nothing:
     * the points are the tensor cores' speed. */
    LESSON_CASES(MATMUL_128_CORRECTNESS, SPEED_N(4096, 30)),
    .baseline_is = "lesson 8's SGEMM (float inputs of the same values, 256 threads per 128x128 block)",
};
