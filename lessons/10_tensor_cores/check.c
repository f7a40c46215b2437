/* Lesson 10's check, the tensor-core tile: a half-precision GEMM on mma.sync fed by ldmatrix,
 * against lesson 8's SGEMM (float inputs of the same values, its own launch) and against
 * cuBLAS's half-precision GEMM (cublasGemmEx), timed in the same run. */
#include "check.h"

const struct lesson_spec lesson = {
    /* The stub is already correct (it must become faster): its correctness cases earn nothing. The
     * sizes cross the 128 x 128 block, the 64-wide K-step and the 16-byte chunk at every edge; N % 8
     * != 0 takes the half-by-half copies. */
    LESSON_CASES(MATMUL_128_CORRECTNESS, SPEED_N(4096, 30)),
    /* H200, 20 runs each (docs/measurements.md): the solution 5.55-5.63x lesson 8's SGEMM and
     * 29.7-34.7% of cuBLAS's half-precision GEMM; the swizzle with the row's low two bits only
     * (2-way conflicts) 4.29-4.34x and 22.9-25.0%; the unswizzled stub 1.59-1.61x and 8.5-10.0%.
     * The thresholds sit near the geometric middles of the solution and the 2-way swizzle (4.91x,
     * 27.2%): 4.9x and 27%. In the emulator: no bank conflicts (ldmatrix counted per phase of 8
     * rows, as Nsight Compute counts it), global sectors within 0.75 of lesson 8's (halves are half
     * the bytes: the solution is at 0.60 and 0.67; the stores of C are the same), and the product's
     * N^3 multiply-adds all by mma.sync, with float multiplies elsewhere at most 1% of them (the
     * solution: none). */
    .min_speedup = 4.9,
    .min_limit_share = 0.27,
    .max_sector_ratio = 0.75,
    .no_bank_conflicts = 1,
    .max_conflict_share = 0.01,
    .min_tensor_core_share = 1.0,
    .baseline_is = "lesson 8's SGEMM (float inputs of the same values, 256 threads per 128x128 block)",
};
