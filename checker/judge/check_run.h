/* The judge of a lesson (checker/judge/), built per lesson: what its parts share.
 *   main.c   the lesson's cases as cmocka tests, the program's options and result
 *   jobs.c   the runners started for each job (reference side, then the student's side), each
 *            a process of its own on a copy of the job; what comes back; the narration
 *   judge.c  outputs judged against the reference kernel and the CPU, with a diagnosis
 *   tools.c  compute-sanitizer and Nsight Compute run on the runners (the GPU's gates)
 * This program links no kernel: no line of a lesson file runs in it, so nothing a kernel
 * prints or does can pass for a verdict (docs/security.md). */
#ifndef WB_CHECK_RUN_H
#define WB_CHECK_RUN_H
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "check_record.h"
#include "gpu_job.h"
#include "registry.h"

enum { EXIT_NO_GPU = 3, EXIT_USAGE = 4 };

#define TILE 32
/* The emulator runs a few million threads a second: larger cases are left to the GPU judge
 * (every edge and partial tile is in the smaller ones); memory traffic is counted at the
 * family's counting size (family.h). */
#define EMU_MAX_WORK 20000000.0

/* One run of the check program. */
struct check_run {
    const struct lesson *lesson;
    uint64_t seed;
    double timeout_s;
    int reps;
    int speed_size;        /* SPEED_SIZE, or 0 */
    int narrate_to_stderr; /* TAP/XML on stdout must stay clean */
    int hung;              /* a case ran out of time: later cases are skipped */
    double hung_elems;     /* the size (rows x cols) of the job that ran out of time */
    int stop_at_failure;   /* WB_STOP_AT_FAILURE=1: cases after a failed one are skipped (make
                            * mutants needs only the first diagnosis of a wrong kernel) */
    /* From a speed case whose output was right before and after timing; 0 otherwise. */
    double speed_ms, speedup, solution_ms, baseline_ms;
    double limit_share;    /* the student's throughput over the family's yardstick's, where timed */
    struct gpu_report device;
    int emulator;          /* this judge is check-emu: the emulator's runner (the PTX interpreter) */
    int have_solution;     /* 0 in a handout (no solutions/) */
    char here[800];        /* the folder this program lies in: build/SRC/NN */
    char common[900];      /* build/common/NN: the reference side */
    char source[1024];     /* the student's file, for the report */
    int sandbox_warned;
    struct check_record record; /* what WB_RESULT_FILE receives: each case's verdict and report */
    int current;                /* the case running (its index in record.cases), or -1 */
    int later_launch;           /* judging an output of a launch after a first one that was right */
    int right_alone;            /* judging a batch's output that the same job run alone got right */
};
extern struct check_run checking;

/* The report, on stdout (stderr with `# ` when cmocka's TAP/XML has stdout); what is said during
 * a case is kept in its record too. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Ends the current case as failed with this sentence (cmocka's failure; kept in the record). */
void case_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Ends the current case unjudged: RESULT_SKIPPED (never a pass) or RESULT_ELSEWHERE. */
void case_skip(enum case_result why) __attribute__((noreturn));
/* Drops cmocka's "[ LINE ] --- checker/...: error: Failure!" lines from stderr (quiet_cmocka.c). */
void quiet_cmocka_locations(void);
/* "N=100" or "100x257". */
const char *size_text(const struct check_case *c, char *buf, size_t len);

/* ---- jobs.c ---- */
struct job_mem {
    struct gpu_job *job;
    size_t bytes;
};
/* A job for rows x cols inputs in memory shared with the child; launch: run the kernels;
 * reps > 0: time them too. job is NULL if it cannot be allocated. */
struct job_mem job_create(int rows, int cols, int launch, int reps);
void job_free(struct job_mem *m);
/* The inputs of the case with index `stream`, from the run's seed. */
void fill_inputs(struct gpu_job *job, uint64_t stream);
/* Runs a job: the reference side's runner, then the student's. Returns 0 when both completed;
 * otherwise says why in `why`. */
int run_job(struct gpu_job *job, double timeout_s, char *why, size_t len);
/* Runs n jobs (MAX_BATCH at most, of one lesson; a timed one only last) with one runner per side
 * for all of them, which on a GPU makes one context per side instead of n. Returns how many
 * completed, in order: the first that did not (if any) failed as `why` says; those after it did
 * not run. */
int run_jobs(struct gpu_job *const *jobs, int n, double timeout_s, char *why, size_t len);
/* A job of rows x cols with the inputs of case `stream` (main.c), timed over `reps` launches
 * (0: untimed): its result from the batches that ran at the first case needing one, else run
 * now. 0 when it completed, else why says how it failed; *m is the caller's to judge and free. */
int batched_job(int rows, int cols, uint64_t stream, int reps, struct job_mem *m, char *why, size_t len);
/* Builds a side's runner command into argv (NULL-terminated; plain: the GPU runner's mode for
 * the tools, where side may be SIDE_STUDENT with the baseline's role too; njobs > 1: a batch;
 * turn: its fd 3 + njobs is the socket of its turn with the GPU alone, gpu_turn.h). Returns argv. */
char **runner_argv(int side, int plain, int njobs, int turn, char **argv);
/* One side's runner (spawn.c): started on its own copies of the jobs (limits and sandbox for the
 * emulator's), then finished, after which the caller reads back from each copy what the side
 * may write and then unmaps them; started apart, two sides can run at once. */
#include "isolate.h"
struct launch {
    char **argv;
    const int *job_fds;
    int njobs;
    int turn_fd; /* -1, or the socket of its turn with the GPU alone (gpu_turn.h): its fd 3 + njobs */
    double cpu_s; /* emulator: the CPU-time limit; 0 for the GPU's runner */
    const char *folder;
};
struct side_run {
    int n;
    struct gpu_job *copy[MAX_BATCH];
    size_t bytes[MAX_BATCH];
    int fd[MAX_BATCH];
    char folder[32];
    char *argv[12];
    struct launch launch;
    struct isolate_child child;
};
int side_start(struct gpu_job *const *jobs, int n, int side, double cpu_s, int turn_fd, struct side_run *s,
               struct isolate_result *r);
/* The side's copies of the jobs alone, no runner started (side_start's first step). */
int side_copies(struct gpu_job *const *jobs, int n, int side, struct side_run *s);
void side_finish(struct side_run *s, double wall_s, struct isolate_result *r);
void side_abandon(struct side_run *s);
/* ---- ref_cache.c ---- */
/* The emulator's reference side from WB_REF_CACHE: 1 when every job's entry was there, s holding
 * the copies as the runner would have left them, r a runner that completed, cpu[k] the CPU
 * seconds job k took; else 0 (nothing held). */
int ref_cache_take(struct gpu_job *const *jobs, int n, struct side_run *s, struct isolate_result *r, double *cpu);
/* After a reference side that completed every job: each job's entry written (whole, or not at all). */
void ref_cache_keep(struct gpu_job *const *jobs, int n, const struct side_run *s, const struct isolate_result *r,
                    const double *cpu);

/* The reference solution is part of this copy of the workbook (not in a handout). */
int solution_present(void);
static inline int role_present(int role) { return role != ROLE_SOLUTION || solution_present(); }
/* The kernel whose output the student's is compared with, element by element. */
static inline int reference_role(void) { return solution_present() ? ROLE_SOLUTION : ROLE_BASELINE; }

/* ---- judge.c ---- */
/* "the reference solution", or in a handout (no solutions/) "the baseline kernel". */
const char *reference_name(void);
/* 0 if got is right; otherwise reports the mismatches and a diagnosis and returns -1. */
int judge_output(struct gpu_job *job, const float *got, const char *when);
/* Whether the student's output agrees with the reference side's within the tolerance, saying nothing. */
int output_agrees(struct gpu_job *job);
/* 0 unless the kernel wrote into the guard zones around its output (then reported, -1). */
int judge_guards(const struct gpu_job *job);
/* The kernels run at the size traffic is counted at (its text in sz), the emulator counting
 * when `count`; fails the current test unless the student's output is right there. */
struct job_mem counted_job(int count, int drawn, uint64_t stream, char *sz, size_t szlen);
/* The judgement of a counted job after it ran (ran: completed; else why says how it failed):
 * 0, or -1 with the failure. */
int counted_judge(struct job_mem *m, const char *sz, int ran, const char *why, char *failure, size_t len);
/* The size memory traffic is counted at: the family's own, or (drawn) the second one this run's
 * seed draws (family.h), which no kernel can expect. */
void count_size(int drawn, int *rows, int *cols);

/* ---- tools.c ---- */
void case_sanitizer(const struct check_case *c, uint64_t stream);
void case_profile(uint64_t stream);
/* After the student's kernel crashed on the GPU: memcheck on it alone, to point at the access. */
void explain_crash(const struct check_case *c, uint64_t stream);
/* After its output was wrong on the GPU (once a run): synccheck and racecheck on it alone, since
 * a misused barrier shows there only as wrong elements. */
void explain_wrong(const struct check_case *c, uint64_t stream);

/* ---- gpu_share.c ---- */
/* Where several judges share one GPU (WB_GPU_LOCK=file, make gpu-test): waits until this judge
 * may use it, beside the others (untimed work) or alone (alone=1: timing, Nsight Compute), until
 * gpu_done(); returns the seconds it waited; `what` names the hold in WB_GPU_LOCK_LOG. Without
 * WB_GPU_LOCK, and in the emulator, neither waits. */
double gpu_use(int alone, const char *what);
void gpu_done(void);

#endif
