/* What the checker asks of the GPU, and what comes back. A job lives in memory shared between
 * the checker (which writes inputs and reads results) and a child process (which runs the
 * kernels), so a kernel that crashes or hangs takes only the child down. */
#ifndef WB_GPU_JOB_H
#define WB_GPU_JOB_H
#include <stddef.h>

#include "compare.h"
#include "counts.h"

enum role { ROLE_STUDENT, ROLE_SOLUTION, ROLE_BASELINE, ROLE_COUNT };

/* Output slots the child fills. OUT_REFERENCE: the reference solution's output, or the
 * baseline's where the solution is not built in (a handout has no solutions/). */
enum out_slot { OUT_STUDENT, OUT_REFERENCE, OUT_STUDENT_TIMED, OUT_COUNT };

#define MAX_REPS 100

/* Child exit codes. */
enum { JOB_OK = 0, JOB_KERNEL_FAILED = 1, JOB_SETUP_FAILED = 2, JOB_NO_GPU = 3 };

struct gpu_report {
    int emulator; /* 1: the CPU emulator ran the job, 0: a GPU */
    char device[256];
    int cc_major, cc_minor;
    int driver_version, runtime_version;
    size_t l2_bytes;
    /* From cudaFuncGetAttributes: what each compiled kernel uses. */
    size_t static_smem[ROLE_COUNT];
    int regs[ROLE_COUNT];
    /* Set when something failed; failed_role is -1 for failures outside a kernel. */
    int failed_role;
    int cuda_error;
    char failure[600];
    /* Writes into the guard zones around the output: count, and the first one's element
     * offset from the start of the output (negative: before it). */
    size_t guard_writes;
    long first_guard_write;
    /* Timings, ms[role][rep], of `reps` launches of each role. */
    int reps;
    float ms[ROLE_COUNT][MAX_REPS];
    /* Memory traffic of each role (emulator, when the job asked for counts), and the student's
     * busiest source lines. */
    int counted;
    struct mem_counts counts[ROLE_COUNT];
    int nlines;
    struct line_counts lines[MAX_COUNTED_LINES];
};

struct gpu_job {
    enum family family;
    int rows, cols;        /* matmul: N = rows = cols; transpose: the input's shape */
    int launch;            /* 0: only read kernel attributes; 1: run student and solution */
    int time_reps;         /* > 0: also time student, solution and baseline this many times */
    int count;             /* emulator: also count every role's memory traffic */
    size_t in_elems[2];    /* matmul: A, B; transpose: in, (unused) */
    size_t out_elems;
    size_t in_offset[2];   /* byte offsets from the start of this struct */
    size_t out_offset[OUT_COUNT];
    struct gpu_report rep;
};

/* The child's side: runs the job on device 0 and returns one of the exit codes above. */
int gpu_job_run(void *job);

/* For the GPU's own tools (compute-sanitizer, Nsight Compute; checker/src/gates.c): launches
 * each of `roles` once on the job's inputs, on plain allocations without guard zones so that
 * every stray access is the tool's to see, and prints each buffer as "wb-buffer NAME 0xADDRESS
 * BYTES". Returns an exit code as above; the emulator has no such run. */
int gpu_run_plain(struct gpu_job *job, const int *roles, int nroles);

static inline float *job_in(struct gpu_job *j, int i) { return (float *)((char *)j + j->in_offset[i]); }
static inline float *job_out(struct gpu_job *j, int slot) { return (float *)((char *)j + j->out_offset[slot]); }

/* One kernel compiled into the check program (checker/gpu/launch.cu, once per role). */
struct kernel_entry {
    const char *name;
    const char *source;
    /* Launches on the default stream with the family's fixed configuration; returns the
     * cudaError_t of the launch itself (not of the kernel's execution). */
    int (*launch)(const float *in0, const float *in1, float *out, int rows, int cols);
    /* cudaFuncGetAttributes: static shared bytes and registers per thread. */
    int (*attributes)(size_t *static_smem, int *regs);
};
extern const struct kernel_entry student_kernel, solution_kernel, baseline_kernel;

/* A role is absent when its kernel is not built in: only the solution can be (checker/gpu/
 * no_solution.c, linked where solutions/ is missing). */
static inline int solution_present(void) { return solution_kernel.launch != NULL; }
static inline int role_present(int role) { return role != ROLE_SOLUTION || solution_present(); }
/* The kernel whose output the student's is compared with, element by element. */
static inline int reference_role(void) { return solution_present() ? ROLE_SOLUTION : ROLE_BASELINE; }

#endif
