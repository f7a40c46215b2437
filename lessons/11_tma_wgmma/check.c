/* Lesson 11's check, Hopper's own swizzle: a half-precision GEMM whose tiles the tensor memory
 * accelerator copies (128-byte swizzled, counted on mbarriers) and wgmma multiplies from shared
 * memory, against lesson 10's kernel (mma.sync fed by ldmatrix, its own launch) and cuBLAS's
 * half-precision GEMM (cublasGemmEx), timed in the same run. */
#include "check.h"

const struct lesson_spec lesson = {
    /* Sizes are multiples of 8 (a tensor map's rows are whole 16-byte units). They cross the
     * 64-wide K-step, the 128-row and 256-column block at every edge (120, 136, 264), the
     * residue classes of the family's grains rounded to 8, and the large size. The stub computes
     * nothing, so being right earns points: the pipeline, the descriptors and the store. */
    LESSON_CASES(CORRECT_N(8, 3), CORRECT_N(120, 3), CORRECT_N(136, 3), RESIDUES(3), CORRECT_N(264, 3),
                 CORRECT_N(1000, 0), SPEED_N(4096, 15)),
    .baseline_is = "lesson 10's kernel (mma.sync fed by ldmatrix, 256 threads per 128x128 block)",
};
