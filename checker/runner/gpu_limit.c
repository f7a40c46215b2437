/* The yardstick routines (gpu_limit.h): a copy, cuBLAS's SGEMM and half-precision GEMM, CUB's sum. cuBLAS is opened with
 * dlopen when a job asks for it: every runner process would otherwise pay for loading the
 * library, the student's included. */
#include "gpu_limit.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cublas_v2.h>

#include "runner.h"

#ifndef WB_CUBLAS_LIB
#define WB_CUBLAS_LIB "libcublas.so"
#endif

static struct {
    cublasHandle_t handle;
    cublasStatus_t (*destroy)(cublasHandle_t);
    cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float *,
                            const float *, int, const float *, int, const float *, float *, int);
    cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
                              const void *, cudaDataType, int, const void *, cudaDataType, int, const void *, void *,
                              cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
} blas;

static cudaError_t open_cublas(char *why, size_t len)
{
    if (blas.sgemm)
        return cudaSuccess;
    void *lib = dlopen(WB_CUBLAS_LIB, RTLD_NOW | RTLD_LOCAL);
    cublasStatus_t (*create)(cublasHandle_t *) = lib ? (cublasStatus_t(*)(cublasHandle_t *))dlsym(lib, "cublasCreate_v2") : NULL;
    cublasStatus_t (*math)(cublasHandle_t, cublasMath_t) =
        lib ? (cublasStatus_t(*)(cublasHandle_t, cublasMath_t))dlsym(lib, "cublasSetMathMode") : NULL;
    if (lib) {
        *(void **)&blas.sgemm = dlsym(lib, "cublasSgemm_v2");
        *(void **)&blas.gemm_ex = dlsym(lib, "cublasGemmEx");
        *(void **)&blas.destroy = dlsym(lib, "cublasDestroy_v2");
    }
    if (!create || !math || !blas.sgemm || !blas.gemm_ex || !blas.destroy) {
        snprintf(why, len, "cuBLAS could not be loaded (%s): %s", WB_CUBLAS_LIB, lib ? "a routine is missing" : dlerror());
        blas.sgemm = NULL;
        return cudaErrorSharedObjectInitFailed;
    }
    /* Plain fp32 for the SGEMM, as the kernels compute: no TF32 tensor cores (halves with a float
     * sum, cublasGemmEx's, run on the tensor cores under this mode all the same). */
    if (create(&blas.handle) != CUBLAS_STATUS_SUCCESS || math(blas.handle, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, len, "cuBLAS would not start on this GPU");
        blas.sgemm = NULL;
        return cudaErrorSharedObjectInitFailed;
    }
    return cudaSuccess;
}

static struct {
    void *temp;
    size_t bytes;
} cub;

cudaError_t limit_prepare(const struct gpu_job *job, char *why, size_t len)
{
    const char *routine = job_family(job)->limit.routine;
    if (strcmp(routine, "cudaMemcpy") == 0)
        return cudaSuccess;
    if (strcmp(routine, "cublasSgemm") == 0 || strcmp(routine, "cublasGemmEx") == 0)
        return open_cublas(why, len);
    if (strcmp(routine, "cub::DeviceReduce::Sum") == 0) {
        cudaError_t e = cub.temp ? cudaSuccess : cub_sum_prepare(job->in_elems[0], &cub.temp, &cub.bytes);
        if (e != cudaSuccess)
            snprintf(why, len, "CUB's sum would not start on %zu floats: %s", job->in_elems[0], cudaGetErrorString(e));
        return e;
    }
    snprintf(why, len, "no routine %s in this runner", routine);
    return cudaErrorInvalidValue;
}

cudaError_t limit_launch(const struct gpu_job *job, const void *in0, const void *in1, float *scratch)
{
    const char *routine = job_family(job)->limit.routine;
    if (strcmp(routine, "cudaMemcpy") == 0)
        return cudaMemcpyAsync(scratch, in0, job->in_elems[0] * sizeof(float), cudaMemcpyDeviceToDevice, 0);
    if (strcmp(routine, "cub::DeviceReduce::Sum") == 0)
        return cub_sum(in0, job->in_elems[0], scratch, cub.temp, cub.bytes);
    /* Row-major C = A B is column-major C^T = B^T A^T: B goes first. */
    const float one = 1.0f, zero = 0.0f;
    int n = job->rows;
    cublasStatus_t s =
        strcmp(routine, "cublasGemmEx") == 0
            ? blas.gemm_ex(blas.handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, in1, CUDA_R_16F, n, in0, CUDA_R_16F, n,
                           &zero, scratch, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)
            : blas.sgemm(blas.handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, in1, n, in0, n, &zero, scratch, n);
    return s == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

void limit_release(void)
{
    if (blas.sgemm && blas.destroy(blas.handle) == CUBLAS_STATUS_SUCCESS)
        blas.sgemm = NULL;
    if (cub.temp && cudaFree(cub.temp) == cudaSuccess)
        cub.temp = NULL;
}
