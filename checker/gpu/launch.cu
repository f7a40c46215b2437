/* The one place where lesson kernels are launched. This file is compiled once per role
 * (student, solution, baseline), each time with a different kernel file included into its
 * own namespace, so the three kernels can share a name and still live in one program:
 *
 *   nvcc -DWB_ROLE=student -DWB_KERNEL=transpose_padded -DWB_SOURCE='"work/04_padding/transpose_padded.cu"'
 *        -DWB_FAMILY_TRANSPOSE -c checker/gpu/launch.cu
 *
 * Lesson files hold kernels only: no includes, no host code, no <<<>>>. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

extern "C" {
#include "gpu_job.h"
}

#define WB_CAT_(a, b) a##b
#define WB_CAT(a, b) WB_CAT_(a, b)
#define WB_STR_(a) #a
#define WB_STR(a) WB_STR_(a)

namespace WB_ROLE {
#include WB_SOURCE
}

/* Every lesson uses 32 x 32 threads per block, one thread per output element of a 32 x 32 tile. */
static const int BLOCK = 32;

static int launch(const float *in0, const float *in1, float *out, int rows, int cols)
{
    dim3 block(BLOCK, BLOCK);
    /* blockIdx.x walks columns, blockIdx.y rows; rounded up so partial tiles get a block. */
    dim3 grid((cols + BLOCK - 1) / BLOCK, (rows + BLOCK - 1) / BLOCK);
#if defined(WB_FAMILY_MATMUL)
    (void)cols;
    WB_ROLE::WB_KERNEL<<<grid, block>>>(in0, in1, out, rows);
#elif defined(WB_FAMILY_TRANSPOSE)
    (void)in1;
    WB_ROLE::WB_KERNEL<<<grid, block>>>(in0, out, rows, cols);
#else
#error "define WB_FAMILY_MATMUL or WB_FAMILY_TRANSPOSE"
#endif
    return (int)cudaGetLastError();
}

static int attributes(size_t *static_smem, int *regs)
{
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, WB_ROLE::WB_KERNEL);
    if (e == cudaSuccess) {
        *static_smem = a.sharedSizeBytes;
        *regs = a.numRegs;
    }
    return (int)e;
}

extern "C" const struct kernel_entry WB_CAT(WB_ROLE, _kernel) = {
    WB_STR(WB_KERNEL), WB_SOURCE, launch, attributes,
};
