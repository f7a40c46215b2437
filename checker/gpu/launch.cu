/* The one place where lesson kernels are launched. This file is compiled once per role
 * (student, solution, baseline), each time with a different kernel file included into its
 * own namespace, so the three kernels can share a name and still live in one program:
 *
 *   nvcc -DWB_ROLE=student -DWB_KERNEL=transpose_padded -DWB_SOURCE='"work/04_padding/transpose_padded.cu"'
 *        -DWB_FAMILY_TRANSPOSE -c checker/gpu/launch.cu
 *
 * The same file builds for the CPU emulator with clang++ and checker/emu/cuda_emu.h included
 * first (-DWB_EMULATOR): then a launch runs every thread as a fiber on the CPU.
 *
 * Lesson files hold kernels only: no includes, no host code, no <<<>>>. */
#ifndef WB_EMULATOR
#include <cuda_runtime.h>
#endif
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

#if defined(WB_FAMILY_MATMUL)
#define WB_ARGS in0, in1, out, rows
#elif defined(WB_FAMILY_TRANSPOSE)
#define WB_ARGS in0, out, rows, cols
#else
#error "define WB_FAMILY_MATMUL or WB_FAMILY_TRANSPOSE"
#endif

#ifdef WB_EMULATOR
/* The emulator's bounds of this role's __shared__ variables (weak: a kernel may have none). */
extern "C" char WB_CAT(__start_wb_shared_, WB_ROLE)[] __attribute__((weak));
extern "C" char WB_CAT(__stop_wb_shared_, WB_ROLE)[] __attribute__((weak));
#define WB_SHARED_BEGIN WB_CAT(__start_wb_shared_, WB_ROLE)
#define WB_SHARED_END WB_CAT(__stop_wb_shared_, WB_ROLE)
#endif

static int launch(const float *in0, const float *in1, float *out, int rows, int cols)
{
    dim3 block(BLOCK, BLOCK);
    /* blockIdx.x walks columns, blockIdx.y rows; rounded up so partial tiles get a block. */
    dim3 grid((cols + BLOCK - 1) / BLOCK, (rows + BLOCK - 1) / BLOCK);
    (void)in1;
    (void)cols;
#ifdef WB_EMULATOR
    auto body = [&]() { WB_ROLE::WB_KERNEL(WB_ARGS); };
    return emu_launch(grid, block, WB_SHARED_BEGIN, WB_SHARED_END,
                      [](void *f) { (*static_cast<decltype(body) *>(f))(); }, &body);
#else
    WB_ROLE::WB_KERNEL<<<grid, block>>>(WB_ARGS);
    return (int)cudaGetLastError();
#endif
}

#ifdef WB_EMULATOR
static int attributes(size_t *static_smem, int *regs)
{
    *static_smem = (size_t)(WB_SHARED_END - WB_SHARED_BEGIN);
    *regs = 0;
    return 0;
}
#else
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
#endif

extern "C" const struct kernel_entry WB_CAT(WB_ROLE, _kernel) = {
    WB_STR(WB_KERNEL), WB_SOURCE, launch, attributes,
};
