/* The GPU's runner: runs the kernels of one side of a test case (gpu_job.h) on the GPU and
 * writes outputs, timings and failures into the job. Plain C on the CUDA runtime API.
 *
 * Every kernel comes as a cubin, device code alone, loaded with cudaLibraryLoadFromFile and
 * looked up by its mangled name: no host code of a lesson file is ever compiled, so nothing a
 * student writes runs on the CPU. Usage (the judge starts it, the job on fd 3):
 *
 *   gpu-runner [--plain] student   CUBIN KERNEL
 *   gpu-runner [--plain] reference SOLUTION.cubin|- SOLUTION_KERNEL BASELINE.cubin BASELINE_KERNEL
 *   gpu-runner --plain   student   CUBIN KERNEL BASELINE.cubin BASELINE_KERNEL
 *
 * --plain: each role once without guard zones, for compute-sanitizer and Nsight Compute; the
 * job then comes in the file WB_JOB_FILE names. The last form runs the baseline and then the
 * student's kernel in one process, for one Nsight Compute run that starts one process. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "gpu_fingerprint.h"
#include "gpu_limit.h"
#include "gpu_turn.h"
#include "half.h"
#include "poison.h"
#include "runner.h"

const struct kernel_entry *runner_kernels[ROLE_COUNT];
#define entries runner_kernels
static const char *const role_names[ROLE_COUNT] = {"your kernel", "the reference solution", "the baseline kernel"};

/* Guard zone on each side of every device buffer: wide enough that reading or writing a row
 * or two past the end lands in it instead of in another buffer or an unmapped page. */
#define GUARD_ELEMS (64 * 1024)

struct dev_buffer {
    char *base;  /* the allocation: guard, data, guard */
    char *data;
    size_t elems, esize; /* elements, and bytes each: 4 (floats), or 2 (an input of halves) */
};

/* A side's inputs in each element type one of its roles takes (family.h): of[0][i] floats,
 * of[1][i] halves. Lesson 10's baseline, lesson 8's SGEMM, takes floats where the lesson's
 * kernels take halves of the same values. */
struct dev_inputs {
    struct dev_buffer of[2][2];
};
static const struct dev_buffer *inputs_for(const struct dev_inputs *in, const struct gpu_job *job, int role)
{
    return in->of[role_input_size(job, role) == 2];
}
/* Input i as role's kernel takes it, on the host: floats, or halves of them. */
static void host_input(struct gpu_job *job, int i, size_t esize, void *dst)
{
    if (esize == 2)
        floats_to_halves(job_in(job, i), dst, job->in_elems[i]);
    else
        memcpy(dst, job_in(job, i), job->in_elems[i] * sizeof(float));
}

/* What the student's buffers held, fingerprinted on the GPU (gpu_fingerprint.h) under a key
 * drawn afresh by each runner and never given to a kernel: each input, guard zones included,
 * before the first launch, and the first launch's output. After every timed launch the inputs and
 * the output are fingerprinted again; only when a fingerprint differs does a buffer come back to
 * the host to be compared in full (256 MB of a transpose's speed case: 55 ms each time). */
static struct {
    uint64_t key;
    uint64_t in[2], first;
    int have_in[2], have_first;
} prints;

static size_t guarded_bytes(const struct dev_buffer *b) { return (b->elems + 2 * GUARD_ELEMS) * b->esize; }

/* Fingerprints the buffer (whole: with its guard zones) into *fp; 1 if that worked. */
static int fingerprint(const struct dev_buffer *b, int whole, uint64_t *fp)
{
    return gpu_fingerprint(whole ? b->base : b->data, whole ? guarded_bytes(b) : b->elems * b->esize, prints.key,
                           fp) == 0;
}

/* 1 if the buffer certainly still holds what had the fingerprint `want` (have: it was taken);
 * 0 if it changed or the fingerprint failed: then the host compares. */
static int unchanged(const struct dev_buffer *b, int whole, int have, uint64_t want)
{
    uint64_t now;
    return have && fingerprint(b, whole, &now) && now == want;
}

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
    case cudaErrorLaunchOutOfResources: { /* (the block's size, from the family: its %s stay for fail) */
        static char sized[160];
        const struct family *f = job_role_family(job, role >= 0 ? role : ROLE_STUDENT);
        snprintf(sized, sizeof sized, "%%s cannot start with %d threads per block (%%s): it needs too many registers per "
                 "thread.", f ? f->block_x * f->block_y : 0);
        fmt = sized;
        break;
    }
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

/* The guard zones: the pattern's first GUARD_ELEMS elements' worth of bytes each. */
static cudaError_t fill_guards(struct dev_buffer *b, const float *pattern)
{
    cudaError_t e = cudaMemcpy(b->base, pattern, GUARD_ELEMS * b->esize, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(b->data + b->elems * b->esize, pattern, GUARD_ELEMS * b->esize, cudaMemcpyHostToDevice);
    return e;
}

static cudaError_t alloc_guarded(struct dev_buffer *b, size_t elems, size_t esize, const float *pattern)
{
    b->elems = elems;
    b->esize = esize;
    cudaError_t e = cudaMalloc((void **)&b->base, guarded_bytes(b));
    if (e != cudaSuccess)
        return e;
    b->data = b->base + GUARD_ELEMS * esize;
    return fill_guards(b, pattern);
}

/* Input i into its guarded buffer, as elements of b->esize bytes. */
static cudaError_t upload_input(struct gpu_job *job, int i, struct dev_buffer *b)
{
    void *host = malloc(b->elems * b->esize);
    if (!host)
        return cudaErrorMemoryAllocation;
    host_input(job, i, b->esize, host);
    cudaError_t e = cudaMemcpy(b->data, host, b->elems * b->esize, cudaMemcpyHostToDevice);
    free(host);
    return e;
}

/* Counts guard elements that no longer hold the pattern, i.e. writes just outside the output. */
static cudaError_t check_guards(struct gpu_job *job, const struct dev_buffer *b, float *scratch)
{
    const float *zones[2] = {(const float *)b->base, (const float *)b->data + b->elems}; /* an output: floats */
    const long first[2] = {-(long)GUARD_ELEMS, (long)b->elems};
    for (int z = 0; z < 2; z++) {
        cudaError_t e = cudaMemcpy(scratch, zones[z], GUARD_ELEMS * sizeof(float), cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            return e;
        guard_scan(scratch, GUARD_ELEMS, first[z], b->elems, &job->rep.guard_writes, &job->rep.first_guard_write);
    }
    return cudaSuccess;
}

/* Elements of input i (and of its guard zones) that no longer hold what was copied in. */
static cudaError_t count_input_writes(struct gpu_job *job, int i, const struct dev_buffer *b, const float *pattern)
{
    size_t n = b->elems + 2 * GUARD_ELEMS, es = b->esize;
    char *back = malloc(n * es), *want = malloc(n * es);
    cudaError_t e = back && want ? cudaSuccess : cudaErrorMemoryAllocation;
    if (e == cudaSuccess) {
        memcpy(want, pattern, GUARD_ELEMS * es);
        host_input(job, i, es, want + GUARD_ELEMS * es);
        memcpy(want + (GUARD_ELEMS + b->elems) * es, pattern, GUARD_ELEMS * es);
        e = cudaMemcpy(back, b->base, n * es, cudaMemcpyDeviceToHost);
    }
    for (size_t k = 0; e == cudaSuccess && k < n; k++)
        job->rep.input_writes += memcmp(back + k * es, want + k * es, es) != 0;
    free(back);
    free(want);
    return e;
}

static cudaError_t poison(struct dev_buffer *b)
{
    return cudaMemsetAsync(b->data, 0xFF, b->elems * b->esize, 0); /* POISON_BITS in every float */
}

/* Runs one role once into out and reports whether it failed. */
static int run_role(struct gpu_job *job, int role, const struct dev_inputs *inputs, struct dev_buffer *out)
{
    const struct dev_buffer *in = inputs_for(inputs, job, role);
    cudaError_t e = poison(out);
    if (e != cudaSuccess) {
        fail_setup(job, e, "clearing the output");
        return -1;
    }
    e = (cudaError_t)entries[role]->launch(entries[role], job, in[0].data, in[1].data, (float *)out->data);
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

/* The range each element of the student's output took over the timed launches whose output was
 * not the first's bit for bit (gpu_job.h: OUT_LATER_MIN, OUT_LATER_MAX), widened on the host in
 * the job itself: device memory kept from one launch to the next would be the student's kernel's
 * to overwrite, with the right values, on its last launch. Whether the range is right is the
 * judge's to say. A NaN, once in, stays (poison a launch left is seen as such). */
static void widen(float *lo, float *hi, const float *x, size_t n, int first)
{
    if (first) {
        memcpy(lo, x, n * sizeof *x);
        memcpy(hi, x, n * sizeof *x);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        if (lo[i] == lo[i])
            lo[i] = v != v || v < lo[i] ? v : lo[i];
        if (hi[i] == hi[i])
            hi[i] = v != v || v > hi[i] ? v : hi[i];
    }
}

/* Takes the output now on the device into the range, unless it is the first's bit for bit. */
static int widen_later(struct gpu_job *job, const struct dev_buffer *out)
{
    static float *scratch; /* pinned: the copy back runs at the bus's speed */
    static size_t have;
    if (unchanged(out, 0, prints.have_first, prints.first))
        return 0;
    size_t bytes = job->out_elems * sizeof *scratch;
    if (have < job->out_elems) {
        cudaFreeHost(scratch);
        scratch = NULL;
        have = cudaMallocHost((void **)&scratch, bytes) == cudaSuccess ? job->out_elems : 0;
    }
    cudaError_t e = scratch ? cudaMemcpy(scratch, out->data, bytes, cudaMemcpyDeviceToHost) : cudaErrorMemoryAllocation;
    if (e != cudaSuccess) {
        fail_setup(job, e, "copying a timed launch's output back");
        return -1;
    }
    widen(job_out(job, OUT_LATER_MIN), job_out(job, OUT_LATER_MAX), scratch, job->out_elems,
          job->rep.timed_differing == 0);
    job->rep.timed_differing++;
    return 0;
}

/* Times every role rep times. Each launch starts with the L2 cache holding none of its data
 * (a write to a buffer twice the L2's size) and a poisoned output, and the roles take turns in
 * a rotating order so that drifting clocks favour none of them. */
static int time_roles(struct gpu_job *job, const struct dev_inputs *inputs, struct dev_buffer out[ROLE_COUNT])
{
    /* The student's inputs, fingerprinted after each launch; the family's, for its yardstick. */
    const struct dev_buffer *student_in = inputs_for(inputs, job, ROLE_STUDENT),
                            *family_in = inputs->of[job_family(job)->input_half != 0];
    size_t flush_bytes = 2 * (job->rep.l2_bytes > 0 ? job->rep.l2_bytes : (size_t)64 << 20);
    void *flush = NULL, *scratch = NULL;
    cudaEvent_t start, stop;
    cudaError_t e = cudaMalloc(&flush, flush_bytes);
    /* The yardstick beside the kernels (the family's limit: a copy of the input, cuBLAS), on the
     * reference side, into a buffer of its own. */
    int time_limit = job->time_limit && entries[ROLE_BASELINE];
    if (e == cudaSuccess && time_limit) {
        char why[300];
        size_t bytes = (job->out_elems > job->in_elems[0] ? job->out_elems : job->in_elems[0]) * sizeof(float);
        e = cudaMalloc(&scratch, bytes);
        if (e == cudaSuccess && (e = limit_prepare(job, why, sizeof why)) != cudaSuccess) {
            fail(job, -1, e, "%s", why);
            return -1;
        }
    }
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
            if (entries[r] && run_role(job, r, inputs, &out[r]) != 0)
                return -1;
    int reps = job->time_reps < MAX_REPS ? job->time_reps : MAX_REPS;
    for (int i = 0; i < reps; i++) {
        for (int k = 0; k < ROLE_COUNT; k++) {
            int r = (i + k) % ROLE_COUNT;
            if (!entries[r])
                continue;
            cudaMemsetAsync(flush, i & 0xFF, flush_bytes, 0);
            poison(&out[r]);
            cudaEventRecord(start, 0);
            const struct dev_buffer *in = inputs_for(inputs, job, r);
            e = (cudaError_t)entries[r]->launch(entries[r], job, in[0].data, in[1].data, (float *)out[r].data);
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
            /* Every timed launch must be right, as the first was: a kernel that skipped work on
             * some launches (state kept in device memory it was not given, a string literal say)
             * would otherwise be timed doing less. And must leave its inputs as they were: a
             * kernel could keep its work in an input between launches and put the input back by
             * the last. Measured outside the timing, judged by the judge. */
            if (r != ROLE_STUDENT)
                continue;
            if (widen_later(job, &out[r]) != 0)
                return -1;
            for (int k = 0; k < job_family(job)->ninputs; k++)
                if (!unchanged(&student_in[k], 1, prints.have_in[k], prints.in[k])) {
                    job->rep.timed_input_changes++;
                    break;
                }
        }
        if (time_limit) {
            if (i == 0 && (e = limit_launch(job, family_in[0].data, family_in[1].data, scratch)) != cudaSuccess) { /* warm-up */
                fail_setup(job, e, "running the family's yardstick routine");
                return -1;
            }
            cudaMemsetAsync(flush, i & 0xFF, flush_bytes, 0);
            cudaEventRecord(start, 0);
            e = limit_launch(job, family_in[0].data, family_in[1].data, scratch);
            cudaEventRecord(stop, 0);
            if (e != cudaSuccess || (e = cudaEventSynchronize(stop)) != cudaSuccess) {
                fail_setup(job, e, "timing the family's yardstick routine");
                return -1;
            }
            cudaEventElapsedTime(&job->rep.limit_ms[i], start, stop);
        }
    }
    cudaFree(scratch);
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

/* The job's launches on buffers already filled: outputs, guards, timings, input writes. */
static int run_on_buffers(struct gpu_job *job, const struct dev_inputs *inputs, struct dev_buffer out[ROLE_COUNT],
                          float *pattern)
{
    int n_in = job_family(job)->ninputs;
    const struct dev_buffer *in = inputs_for(inputs, job, ROLE_STUDENT);
    if (role_in(job, ROLE_STUDENT)) {
        for (int i = 0; i < n_in; i++)
            prints.have_in[i] = fingerprint(&in[i], 1, &prints.in[i]);
        if (run_role(job, ROLE_STUDENT, inputs, &out[ROLE_STUDENT]) != 0)
            return JOB_KERNEL_FAILED;
        if (copy_out(job, OUT_STUDENT, &out[ROLE_STUDENT]) != 0 ||
            check_guards(job, &out[ROLE_STUDENT], pattern) != cudaSuccess)
            return JOB_SETUP_FAILED;
        prints.have_first = fingerprint(&out[ROLE_STUDENT], 0, &prints.first);
    } else {
        int ref = job_reference_role(job);
        if (run_role(job, ref, inputs, &out[ref]) != 0 || copy_out(job, OUT_REFERENCE, &out[ref]) != 0)
            return JOB_KERNEL_FAILED;
    }
    /* A kernel that writes outside its output is not timed. */
    if (job->time_reps > 0 && job->rep.guard_writes == 0) {
        if (turn_wait() != 0)
            return JOB_USAGE;
        if (time_roles(job, inputs, out) != 0)
            return JOB_KERNEL_FAILED;
        /* The range of the timed outputs is in the job already, unless each was the first's bit
         * for bit (the judge then has it). */
        job->rep.timed_same = role_in(job, ROLE_STUDENT) && job->rep.timed_differing == 0;
    }
    /* State kept in an input between launches would escape the output checks. */
    for (int i = 0; i < n_in && role_in(job, ROLE_STUDENT); i++)
        if (!unchanged(&in[i], 1, prints.have_in[i], prints.in[i]) &&
            count_input_writes(job, i, &in[i], pattern) != cudaSuccess)
            return JOB_SETUP_FAILED;
    return JOB_OK;
}

/* The element types this side's inputs are needed in (types[0] floats, types[1] halves): those
 * its kernels take, and the family's own for its yardstick routine. */
static void input_types(const struct gpu_job *job, int types[2])
{
    runner_input_types(job, types);
    if (job->time_limit)
        types[job_family(job)->input_half != 0] = 1;
}

int gpu_job_run(void *arg)
{
    struct gpu_job *job = arg;
    for (int r = 0; r < ROLE_COUNT; r++) {
        if (!entries[r])
            continue;
        cudaError_t e = (cudaError_t)entries[r]->attributes(entries[r], &job->rep.static_smem[r], &job->rep.regs[r]);
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
    struct dev_inputs inputs = {{{{0}}}};
    struct dev_buffer out[ROLE_COUNT] = {{0}};
    int n_in = job_family(job)->ninputs, types[2] = {0, 0};
    input_types(job, types);
    cudaError_t e = cudaSuccess;
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < n_in && types[t] && e == cudaSuccess; i++) {
            e = alloc_guarded(&inputs.of[t][i], job->in_elems[i], t ? 2 : 4, pattern);
            if (e == cudaSuccess)
                e = upload_input(job, i, &inputs.of[t][i]);
        }
    for (int r = 0; r < ROLE_COUNT && e == cudaSuccess; r++)
        if (entries[r])
            e = alloc_guarded(&out[r], job->out_elems, sizeof(float), pattern);
    if (e != cudaSuccess) {
        fail_setup(job, e, "allocating and filling the GPU buffers");
        return JOB_SETUP_FAILED;
    }

    int rc = run_on_buffers(job, &inputs, out, pattern);
    /* A batch's next job allocates its own (a job in a batch runs as it would alone). */
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < 2; i++)
            cudaFree(inputs.of[t][i].base);
    for (int r = 0; r < ROLE_COUNT; r++)
        cudaFree(out[r].base);
    free(pattern);
    return rc;
}

int gpu_run_plain(struct gpu_job *job, int first)
{
    const struct family *f = job_family(job);
    int n_in = f->ninputs, types[2] = {0, 0};
    input_types(job, types);
    void *in[2][2] = {{NULL, NULL}, {NULL, NULL}}; /* [halves][input], as struct dev_inputs */
    float *out = NULL;
    cudaError_t e = cudaSuccess;
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < n_in && types[t] && e == cudaSuccess; i++) {
            struct dev_buffer b = {NULL, NULL, job->in_elems[i], t ? 2 : 4}; /* no guard zones */
            e = cudaMalloc(&in[t][i], b.elems * b.esize);
            if (e == cudaSuccess)
                b.base = b.data = in[t][i], e = upload_input(job, i, &b);
        }
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&out, job->out_elems * sizeof(float));
    if (e != cudaSuccess) {
        fprintf(stderr, "allocating the GPU buffers failed: %s\n", cudaGetErrorString(e));
        return JOB_SETUP_FAILED;
    }
    /* An input in the type the family does not take (a baseline's floats) is named so: "A_float". */
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < n_in && types[t]; i++)
            printf("wb-buffer %s%s %p %zu\n", f->input_names[i], t == (f->input_half != 0) ? "" : t ? "_half" : "_float",
                   in[t][i], job->in_elems[i] * (t ? 2 : 4));
    printf("wb-buffer %s %p %zu\n", f->output_name, (void *)out, job->out_elems * sizeof(float));
    fflush(stdout);
    /* The launches a tool counts have the GPU alone; their setup did not need it. */
    if (first && turn_wait() != 0)
        return JOB_USAGE;
    /* The workbook's kernels first: the student's, run last, can touch nothing a tool measured of them. */
    static const int order[ROLE_COUNT] = {ROLE_BASELINE, ROLE_SOLUTION, ROLE_STUDENT};
    for (int k = 0; k < ROLE_COUNT; k++) {
        int r = order[k];
        if (!entries[r])
            continue;
        int t = role_input_size(job, r) == 2;
        e = (cudaError_t)entries[r]->launch(entries[r], job, in[t][0], in[t][1], out);
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            fprintf(stderr, "%s failed: %s\n", role_names[r], cudaGetErrorString(e));
            return JOB_KERNEL_FAILED;
        }
    }
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < n_in; i++)
            cudaFree(in[t][i]);
    cudaFree(out);
    return JOB_OK;
}

/* ---- the kernels, from cubins ---- */

struct loaded_kernel {
    struct kernel_entry entry; /* first: launch_loaded gets the loaded_kernel as its entry */
    char name[128];
    const struct family *family; /* the one it is written for, whose launch it gets */
};

/* ---- tensor maps (lesson 11: family.h's input_box) ---- */

typedef CUresult (*encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                    const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                    CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* The map of input k, n x n halves at base, as family f gives it: boxes of input_box[k], swizzled,
 * zeros outside (the driver's cuTensorMapEncodeTiled, reached through the runtime: no -lcuda). */
static cudaError_t encode_map(const struct family *f, int k, const void *base, int n, CUtensorMap *map)
{
    static encode_tiled_fn encode;
    if (!encode) {
        enum cudaDriverEntryPointQueryResult found;
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000,
                                                         cudaEnableDefault, &found);
        if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || !encode)
            return e != cudaSuccess ? e : cudaErrorSymbolNotFound;
    }
    cuuint64_t dims[2] = {(cuuint64_t)n, (cuuint64_t)n}, strides[1] = {(cuuint64_t)n * 2};
    cuuint32_t box[2] = {(cuuint32_t)f->input_box[k].cols, (cuuint32_t)f->input_box[k].rows}, step[2] = {1, 1};
    CUtensorMapSwizzle swizzle = f->tensor_swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                 : f->tensor_swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                 : f->tensor_swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                           : CU_TENSOR_MAP_SWIZZLE_NONE;
    CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, (void *)base, dims, strides, box, step,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

/* The family's arguments: its inputs (pointers, or tensor maps over them), the output, then rows
 * (and cols). */
static int launch_loaded(const struct kernel_entry *k, const struct gpu_job *job, const void *in0, const void *in1,
                         float *out)
{
    const struct family *f = ((const struct loaded_kernel *)k)->family;
    int rows = job->rows, cols = job->cols, n = 0;
    unsigned g[2];
    family_grid(f, rows, cols, g);
    dim3 block = {(unsigned)f->block_x, (unsigned)f->block_y, 1}, grid = {g[0], g[1], 1};
    void *args[6];
    /* The maps of the last launch, kept: encoding is host work, between a timed launch's events. */
    static struct {
        const void *in[2];
        int n;
        CUtensorMap map[2];
    } maps;
    if (f->input_box[0].cols > 0) {
        if (f->size_step > 1 && rows % f->size_step)
            return (int)cudaErrorInvalidValue;
        if (maps.in[0] != in0 || maps.in[1] != in1 || maps.n != rows) {
            const void *in[2] = {in0, in1};
            for (int i = 0; i < f->ninputs; i++) {
                cudaError_t e = encode_map(f, i, in[i], rows, &maps.map[i]);
                if (e != cudaSuccess)
                    return (int)e;
            }
            maps.in[0] = in0, maps.in[1] = in1, maps.n = rows;
        }
        args[n++] = &maps.map[0];
        if (f->ninputs > 1)
            args[n++] = &maps.map[1];
    } else {
        args[n++] = &in0;
        if (f->ninputs > 1)
            args[n++] = &in1;
    }
    args[n++] = &out;
    args[n++] = &rows;
    if (f->nscalars > 1)
        args[n++] = &cols;
    return (int)cudaLaunchKernel(k->handle, grid, block, args, (size_t)f->dynamic_shared, 0);
}

static int attributes_loaded(const struct kernel_entry *k, size_t *static_smem, int *regs)
{
    struct cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, k->handle);
    if (e == cudaSuccess) {
        *static_smem = a.sharedSizeBytes;
        *regs = a.numRegs;
    }
    return (int)e;
}

/* Loads the kernel `name` of family f from a cubin; NULL with the reason in the job. */
static const struct kernel_entry *load_kernel(struct gpu_job *job, int role, const char *path, const char *name)
{
    static struct loaded_kernel loaded[ROLE_COUNT];
    struct loaded_kernel *lk = &loaded[role];
    cudaLibrary_t lib;
    cudaKernel_t kernel;
    lk->family = job_role_family(job, role);
    if (!lk->family) {
        fail(job, role, cudaErrorInvalidValue, "%s is written for a family this runner does not know.", role_names[role]);
        return NULL;
    }
    if (family_kernel_symbol(lk->family, name, lk->name, sizeof lk->name) != 0) { /* _Z12matmul_naivePKfS0_Pfi */
        fail(job, role, cudaErrorInvalidValue, "%s is written for a family with a parameter type the runner cannot "
             "name (%s).", role_names[role]);
        return NULL;
    }
    /* wgmma and the tensor maps' copies as sm_90a builds them run on compute capability 9.0 alone. */
    if (lk->family->sm_90a && !(job->rep.cc_major == 9 && job->rep.cc_minor == 0)) {
        snprintf(job->rep.failure, sizeof job->rep.failure,
                 "%s is built for sm_90a: wgmma and the tensor memory accelerator's copies, which only a GPU of compute "
                 "capability 9.0 runs (H100, H200). This GPU, %s, is %d.%d: `make check EMU=1` grades the lesson in the "
                 "emulator, which runs them.", role_names[role], job->rep.device, job->rep.cc_major, job->rep.cc_minor);
        job->rep.failed_role = role;
        job->rep.cuda_error = (int)cudaErrorNoKernelImageForDevice;
        return NULL;
    }
    cudaError_t e = cudaLibraryLoadFromFile(&lib, path, NULL, NULL, 0, NULL, NULL, 0);
    if (e != cudaSuccess) {
        fail(job, role, e, "%s cannot be loaded on this GPU (%s): was it built for another GPU? `make clean` rebuilds "
                           "for this one.", role_names[role]);
        return NULL;
    }
    e = cudaLibraryGetKernel(&kernel, lib, lk->name);
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidKernelImage) { /* loaded lazily: found here */
        fail(job, role, e, "%s's cubin is for another GPU than this one (%s)", role_names[role]);
        return NULL;
    }
    if (e != cudaSuccess) {
        fail(job, role, e, "%s has no kernel with the contract's name and parameters (%s).", role_names[role]);
        return NULL;
    }
    if (lk->family->dynamic_shared > 0 &&
        (e = cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             lk->family->dynamic_shared, 0)) != cudaSuccess) {
        fail(job, role, e, "%s cannot have the launch's dynamic shared memory (%s): with its own static shared "
                           "memory it needs more than a block may have.", role_names[role]);
        return NULL;
    }
    lk->entry = (struct kernel_entry){lk->name, launch_loaded, attributes_loaded, (void *)kernel};
    return &lk->entry;
}

/* The jobs: on fds 3, 4, ..., or (under a tool, which may not pass descriptors on) in the files
 * WB_JOB_FILE lists. Returns how many were mapped (0: none, or not as many as n). */
static int map_jobs(int n, struct gpu_job **jobs)
{
    const char *list = getenv("WB_JOB_FILE");
    if (!(list && *list)) {
        for (int k = 0; k < n; k++)
            if (!(jobs[k] = runner_map_job(3 + k)))
                return 0;
        return n;
    }
    char files[4096];
    snprintf(files, sizeof files, "%s", list);
    int k = 0;
    for (char *save, *f = strtok_r(files, ":", &save); f && k < MAX_BATCH; f = strtok_r(NULL, ":", &save)) {
        int fd = open(f, O_RDWR);
        if (!(jobs[k++] = runner_map_job(fd)))
            return 0;
    }
    return k;
}

int main(int argc, char **argv)
{
    int plain = argc > 1 && strcmp(argv[1], "--plain") == 0;
    argv += plain;
    argc -= plain;
    int n = runner_batch(&argc, &argv);
    int turn = argc > 1 && strcmp(argv[1], "--turn") == 0;
    if (turn)
        argv[1] = argv[0], argv++, argc--;
    struct gpu_job *jobs[MAX_BATCH];
    if (n > 0)
        n = map_jobs(n, jobs);
    turn_attach(turn ? 3 + n : -1);
    signal(SIGPIPE, SIG_IGN); /* a judge gone: a write fails, the runner says so and ends */
    if (getrandom(&prints.key, sizeof prints.key, 0) != sizeof prints.key)
        prints.key = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
    int student = (argc == 4 || (plain && argc == 6)) && strcmp(argv[1], "student") == 0;
    int reference = argc == 6 && strcmp(argv[1], "reference") == 0;
    if (n == 0 || !(student || reference)) {
        fprintf(stderr, "usage: gpu-runner [--plain] [--jobs=N] [--turn] student CUBIN KERNEL | reference "
                        "SOLUTION.cubin|- KERNEL BASELINE.cubin KERNEL | --plain student CUBIN KERNEL BASELINE.cubin "
                        "KERNEL (the jobs on fds 3, 4, ...; with --turn, the fd after them is its turn with the GPU "
                        "alone: gpu_turn.h)\n");
        return JOB_USAGE;
    }
    /* Which roles, from which files. */
    const char *paths[ROLE_COUNT] = {0}, *names[ROLE_COUNT] = {0};
    if (student) {
        paths[ROLE_STUDENT] = argv[2], names[ROLE_STUDENT] = argv[3];
        if (argc == 6)
            paths[ROLE_BASELINE] = argv[4], names[ROLE_BASELINE] = argv[5];
    } else {
        if (strcmp(argv[2], "-") != 0)
            paths[ROLE_SOLUTION] = argv[2], names[ROLE_SOLUTION] = argv[3];
        paths[ROLE_BASELINE] = argv[4], names[ROLE_BASELINE] = argv[5];
    }
    for (int k = 0; k < n; k++) {
        struct gpu_job *job = jobs[k];
        job->rep.failed_role = -1;
        if (describe_device(job) != 0)
            return JOB_NO_GPU;
        for (int r = 0; r < ROLE_COUNT && k == 0; r++) /* a batch is one lesson's: its kernels load once */
            if (paths[r] && role_in(job, r) && !(entries[r] = load_kernel(job, r, paths[r], names[r])))
                return JOB_SETUP_FAILED;
        int rc = plain ? gpu_run_plain(job, k == 0) : gpu_job_run(job);
        if (rc != JOB_OK)
            return rc;
        job->rep.finished = 1;
    }
    /* The GPU alone no longer needed: the context ends inside the turn, so that no launch, buffer
     * or context of it is on the GPU beside the next one's timing; the process's exit and a
     * tool's report come after. */
    limit_release();
    if (turn_taken() && cudaDeviceReset() == cudaSuccess)
        turn_done();
    return JOB_OK;
}
