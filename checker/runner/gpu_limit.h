/* The GPU runner's yardsticks (family.h: struct limit): a vendor routine that does a family's
 * work, timed beside the kernels on the reference side. The runner knows routines by name,
 * not families. */
#ifndef WB_GPU_LIMIT_H
#define WB_GPU_LIMIT_H
#include <cuda_runtime_api.h>

#include "gpu_job.h"

#include <stddef.h>

/* Readies the routine the job's family names (cuBLAS is loaded only here, and only on the
 * reference side of a timed job); the reason in why on failure. */
cudaError_t limit_prepare(const struct gpu_job *job, char *why, size_t len);
/* One run of it on the job's inputs, on the current stream, into scratch (the output's size). */
cudaError_t limit_launch(const struct gpu_job *job, const void *in0, const void *in1, float *scratch);
/* Lets go of what limit_prepare made (cuBLAS's handle, CUB's scratch), before the runner
 * destroys its context: nothing of a library is left to touch the GPU after that. */
void limit_release(void);

/* CUB's whole-array sum (gpu_limit_cub.cu): its scratch space for n floats, then one run. */
#ifdef __cplusplus
extern "C" {
#endif
cudaError_t cub_sum_prepare(size_t n, void **temp, size_t *temp_bytes);
cudaError_t cub_sum(const float *in, size_t n, float *out, void *temp, size_t temp_bytes);
#ifdef __cplusplus
}
#endif

#endif
