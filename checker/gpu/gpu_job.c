/* The child process's side of a check: runs the kernels of one test case on the GPU and
 * writes outputs, timings and failures into the shared job. Plain C on the CUDA runtime API;
 * the launches themselves are in launch.cu. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_job.h"

static const struct kernel_entry *const entries[ROLE_COUNT] = {&student_kernel, &solution_kernel, &baseline_kernel};
static const char *const role_names[ROLE_COUNT] = {"your kernel", "the reference solution", "the baseline kernel"};

/* Guard zone on each side of every device buffer: wide enough that reading or writing a row
 * or two past the end lands in it instead of in another buffer or an unmapped page. */
#define GUARD_ELEMS (64 * 1024)

struct dev_buffer {
    float *base;  /* the allocation: guard, data, guard */
    float *data;
    size_t elems;
};

static void fail(struct gpu_job *job, int role, cudaError_t err, const char *fmt, const char *what)
{
    job->rep.failed_role = role;
    job->rep.cuda_error = (int)err;
    snprintf(job->rep.failure, sizeof job->rep.failure, fmt, what, cudaGetErrorString(err));
}

/* A sentence for a failed launch or execution of a kernel. */
static void fail_kernel(struct gpu_job *job, int role, cudaError_t err, int at_launch)
{
    const char *who = role_names[role];
    const char *fmt;
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorInvalidAddressSpace: /* a wild pointer that landed in the shared-memory window */
        fmt = "%s accessed memory outside its buffers, beyond the guard zones around them (%s). "
              "Look at the index arithmetic and the bounds checks.";
        break;
    case cudaErrorMisalignedAddress:
        fmt = "%s made a misaligned access (%s): a pointer cast to a wider type at an address "
              "that is not a multiple of its size?";
        break;
    case cudaErrorLaunchOutOfResources:
        fmt = "%s cannot start with 1024 threads per block (%s): it needs too many registers per thread.";
        break;
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidValue:
        fmt = "%s cannot start with this launch configuration (%s): too much shared memory per block?";
        break;
    case cudaErrorAssert:
        fmt = "%s stopped at a failed device-side assert (%s).";
        break;
    default:
        fmt = at_launch ? "%s could not be launched (%s)." : "%s crashed while running (%s).";
        break;
    }
    fail(job, role, err, fmt, who);
}

static void fail_setup(struct gpu_job *job, cudaError_t err, const char *what)
{
    fail(job, -1, err, "%s failed (%s).", what);
}

static cudaError_t fill_guards(struct dev_buffer *b, const float *pattern)
{
    cudaError_t e = cudaMemcpy(b->base, pattern, GUARD_ELEMS * sizeof(float), cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(b->data + b->elems, pattern, GUARD_ELEMS * sizeof(float), cudaMemcpyHostToDevice);
    return e;
}

static cudaError_t alloc_guarded(struct dev_buffer *b, size_t elems, const float *pattern)
{
    b->elems = elems;
    cudaError_t e = cudaMalloc((void **)&b->base, (elems + 2 * GUARD_ELEMS) * sizeof(float));
    if (e != cudaSuccess)
        return e;
    b->data = b->base + GUARD_ELEMS;
    return fill_guards(b, pattern);
}

/* Counts guard elements that no longer hold the pattern, i.e. writes just outside the output. */
static cudaError_t check_guards(struct gpu_job *job, const struct dev_buffer *b, float *scratch)
{
    const float *zones[2] = {b->base, b->data + b->elems};
    const long first[2] = {-(long)GUARD_ELEMS, (long)b->elems};
    for (int z = 0; z < 2; z++) {
        cudaError_t e = cudaMemcpy(scratch, zones[z], GUARD_ELEMS * sizeof(float), cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            return e;
        guard_scan(scratch, GUARD_ELEMS, first[z], b->elems, &job->rep.guard_writes, &job->rep.first_guard_write);
    }
    return cudaSuccess;
}

static cudaError_t poison(struct dev_buffer *b)
{
    return cudaMemsetAsync(b->data, 0xFF, b->elems * sizeof(float), 0); /* POISON_BITS in every float */
}

/* Runs one role once into out and reports whether it failed. */
static int run_role(struct gpu_job *job, int role, const struct dev_buffer in[2], struct dev_buffer *out)
{
    cudaError_t e = poison(out);
    if (e != cudaSuccess) {
        fail_setup(job, e, "clearing the output");
        return -1;
    }
    e = (cudaError_t)entries[role]->launch(in[0].data, in[1].data, out->data, job->rows, job->cols);
    if (e != cudaSuccess) {
        fail_kernel(job, role, e, 1);
        return -1;
    }
    e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fail_kernel(job, role, e, 0);
        return -1;
    }
    return 0;
}

static int copy_out(struct gpu_job *job, int slot, const struct dev_buffer *out)
{
    cudaError_t e = cudaMemcpy(job_out(job, slot), out->data, job->out_elems * sizeof(float), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
        fail_setup(job, e, "copying the output back");
    return e == cudaSuccess ? 0 : -1;
}

/* Times every role rep times. Each launch starts with the L2 cache holding none of its data
 * (a write to a buffer twice the L2's size) and a poisoned output, and the roles take turns in
 * a rotating order so that drifting clocks favour none of them. */
static int time_roles(struct gpu_job *job, const struct dev_buffer in[2], struct dev_buffer out[ROLE_COUNT])
{
    size_t flush_bytes = 2 * (job->rep.l2_bytes > 0 ? job->rep.l2_bytes : (size_t)64 << 20);
    void *flush = NULL;
    cudaEvent_t start, stop;
    cudaError_t e = cudaMalloc(&flush, flush_bytes);
    if (e == cudaSuccess)
        e = cudaEventCreate(&start);
    if (e == cudaSuccess)
        e = cudaEventCreate(&stop);
    if (e != cudaSuccess) {
        fail_setup(job, e, "setting up the timer");
        return -1;
    }
    /* Warm-up: the first launches pay for loading the module and waking the clocks. */
    for (int w = 0; w < 2; w++)
        for (int r = 0; r < ROLE_COUNT; r++)
            if (role_present(r) && run_role(job, r, in, &out[r]) != 0)
                return -1;
    int reps = job->time_reps < MAX_REPS ? job->time_reps : MAX_REPS;
    for (int i = 0; i < reps; i++) {
        for (int k = 0; k < ROLE_COUNT; k++) {
            int r = (i + k) % ROLE_COUNT;
            if (!role_present(r))
                continue;
            cudaMemsetAsync(flush, i & 0xFF, flush_bytes, 0);
            poison(&out[r]);
            cudaEventRecord(start, 0);
            e = (cudaError_t)entries[r]->launch(in[0].data, in[1].data, out[r].data, job->rows, job->cols);
            if (e != cudaSuccess) {
                fail_kernel(job, r, e, 1);
                return -1;
            }
            cudaEventRecord(stop, 0);
            e = cudaEventSynchronize(stop);
            if (e != cudaSuccess) {
                fail_kernel(job, r, e, 0);
                return -1;
            }
            cudaEventElapsedTime(&job->rep.ms[r][i], start, stop);
        }
    }
    job->rep.reps = reps;
    return 0;
}

static int describe_device(struct gpu_job *job)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        snprintf(job->rep.failure, sizeof job->rep.failure, "%s",
                 e == cudaSuccess || e == cudaErrorNoDevice ? "no CUDA device is present"
                 : e == cudaErrorInsufficientDriver     ? "no NVIDIA driver is loaded, or it is older than this CUDA needs"
                                                        : cudaGetErrorString(e));
        job->rep.cuda_error = (int)e;
        return -1;
    }
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess)
        return -1;
    snprintf(job->rep.device, sizeof job->rep.device, "%s", p.name);
    job->rep.cc_major = p.major;
    job->rep.cc_minor = p.minor;
    job->rep.l2_bytes = (size_t)p.l2CacheSize;
    cudaDriverGetVersion(&job->rep.driver_version);
    cudaRuntimeGetVersion(&job->rep.runtime_version);
    return 0;
}

int gpu_job_run(void *arg)
{
    struct gpu_job *job = arg;
    job->rep.failed_role = -1;
    if (describe_device(job) != 0)
        return JOB_NO_GPU;
    for (int r = 0; r < ROLE_COUNT; r++) {
        if (!role_present(r))
            continue;
        cudaError_t e = (cudaError_t)entries[r]->attributes(&job->rep.static_smem[r], &job->rep.regs[r]);
        if (e != cudaSuccess) {
            /* No kernel image for this GPU, usually: built for another architecture. */
            fail(job, r, e, "%s cannot run on this GPU (%s): was it built for another GPU? `make clean` rebuilds for this one.",
                 role_names[r]);
            return JOB_SETUP_FAILED;
        }
    }
    if (!job->launch)
        return JOB_OK;

    float *pattern = malloc(GUARD_ELEMS * sizeof(float));
    if (!pattern)
        return JOB_SETUP_FAILED;
    for (size_t i = 0; i < GUARD_ELEMS; i++) {
        uint32_t bits = GUARD_BITS;
        memcpy(&pattern[i], &bits, sizeof bits);
    }
    struct dev_buffer in[2] = {{0}}, out[ROLE_COUNT] = {{0}};
    int n_in = job->family == FAMILY_MATMUL ? 2 : 1;
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < n_in && e == cudaSuccess; i++) {
        e = alloc_guarded(&in[i], job->in_elems[i], pattern);
        if (e == cudaSuccess)
            e = cudaMemcpy(in[i].data, job_in(job, i), job->in_elems[i] * sizeof(float), cudaMemcpyHostToDevice);
    }
    for (int r = 0; r < ROLE_COUNT && e == cudaSuccess; r++)
        e = alloc_guarded(&out[r], job->out_elems, pattern);
    if (e != cudaSuccess) {
        fail_setup(job, e, "allocating and filling the GPU buffers");
        return JOB_SETUP_FAILED;
    }

    /* The reference first: if the student's kernel then wrecks the GPU context, its output is kept. */
    int ref = reference_role();
    if (run_role(job, ref, in, &out[ref]) != 0 || copy_out(job, OUT_REFERENCE, &out[ref]) != 0)
        return JOB_KERNEL_FAILED;
    if (run_role(job, ROLE_STUDENT, in, &out[ROLE_STUDENT]) != 0)
        return JOB_KERNEL_FAILED;
    if (copy_out(job, OUT_STUDENT, &out[ROLE_STUDENT]) != 0 || check_guards(job, &out[ROLE_STUDENT], pattern) != cudaSuccess)
        return JOB_SETUP_FAILED;
    if (job->time_reps > 0) {
        if (job->rep.guard_writes > 0)
            return JOB_OK; /* a kernel that writes outside its output is not timed */
        if (time_roles(job, in, out) != 0)
            return JOB_KERNEL_FAILED;
        if (copy_out(job, OUT_STUDENT_TIMED, &out[ROLE_STUDENT]) != 0)
            return JOB_SETUP_FAILED;
    }
    return JOB_OK;
}

int gpu_run_plain(struct gpu_job *job, const int *roles, int nroles)
{
    const char *names[2][3] = {{"A", "B", "C"}, {"in", "", "out"}};
    const char *const *name = names[job->family == FAMILY_MATMUL ? 0 : 1];
    int n_in = job->family == FAMILY_MATMUL ? 2 : 1;
    float *in[2] = {NULL, NULL}, *out = NULL;
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < n_in && e == cudaSuccess; i++) {
        e = cudaMalloc((void **)&in[i], job->in_elems[i] * sizeof(float));
        if (e == cudaSuccess)
            e = cudaMemcpy(in[i], job_in(job, i), job->in_elems[i] * sizeof(float), cudaMemcpyHostToDevice);
    }
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&out, job->out_elems * sizeof(float));
    if (e != cudaSuccess) {
        fprintf(stderr, "allocating the GPU buffers failed: %s\n", cudaGetErrorString(e));
        return JOB_SETUP_FAILED;
    }
    for (int i = 0; i < n_in; i++)
        printf("wb-buffer %s %p %zu\n", name[i], (void *)in[i], job->in_elems[i] * sizeof(float));
    printf("wb-buffer %s %p %zu\n", name[2], (void *)out, job->out_elems * sizeof(float));
    fflush(stdout);
    for (int k = 0; k < nroles; k++) {
        int r = roles[k];
        e = (cudaError_t)entries[r]->launch(in[0], in[1], out, job->rows, job->cols);
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            fprintf(stderr, "%s failed: %s\n", role_names[r], cudaGetErrorString(e));
            return JOB_KERNEL_FAILED;
        }
    }
    return JOB_OK;
}
