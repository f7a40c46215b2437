/* The protocol between the judge and a runner (checker/runner/): what the judge asks, and
 * what comes back. A job lives in memory the judge shares with one runner process (a memfd,
 * the runner's fd 3); the judge gives each side its own copy, so the student's runner never
 * sees the reference's output, and reads back only the fields that side may write.
 *
 * Two runners per job: the reference side (solution and baseline, trusted code) and the
 * student side (the student's kernel alone). No code of the student's runs natively: on the GPU
 * the student's side loads a cubin (device code alone), in the emulator it interprets PTX; the
 * emulator's runner is sandboxed all the same (checker/runner/sandbox.c, docs/security.md). */
#ifndef WB_GPU_JOB_H
#define WB_GPU_JOB_H
#include <stddef.h>

#include "family.h"
#include "counts.h"

enum role { ROLE_STUDENT, ROLE_SOLUTION, ROLE_BASELINE, ROLE_COUNT };

/* Output slots the child fills. OUT_REFERENCE: the reference solution's output, or the
 * baseline's where the solution is not built in (a handout has no solutions/). OUT_LATER_MIN and
 * OUT_LATER_MAX: each element's least and greatest value over the student's later launches (timed
 * on a GPU, counted in the emulator) whose output was not the first's bit for bit, a NaN where any
 * of them held one. The runner only measures: the judge holds both to the reference, and so every
 * later launch, since each lay between them. */
enum out_slot { OUT_STUDENT, OUT_REFERENCE, OUT_LATER_MIN, OUT_LATER_MAX, OUT_COUNT };

#define MAX_REPS 100

/* A runner may take a batch: MAX_BATCH jobs at most, one after the other in one process (the
 * GPU's context made once), on fds 3, 4, ... with `--jobs=N` first among its arguments (under a
 * tool: the files WB_JOB_FILE lists, ':' between them). It stops at the first job that fails;
 * the judge learns how far it got from each job's rep.finished. Enough for a check's every job
 * (its sizes, residue shapes, counting sizes and timing: up to 27 in the lessons): on the H200 a
 * CUDA process costs about 0.2 s of the driver's, which serves one process's start or end at a
 * time (docs/measurements.md). */
#define MAX_BATCH 64

/* Runner exit codes. JOB_FORBIDDEN: the sandbox stopped a system call (forbidden_syscall). */
enum { JOB_OK = 0, JOB_KERNEL_FAILED = 1, JOB_SETUP_FAILED = 2, JOB_NO_GPU = 3, JOB_FORBIDDEN = 5, JOB_USAGE = 6 };

/* Which roles a runner runs: the judge starts one runner per side. */
enum { SIDE_REFERENCE = (1 << ROLE_SOLUTION) | (1 << ROLE_BASELINE), SIDE_STUDENT = 1 << ROLE_STUDENT };

struct gpu_report {
    int emulator; /* 1: the CPU emulator ran the job, 0: a GPU */
    /* The runner got through this job; in a batch (runner.h) it goes on to the next only then. */
    int finished;
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
    /* The emulator: the failed role was stopped by what compute-sanitizer finds on a GPU
     * (memcheck: an access outside its buffers, or misaligned; racecheck: a shared-memory race;
     * synccheck: a barrier or warp operation that its threads do not all reach). */
    int sanitizer_fault;
    char failure[600];
    /* Writes into the guard zones around the output: count, and the first one's element
     * offset from the start of the output (negative: before it). */
    size_t guard_writes;
    long first_guard_write;
    /* Elements of the inputs that differ after the run (the GPU runner compares; the emulator
     * stops the first such write with its line). */
    size_t input_writes;
    /* The CPU time the runner used (its own word: the judge trusts it from the reference side). */
    double cpu_seconds;
    /* The system call number the sandbox stopped (JOB_FORBIDDEN). */
    int forbidden_syscall;
    /* Timed launches of the student's kernel whose output's bits differed from its first launch's,
     * and after which an input (or its guard zones) differed from what was copied in. */
    int timed_differing;
    int timed_input_changes;
    /* Every later launch gave the first's output bit for bit (the GPU runner's fingerprints), so
     * nothing was copied back: OUT_LATER_MIN and OUT_LATER_MAX hold nothing. */
    int timed_same;
    /* Timings, ms[role][rep], of `reps` launches of each role; limit_ms: the family's limit
     * routine (cudaMemcpy of the input, cuBLAS), timed the same way by the reference side (jobs
     * with time_limit). */
    int reps;
    float ms[ROLE_COUNT][MAX_REPS];
    float limit_ms[MAX_REPS];
    /* A sample of the blocks (sample_blocks): how many of the student's output elements its
     * blocks wrote, each a struct written_element at the start of OUT_STUDENT's slot (that many,
     * or as many as the slot holds: sampled_dropped the rest). */
    size_t sampled_written, sampled_dropped;
    /* Memory traffic of each role (emulator, when the job asked for counts), and the student's
     * busiest source lines. */
    int counted;
    struct mem_counts counts[ROLE_COUNT];
    int nlines;
    struct line_counts lines[MAX_COUNTED_LINES]; /* file:line:column, as the emulator names them */
};

struct gpu_job {
    size_t bytes;          /* the whole job: this header, the inputs and the outputs */
    char family[32];       /* its name (checker/families/), which the runners look up */
    char baseline_family[32]; /* the family the baseline kernel is written for: its launch */
    int rows, cols;        /* the inputs' shape (matmul: N = rows = cols) */
    int launch;            /* 0: only read kernel attributes; 1: run student and solution */
    int time_reps;         /* > 0: also time student, solution and baseline this many times */
    int count;             /* emulator: also count every role's memory traffic */
    int sample_blocks;     /* emulator: run only this many blocks of each launch (0: all): the
                              counts at the size a GPU times, too large to run whole; the
                              output judged where the sampled blocks wrote it (the report's
                              sampled_written) */
    uint64_t lazy_inputs;  /* emulator, with sample_blocks: the inputs are not in the job; the
                              runner makes each page of them from this seed when a kernel first
                              reads it (nonzero), so that a sample of a large launch costs the
                              pages its blocks read, not the inputs' size */
    int time_limit;        /* GPU: also time the family's limit routine (family.h) */
    int roles;             /* SIDE_REFERENCE or SIDE_STUDENT: what this runner runs */
    int have_solution;     /* 0 in a handout: the baseline is the reference */
    double cpu_budget_s;   /* emulator, student's side: this job's CPU time (> 0: the runner holds
                              it to that, counted from the job's start, in a batch too) */
    size_t in_elems[2];    /* each input's elements (0: the family has no such input) */
    size_t out_elems;
    size_t in_offset[2];   /* byte offsets from the start of this struct */
    size_t out_offset[OUT_COUNT];
    struct gpu_report rep;
};

/* One output element a sample's blocks wrote (gpu_report's sampled_written). */
struct written_element {
    uint64_t element; /* row-major, in the output */
    float value;
    uint32_t unused;
};

/* The runner's side: runs the job's roles and returns one of the exit codes above. */
int gpu_job_run(void *job);

/* For the GPU's own tools (compute-sanitizer, Nsight Compute; checker/src/judging/gates.c): launches
 * each of the job's roles once on its inputs, on plain allocations without guard zones so that
 * every stray access is the tool's to see, and prints each buffer as "wb-buffer NAME 0xADDRESS
 * BYTES". The first of a batch waits for its turn with the GPU alone before its launches
 * (gpu_turn.h). Returns an exit code as above; the emulator has no such run. */
int gpu_run_plain(struct gpu_job *job, int first);

static inline float *job_in(struct gpu_job *j, int i) { return (float *)((char *)j + j->in_offset[i]); }
static inline float *job_out(struct gpu_job *j, int slot) { return (float *)((char *)j + j->out_offset[slot]); }

static inline int role_in(const struct gpu_job *j, int role) { return (j->roles >> role) & 1; }
/* A role is absent where its kernel is not there: only the solution can be (a handout). */
static inline int job_role_present(const struct gpu_job *j, int role) { return role != ROLE_SOLUTION || j->have_solution; }
/* The kernel whose output the student's is compared with, element by element. */
static inline int job_reference_role(const struct gpu_job *j) { return j->have_solution ? ROLE_SOLUTION : ROLE_BASELINE; }

#endif
