/* Lesson 10's check, the tensor-core tile: a half-precision GEMM on mma.sync fed by ldmatrix,
 * against lesson 8's SGEMM (float inputs of the same values, its own launch) and against
 * cuBLAS's half-precision GEMM (cublasGemmEx), timed in the same run. */
#include "check.h"

const struct lesson_spec lesson = {
    /* The sizes of MATMUL_128_CORRECTNESS (check.h): they cross the 128 x 128 block, the 64-wide
     * K-step and the 16-byte chunk at every edge, and N % 8 != 0 takes the half-by-half copies.
     * The stub computes nothing, so being right earns points here (8 of 30: a tile right but
     * with its ldmatrix reads in conflict earns them, and not the speed's). */
    LESSON_CASES(CORRECT_N(1, 1), CORRECT_N(7, 1), CORRECT_N(112, 2), RESIDUES(2), CORRECT_N(257, 2),
                 CORRECT_N(1000, 0), SPEED_N(4096, 22)),
    .baseline_is = "lesson 8's SGEMM (float inputs of the same values, 256 threads per 128x128 block)",
};
