/* The check program of one lesson: runs the lesson's cases (lessons/NN/check.c) as cmocka
 * tests. The kernels run in a child process (gpu/gpu_job.c); everything judged here is read
 * back by this process itself, so nothing a kernel prints or does can pass for a verdict.
 *
 * Built per lesson with -DWB_LESSON=<number>. Environment: SEED (replay inputs), TIMEOUT
 * (seconds per case, default 10), REPS (timed launches per kernel, default 15), ONLY (a
 * cmocka name pattern), WB_RESULT_FILE (where to write a one-line summary for make), SPEED_SIZE
 * (run the speed case at N x N instead: for profiling at the emulator's counting size),
 * SANITIZE=1 and PROFILE=1 (the GPU's own tools as extra cases; WB_SANITIZER and WB_NCU name
 * them where they are not on PATH).
 *
 * `check --run ROLES ROWS COLS SEED STREAM` only launches kernels, for those tools to watch. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "check.h"
#include "compare.h"
#include "gates.h"
#include "gpu_job.h"
#include "isolate.h"
#include "reference.h"
#include "registry.h"
#include "rng.h"
#include "stats.h"
#include "textfile.h"
#include "traffic.h"

#ifndef WB_LESSON
#error "build with -DWB_LESSON=<lesson number>"
#endif

enum { EXIT_NO_GPU = 3, EXIT_USAGE = 4 };

#define WB_STR_(a) #a
#define WB_STR(a) WB_STR_(a)

#define TILE 32
#define CPU_FULL_MAX (300 * 300) /* outputs up to this size are checked against the CPU in full */
#define CPU_SAMPLES 2048
/* The emulator runs a few million threads a second: larger cases are left to the GPU judge,
 * and memory traffic is counted at a size where every tile pattern shows. */
#define EMU_MAX_WORK 20000000.0
#define EMU_COUNT_N 128  /* matmul: 4 x 4 blocks of 8 tiles each, counted in about a second */
#define EMU_COUNT_RC 256 /* transposes: 8 x 8 tiles */
/* Nsight Compute's conflict counter is not exactly zero on every conflict-free kernel (tens of
 * thousands against tens of millions of wavefronts were seen on a large tiled matmul), so its
 * rule is a share: conflicts at most this fraction of the shared-memory wavefronts. On the H200
 * at the gate's sizes: 0 for the padded and swizzled tiles, 0.33 for a 2-way conflict, 0.94 for
 * the unpadded tile's 32-way one (docs/gates.md). */
#define NCU_CONFLICT_SHARE 0.05

static struct {
    const struct lesson *lesson;
    uint64_t seed;
    double timeout_s;
    int reps;
    int speed_size;        /* SPEED_SIZE, or 0 */
    int narrate_to_stderr; /* TAP/XML on stdout must stay clean */
    int hung;              /* a case ran out of time: later cases are skipped */
    /* From a speed case whose output was right before and after timing; 0 otherwise. */
    double speed_ms, speedup, solution_ms, baseline_ms;
    struct gpu_report device;
} g;

static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    FILE *out = g.narrate_to_stderr ? stderr : stdout;
    if (g.narrate_to_stderr)
        fputs("# ", out);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fflush(out);
}

/* ---- jobs: shared memory between this process and the child that runs the kernels ---- */

static size_t round_up(size_t n) { return (n + 63) & ~(size_t)63; }

struct job_mem {
    struct gpu_job *job;
    size_t bytes;
};

static struct job_mem job_create(int rows, int cols, int launch, int reps)
{
    struct job_mem m = {0};
    int matmul = g.lesson->family == FAMILY_MATMUL;
    size_t elems = (size_t)rows * (size_t)cols;
    size_t in_bytes[2] = {elems * sizeof(float), matmul ? elems * sizeof(float) : 0};
    size_t out_bytes = elems * sizeof(float);
    size_t off = round_up(sizeof(struct gpu_job));
    size_t in_off[2], out_off[OUT_COUNT];
    for (int i = 0; i < 2; i++) {
        in_off[i] = off;
        off += round_up(launch ? in_bytes[i] : 0);
    }
    for (int s = 0; s < OUT_COUNT; s++) {
        out_off[s] = off;
        off += round_up(launch ? out_bytes : 0);
    }
    void *p = mmap(NULL, off, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return m;
    m.job = p;
    m.bytes = off;
    m.job->family = g.lesson->family;
    m.job->rows = rows;
    m.job->cols = cols;
    m.job->launch = launch;
    m.job->time_reps = reps;
    m.job->in_elems[0] = elems;
    m.job->in_elems[1] = matmul ? elems : 0;
    m.job->out_elems = elems;
    memcpy(m.job->in_offset, in_off, sizeof in_off);
    memcpy(m.job->out_offset, out_off, sizeof out_off);
    return m;
}

static void job_free(struct job_mem *m)
{
    if (m->job)
        munmap(m->job, m->bytes);
    m->job = NULL;
}

static void show_child_output(const struct isolate_result *r)
{
    if (r->output_len == 0)
        return;
    say("  The kernels printed (shown as is, never read as a result):\n");
    for (const char *p = r->output; *p;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        say("  | %.*s\n", len, p);
        p += len + (nl ? 1 : 0);
    }
    if (r->output_cut)
        say("  | ... (more output cut)\n");
}

/* Runs a job in a child process. Returns 0 when it completed; otherwise says why and returns -1. */
static int run_job(struct gpu_job *job, double timeout_s, char *why, size_t len)
{
    struct isolate_result r;
    run_isolated(gpu_job_run, job, timeout_s, &r);
    show_child_output(&r);
    if (r.outcome == ISOLATE_TIMED_OUT) {
        g.hung = 1;
        isolate_describe(&r, why, len);
        return -1;
    }
    if (r.outcome == ISOLATE_SIGNALED && job->rep.emulator && (r.status == SIGSEGV || r.status == SIGBUS)) {
        snprintf(why, len, "your kernel crashed the emulator (%s): it accessed memory far outside its buffers, "
                           "or recursed too deep.", strsignal(r.status));
        return -1;
    }
    if (r.outcome != ISOLATE_EXITED) {
        isolate_describe(&r, why, len);
        return -1;
    }
    switch (r.status) {
    case JOB_OK:
        return 0;
    case JOB_NO_GPU:
        snprintf(why, len, "no NVIDIA GPU is visible (%s).", job->rep.failure);
        return -1;
    case JOB_KERNEL_FAILED:
    case JOB_SETUP_FAILED:
        snprintf(why, len, "%s", job->rep.failure[0] ? job->rep.failure : "the GPU run failed.");
        return -1;
    default:
        isolate_describe(&r, why, len);
        return -1;
    }
}

/* ---- correctness ---- */

static void fill_inputs(struct gpu_job *job, uint64_t stream)
{
    struct rng r;
    for (int i = 0; i < 2; i++) {
        rng_seed(&r, g.seed, stream * 2 + (uint64_t)i);
        rng_fill_uniform(&r, job_in(job, i), job->in_elems[i]);
    }
}

static void out_shape(const struct gpu_job *job, int *rows, int *cols)
{
    /* matmul: N x N; transpose: the input's cols x rows. */
    *rows = job->family == FAMILY_MATMUL ? job->rows : job->cols;
    *cols = job->family == FAMILY_MATMUL ? job->cols : job->rows;
}

static struct tolerance tolerance_for(const struct gpu_job *job)
{
    return job->family == FAMILY_MATMUL ? tolerance_dot(job->rows) : tolerance_exact();
}

static void describe_value(char *buf, size_t len, float x)
{
    if (has_bits(x, POISON_BITS))
        snprintf(buf, len, "NaN (never written)");
    else if (has_bits(x, GUARD_BITS))
        snprintf(buf, len, "NaN (guard: read outside the input)");
    else if (has_bits(x, SHARED_POISON_BITS))
        snprintf(buf, len, "NaN (shared memory nobody wrote)");
    else
        snprintf(buf, len, "%.7g", x);
}

static void show_mismatches(const struct comparison *c, const char *against)
{
    say("  %zu of %zu elements differ from %s; the first:\n", c->wrong, (size_t)c->rows * (size_t)c->cols, against);
    for (size_t i = 0; i < c->shown; i++) {
        char got[48];
        describe_value(got, sizeof got, c->first[i].got);
        say("    row %5d, col %5d: expected %.7g, got %s\n", c->first[i].row, c->first[i].col, c->first[i].want, got);
    }
}

/* What the student's output is compared with in full: the reference solution, or where this
 * copy of the workbook has none (a handout), the baseline kernel. */
static const char *reference_name(void)
{
    return solution_present() ? "the reference solution" : "the baseline kernel";
}

/* The CPU reference at the sampled output elements. */
static size_t cpu_reference(struct gpu_job *job, size_t *idx, double *want)
{
    int orows, ocols;
    out_shape(job, &orows, &ocols);
    size_t n = reference_sample(orows, ocols, CPU_FULL_MAX, CPU_SAMPLES, g.seed, idx);
    for (size_t i = 0; i < n; i++) {
        if (job->family == FAMILY_MATMUL)
            want[i] = ref_matmul_at(job_in(job, 0), job_in(job, 1), job->rows, (int)(idx[i] / ocols), (int)(idx[i] % ocols));
        else
            want[i] = ref_transpose_at(job_in(job, 0), job->rows, job->cols, idx[i]);
    }
    return n;
}

/* Compares one output of the student's kernel with the solution's and the CPU's. Returns 0 if
 * right; otherwise prints the mismatches and the diagnosis into the report and returns -1. */
static int judge_output(struct gpu_job *job, const float *got, const char *when)
{
    int orows, ocols;
    out_shape(job, &orows, &ocols);
    struct tolerance tol = tolerance_for(job);
    size_t max_idx = CPU_FULL_MAX > CPU_SAMPLES + 2 * (size_t)(orows + ocols) ? CPU_FULL_MAX : CPU_SAMPLES + 2 * (size_t)(orows + ocols);
    size_t *idx = malloc(max_idx * sizeof *idx);
    double *want = malloc(max_idx * sizeof *want);
    float *swapped = NULL;
    int rc = -1;
    if (!idx || !want)
        goto out;
    size_t n = cpu_reference(job, idx, want);

    /* The reference kernel must agree with the CPU, or nothing can be judged. */
    struct comparison sol;
    const float *reference = job_out(job, OUT_REFERENCE);
    compare_sampled(reference, want, idx, n, orows, ocols, TILE, tol, &sol);
    if (sol.wrong) {
        show_mismatches(&sol, "the CPU reference (the output of the workbook's own kernel)");
        say("  The workbook's own kernel (%s) is wrong here: this is a bug in the workbook, please report it.\n",
            reference_name());
        goto out;
    }
    struct comparison vs_sol, vs_cpu;
    compare_outputs(got, reference, orows, ocols, TILE, tol, &vs_sol);
    compare_sampled(got, want, idx, n, orows, ocols, TILE, tol, &vs_cpu);
    if (vs_sol.wrong == 0 && vs_cpu.wrong == 0) {
        rc = 0;
        goto out;
    }
    if (job->family == FAMILY_MATMUL && (size_t)job->rows * job->rows <= CPU_FULL_MAX) {
        swapped = malloc((size_t)job->rows * job->rows * sizeof *swapped);
        if (swapped)
            ref_matmul_swapped(job_in(job, 0), job_in(job, 1), job->rows, swapped);
    }
    struct diagnosis_inputs d = {job->family, reference, got,
                                 job->family == FAMILY_TRANSPOSE ? job_in(job, 0) : NULL, swapped, tol};
    const struct comparison *c = vs_sol.wrong ? &vs_sol : &vs_cpu;
    say("  Wrong output %s.\n", when);
    show_mismatches(c, vs_sol.wrong ? reference_name() : "the CPU reference");
    say("  Diagnosis: %s\n", diagnose(c, &d));
out:
    free(idx);
    free(want);
    free(swapped);
    return rc;
}

static const char *size_text(const struct check_case *c, char *buf, size_t len)
{
    if (g.lesson->family == FAMILY_MATMUL)
        snprintf(buf, len, "N=%d", c->rows);
    else
        snprintf(buf, len, "%dx%d", c->rows, c->cols);
    return buf;
}

/* Writes into the guard zones around the output are wrong even when every element is right. */
static int judge_guards(const struct gpu_job *job)
{
    if (job->rep.guard_writes == 0)
        return 0;
    long off = job->rep.first_guard_write;
    if (off < 0)
        say("  Your kernel wrote %zu float%s outside its output; the nearest is %ld element%s before its start "
            "(a negative index?).\n",
            job->rep.guard_writes, job->rep.guard_writes == 1 ? "" : "s", -off, off == -1 ? "" : "s");
    else
        say("  Your kernel wrote %zu float%s outside its output; the nearest is element %ld, %ld past its last "
            "(a store without its bounds check?).\n",
            job->rep.guard_writes, job->rep.guard_writes == 1 ? "" : "s", off, off - (long)job->out_elems + 1);
    return -1;
}

static void explain_crash(const struct check_case *c, uint64_t stream);

/* cudaErrorIllegalAddress, cudaErrorMisalignedAddress, cudaErrorInvalidAddressSpace, and
 * cudaErrorLaunchFailure (which some drivers give for the same). */
static int bad_access(int cuda_error)
{
    return cuda_error == 700 || cuda_error == 716 || cuda_error == 717 || cuda_error == 719;
}

static void case_correct(const struct check_case *c, uint64_t stream)
{
    char why[700], sz[32], when[96];
    struct job_mem m = job_create(c->rows, c->cols, 1, 0);
    if (!m.job)
        fail_msg("cannot allocate memory for %s", size_text(c, sz, sizeof sz));
    fill_inputs(m.job, stream);
    size_text(c, sz, sizeof sz);
    snprintf(when, sizeof when, "at %s", sz);
    const char *failure = NULL;
    if (run_job(m.job, g.timeout_s, why, sizeof why) != 0) {
        say("  At %s: %s\n", sz, why);
        failure = "the kernel failed (see above)";
        if (!g.device.emulator && m.job->rep.failed_role == ROLE_STUDENT && bad_access(m.job->rep.cuda_error))
            explain_crash(c, stream);
    } else if (judge_guards(m.job) != 0)
        failure = "writes outside the output";
    else if (judge_output(m.job, job_out(m.job, OUT_STUDENT), when) != 0)
        failure = "wrong output";
    job_free(&m);
    if (failure)
        fail_msg("%s at %s", failure, sz);
}

/* ---- speed ---- */

static void case_speed(const struct check_case *c, uint64_t stream)
{
    char why[700], sz[32], when[96];
    struct check_case sized = *c;
    if (g.speed_size)
        sized.rows = sized.cols = g.speed_size;
    c = &sized;
    struct job_mem m = job_create(c->rows, c->cols, 1, g.reps);
    if (!m.job)
        fail_msg("cannot allocate memory for %s", size_text(c, sz, sizeof sz));
    struct gpu_job *job = m.job;
    fill_inputs(job, stream);
    size_text(c, sz, sizeof sz);
    /* Three kernels, warm-up and REPS launches each take far longer than one correctness run. */
    if (run_job(job, 3 * g.timeout_s, why, sizeof why) != 0) {
        say("  At %s: %s\n", sz, why);
        job_free(&m);
        fail_msg("the kernel failed at %s (see above)", sz);
    }
    snprintf(when, sizeof when, "at %s, so its speed was not measured", sz);
    if (judge_guards(job) != 0 || judge_output(job, job_out(job, OUT_STUDENT), when) != 0) {
        job_free(&m);
        fail_msg("wrong output at %s: speed not measured", sz);
    }

    const char *labels[ROLE_COUNT] = {"your kernel", "reference solution", "baseline"};
    double med[ROLE_COUNT];
    say("  %s, median of %d launches each, L2 cache flushed before every launch:\n", sz, job->rep.reps);
    for (int r = 0; r < ROLE_COUNT; r++) {
        med[r] = stats_median(job->rep.ms[r], (size_t)job->rep.reps);
        if (!role_present(r))
            continue;
        say("    %-19s %9.3f ms  (spread +-%.1f%%)%s%s\n", labels[r], med[r],
            100.0 * stats_rel_spread(job->rep.ms[r], (size_t)job->rep.reps), r == ROLE_BASELINE ? "  " : "",
            r == ROLE_BASELINE ? lesson.baseline_is : "");
    }
    double yours = stats_speedup(med[ROLE_BASELINE], med[ROLE_STUDENT]);
    say("  Speed-up over the baseline: yours %.2fx", yours);
    if (solution_present())
        say(", the solution's %.2fx", stats_speedup(med[ROLE_BASELINE], med[ROLE_SOLUTION]));
    say("; required: at least %.2fx.\n", lesson.min_speedup);

    snprintf(when, sizeof when, "after the timed runs at %s", sz);
    int right_after = judge_output(job, job_out(job, OUT_STUDENT_TIMED), when) == 0;
    if (!right_after)
        say("  It was right the first time: a result that changes between runs is a race "
            "(a missing __syncthreads()?).\n");
    else {
        g.speed_ms = med[ROLE_STUDENT];
        g.speedup = yours;
        g.solution_ms = solution_present() ? med[ROLE_SOLUTION] : 0;
        g.baseline_ms = med[ROLE_BASELINE];
    }
    job_free(&m);
    if (!right_after)
        fail_msg("wrong output after the timed runs at %s", sz);
    if (yours < lesson.min_speedup)
        fail_msg("too slow: %.2fx the baseline's speed where %.2fx is required", yours, lesson.min_speedup);
}

/* ---- memory traffic (the emulator's replacement for timing) ---- */

/* The kernels run at the size memory traffic is counted at (sz receives it), the emulator
 * counting when `count`; fails the case unless the student's output is right there, since the
 * traffic of a kernel that does not do the work means nothing. */
static struct job_mem counted_job(int count, uint64_t stream, char *sz, size_t szlen)
{
    char why[700], when[96];
    struct check_case sized = {0};
    sized.rows = sized.cols = g.lesson->family == FAMILY_MATMUL ? EMU_COUNT_N : EMU_COUNT_RC;
    size_text(&sized, sz, szlen);
    struct job_mem m = job_create(sized.rows, sized.cols, 1, 0);
    if (!m.job)
        fail_msg("cannot allocate memory for %s", sz);
    m.job->count = count;
    fill_inputs(m.job, stream);
    if (run_job(m.job, 3 * g.timeout_s, why, sizeof why) != 0) {
        say("  At %s: %s\n", sz, why);
        job_free(&m);
        fail_msg("the kernel failed at %s (see above)", sz);
    }
    snprintf(when, sizeof when, "at %s, so its memory traffic was not judged", sz);
    if (judge_guards(m.job) != 0 || judge_output(m.job, job_out(m.job, OUT_STUDENT), when) != 0) {
        job_free(&m);
        fail_msg("wrong output at %s: memory traffic not judged", sz);
    }
    return m;
}

static void case_counts(uint64_t stream)
{
    char why[700], sz[32];
    struct job_mem m = counted_job(1, stream, sz, sizeof sz);
    const struct gpu_report *rep = &m.job->rep;
    const char *names[ROLE_COUNT] = {"your kernel", "reference solution", "baseline"};
    const char *labels[ROLE_COUNT];
    struct mem_counts shown[ROLE_COUNT];
    int nshown = 0;
    for (int r = 0; r < ROLE_COUNT; r++)
        if (role_present(r)) {
            labels[nshown] = names[r];
            shown[nshown++] = rep->counts[r];
        }
    say("  Memory traffic at %s, counted by the emulator (as Nsight Compute counts it):\n", sz);
    traffic_table(say, labels, shown, nshown);
    say("  Baseline: %s.\n  Your kernel, line by line:\n", lesson.baseline_is);
    traffic_lines(say, rep->lines, rep->nlines);
    int bad = traffic_verdict(&rep->counts[ROLE_STUDENT], &rep->counts[ROLE_BASELINE], lesson.max_sector_ratio,
                              lesson.no_bank_conflicts, why, sizeof why);
    struct mem_counts solution = rep->counts[ROLE_SOLUTION];
    job_free(&m);
    if (lesson.max_sector_ratio > 0)
        say("  Required: global memory sectors at most %.2f of the baseline's.\n", lesson.max_sector_ratio);
    if (lesson.no_bank_conflicts && solution_present())
        say("  Required: no shared-memory bank conflicts (the solution has %llu).\n",
            (unsigned long long)all_conflicts(&solution));
    else if (lesson.no_bank_conflicts)
        say("  Required: no shared-memory bank conflicts.\n");
    if (bad)
        fail_msg("%s", why);
}

/* ---- shared memory rule ---- */

static void case_shared_bytes(const struct check_case *c)
{
    size_t have = g.device.static_smem[ROLE_STUDENT];
    say("  Your kernel declares %zu bytes of static shared memory; this lesson demands exactly %zu.\n", have, c->bytes);
    if (have != c->bytes) {
        say("  %s\n", c->why);
        fail_msg("%zu bytes of shared memory where %zu are required", have, c->bytes);
    }
}

/* ---- the GPU's own tools: compute-sanitizer and Nsight Compute (gates.h) ---- */

static char self_path[1024];

/* Runs this program as `check --run ROLES ...` under a tool (tool_argv, NULL-terminated), the
 * tool writing its log to a private file; returns the log (malloc'd, or NULL) and in *bufs the
 * device buffers the run printed. */
static char *run_watched(char *const tool_argv[], const char *roles, int rows, int cols, uint64_t stream,
                         double timeout_s, struct isolate_result *r, struct named_buffer *bufs, int *nbufs)
{
    char log[] = "/tmp/wb-tool-XXXXXX", srows[16], scols[16], sseed[32], sstream[32];
    int fd = mkstemp(log);
    *nbufs = 0;
    memset(r, 0, sizeof *r);
    if (fd < 0)
        return NULL;
    close(fd);
    snprintf(srows, sizeof srows, "%d", rows);
    snprintf(scols, sizeof scols, "%d", cols);
    snprintf(sseed, sizeof sseed, "%llu", (unsigned long long)g.seed);
    snprintf(sstream, sizeof sstream, "%llu", (unsigned long long)stream);
    char *argv[48];
    int n = 0;
    for (; tool_argv[n] && n < 36; n++)
        argv[n] = tool_argv[n];
    char *tail[] = {"--log-file", log, self_path, "--run", (char *)roles, srows, scols, sseed, sstream, NULL};
    memcpy(argv + n, tail, sizeof tail);
    run_tool(argv, timeout_s, r);
    *nbufs = parse_buffers(r->output, bufs, 4);
    char *text = read_text_file(log);
    unlink(log);
    return text;
}

/* One compute-sanitizer tool on the student's kernel: 0 clean, 1 errors found (shown), -1 the
 * tool could not run (said). */
static int sanitize_with(const char *sanitizer, const char *tool, const char *finds, int rows, int cols,
                         uint64_t stream, int print_limit)
{
    char limit[16];
    snprintf(limit, sizeof limit, "%d", print_limit);
    char *const argv[] = {(char *)sanitizer, "--tool", (char *)tool, "--error-exitcode", "86", "--print-limit", limit,
                          "--show-backtrace", "no", NULL};
    struct isolate_result r;
    struct named_buffer bufs[4];
    int nbufs;
    char *log = run_watched(argv, "student", rows, cols, stream, 6 * g.timeout_s, &r, bufs, &nbufs);
    static char digest[4096];
    int errors = sanitizer_digest(log ? log : "", bufs, nbufs, digest, sizeof digest);
    free(log);
    if (r.outcome == ISOLATE_EXITED && r.status == 0 && errors <= 0) {
        say("    %-10s no %s\n", tool, finds);
        return 0;
    }
    if ((r.outcome == ISOLATE_EXITED && r.status == 86) || errors > 0) {
        if (errors > 0)
            say("    %-10s %d error%s:\n%s", tool, errors, errors == 1 ? "" : "s", digest);
        else /* an error exit without a count in the log */
            say("    %-10s errors:\n%s", tool, digest);
        return 1;
    }
    if (r.outcome == ISOLATE_EXITED && r.status == JOB_KERNEL_FAILED) {
        say("    %-10s saw nothing before your kernel crashed under it\n", tool);
        return 0; /* the crash itself is memcheck's to name */
    }
    char why[700];
    if (r.outcome == ISOLATE_EXITED)
        snprintf(why, sizeof why, "it stopped with exit code %d: %.300s", r.status, r.output);
    else
        isolate_describe(&r, why, sizeof why);
    say("    %-10s could not run: %s\n", tool, why);
    return -1;
}

static void case_sanitizer(const struct check_case *c, uint64_t stream)
{
    char sanitizer[1024], sz[32];
    if (!find_tool("WB_SANITIZER", "compute-sanitizer", sanitizer, sizeof sanitizer)) {
        say("  Skipped, not passed: compute-sanitizer was not found (it comes with the CUDA Toolkit; "
            "WB_SANITIZER=path names it).\n");
        skip();
    }
    say("  compute-sanitizer on your kernel alone at %s:\n", size_text(c, sz, sizeof sz));
    const char *tools[][2] = {{"racecheck", "shared-memory races"},
                              {"synccheck", "misused barriers"},
                              {"memcheck", "accesses outside the buffers"}};
    int found = 0, unusable = 0;
    for (size_t t = 0; t < sizeof tools / sizeof tools[0]; t++) {
        int rc = sanitize_with(sanitizer, tools[t][0], tools[t][1], c->rows, c->cols, stream, 3);
        found += rc > 0;
        unusable += rc < 0;
    }
    if (found)
        fail_msg("compute-sanitizer found errors in your kernel at %s", sz);
    if (unusable) {
        say("  Skipped, not passed: a sanitizer tool could not run here.\n");
        skip();
    }
}

/* After the student's kernel crashed on the GPU: memcheck on it alone, to point at the access. */
static void explain_crash(const struct check_case *c, uint64_t stream)
{
    char sanitizer[1024];
    if (!find_tool("WB_SANITIZER", "compute-sanitizer", sanitizer, sizeof sanitizer)) {
        say("  (compute-sanitizer, which would name the access, was not found.)\n");
        return;
    }
    say("  compute-sanitizer's memcheck on your kernel alone, same inputs:\n");
    sanitize_with(sanitizer, "memcheck", "access outside the buffers this time", c->rows, c->cols, stream, 3);
}

static void case_profile(uint64_t stream)
{
    char ncu[1024], sz[32], why[700];
    if (!find_tool("WB_NCU", "ncu", ncu, sizeof ncu)) {
        say("  Skipped, not passed: Nsight Compute (ncu) was not found (it comes with the CUDA Toolkit; "
            "WB_NCU=path names it).\n");
        skip();
    }
    struct job_mem right = counted_job(0, stream, sz, sizeof sz);
    int rows = right.job->rows, cols = right.job->cols;
    job_free(&right);
    char *const argv[] = {ncu, "--csv", "--page", "raw", "--print-units", "base", "--metrics", (char *)NCU_METRICS,
                          "--kernel-name-base", "demangled", "-k", "regex:student::|baseline::", NULL};
    struct isolate_result r;
    struct named_buffer bufs[4];
    int nbufs;
    char *csv = run_watched(argv, "student,baseline", rows, cols, stream, 12 * g.timeout_s, &r, bufs, &nbufs);
    struct mem_counts counts[2];
    int bad = ncu_parse(csv ? csv : "", &counts[0], &counts[1], why, sizeof why);
    if (bad && ((csv && strstr(csv, "ERR_NVGPUCTRPERM")) || strstr(r.output, "ERR_NVGPUCTRPERM")))
        snprintf(why, sizeof why, "this user may not read the GPU's performance counters (ERR_NVGPUCTRPERM)");
    else if (bad && r.outcome == ISOLATE_EXITED && r.status != 0)
        snprintf(why + strlen(why), sizeof why - strlen(why), " (ncu stopped with exit code %d)", r.status);
    free(csv);
    if (bad) {
        say("  Skipped, not passed: %s.\n", why);
        skip();
    }
    const char *labels[2] = {"your kernel", "baseline"};
    say("  Memory traffic at %s, measured by Nsight Compute on the GPU:\n", sz);
    traffic_table(say, labels, counts, 2);
    uint64_t shared = counts[0].op[SHARED_LD].wavefronts + counts[0].op[SHARED_ST].wavefronts;
    double conflict_share = shared ? (double)all_conflicts(&counts[0]) / (double)shared : 0;
    double sector_ratio = sectors(&counts[1]) ? (double)sectors(&counts[0]) / (double)sectors(&counts[1]) : 0;
    int failed = 0;
    if (lesson.max_sector_ratio > 0) {
        say("  Global memory sectors: %.3f of the baseline's; required: at most %.2f.\n", sector_ratio,
            lesson.max_sector_ratio);
        failed |= sector_ratio > lesson.max_sector_ratio;
    }
    if (lesson.no_bank_conflicts) {
        say("  Bank conflicts: %.4f of your shared-memory wavefronts; required: at most %.2f (this counter is not "
            "exactly zero on conflict-free kernels).\n", conflict_share, NCU_CONFLICT_SHARE);
        failed |= conflict_share > NCU_CONFLICT_SHARE;
    }
    if (failed)
        fail_msg("Nsight Compute's counters break the lesson's traffic rule at %s", sz);
}

/* The cases the checker adds on a GPU (add_gate_cases), and the lesson case whose inputs each uses. */
static struct check_case gate_cases[2];
static uint64_t gate_stream[2];

static void run_case(void **state)
{
    const struct check_case *c = *state;
    if (g.hung) {
        say("  Skipped: the kernel did not finish in an earlier case.\n");
        skip();
    }
    int gate = c >= gate_cases && c < gate_cases + 2;
    uint64_t stream = gate ? gate_stream[c - gate_cases] : (uint64_t)(c - lesson.cases);
    double work = (double)c->rows * c->cols * (g.lesson->family == FAMILY_MATMUL ? c->rows : 1);
    if (g.device.emulator && c->kind == CASE_CORRECT && work > EMU_MAX_WORK) {
        say("  Skipped: too large to emulate quickly; the GPU judge checks this size.\n");
        skip();
    }
    switch (c->kind) {
    case CASE_CORRECT:
        case_correct(c, stream);
        break;
    case CASE_SPEED:
        if (g.device.emulator)
            case_counts(stream);
        else
            case_speed(c, stream);
        break;
    case CASE_SHARED_BYTES:
        case_shared_bytes(c);
        break;
    case CASE_SANITIZER:
        case_sanitizer(c, stream);
        break;
    case CASE_PROFILE:
        case_profile(stream);
        break;
    }
}

/* ---- the program ---- */

static double env_double(const char *name, double fallback, double lo, double hi)
{
    const char *s = getenv(name);
    char *end;
    if (!s || !*s)
        return fallback;
    double v = strtod(s, &end);
    if (*end || v < lo || v > hi) {
        fprintf(stderr, "%s=%s is not a number from %g to %g; using %g.\n", name, s, lo, hi, fallback);
        return fallback;
    }
    return v;
}

static int probe_device(void)
{
    char why[700];
    struct job_mem m = job_create(1, 1, 0, 0);
    if (!m.job) {
        fprintf(stderr, "cannot allocate the job memory\n");
        return -1;
    }
    int rc = run_job(m.job, 60.0, why, sizeof why);
    g.device = m.job->rep;
    job_free(&m);
    if (rc == 0)
        return 0;
    if (g.device.device[0] == '\0') {
        say("No NVIDIA GPU is usable here (%s), so lesson %d cannot be graded on a GPU; "
            "the build itself succeeded.\n",
            g.device.failure[0] ? g.device.failure : why, g.lesson->number);
        return EXIT_NO_GPU;
    }
    say("The GPU run could not start: %s\n", why);
    return -1;
}

static void write_result(int failed, int total, int no_gpu)
{
    const char *path = getenv("WB_RESULT_FILE");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "lesson %d tests %d failed %d no_gpu %d hung %d speed_ms %.6g speedup %.6g solution_ms %.6g baseline_ms %.6g\n",
            g.lesson->number, total, failed, no_gpu, g.hung, g.speed_ms, g.speedup, g.solution_ms, g.baseline_ms);
    fclose(f);
}

/* check --run ROLES ROWS COLS SEED STREAM: the inputs of that case, each role launched once
 * (gpu_run_plain), for compute-sanitizer or Nsight Compute to watch. */
static int run_for_tools(char **argv)
{
    int roles[2], nroles = 0;
    if (strstr(argv[0], "student"))
        roles[nroles++] = ROLE_STUDENT;
    if (strstr(argv[0], "baseline"))
        roles[nroles++] = ROLE_BASELINE;
    int rows = atoi(argv[1]), cols = atoi(argv[2]);
    g.seed = strtoull(argv[3], NULL, 10);
    if (nroles == 0 || rows < 1 || cols < 1) {
        fprintf(stderr, "usage: check --run student[,baseline] ROWS COLS SEED STREAM\n");
        return EXIT_USAGE;
    }
    struct job_mem m = job_create(rows, cols, 1, 0);
    if (!m.job)
        return JOB_SETUP_FAILED;
    fill_inputs(m.job, strtoull(argv[4], NULL, 10));
    int rc = gpu_run_plain(m.job, roles, nroles);
    job_free(&m);
    return rc;
}

/* The cases the GPU's tools add (SANITIZE=1, PROFILE=1): compute-sanitizer at the first
 * correctness size of two tiles or more with partial tiles (quick under the tools), the
 * counters on the speed case's inputs. Appended to tests[n]; returns how many. */
static size_t add_gate_cases(struct CMUnitTest *tests, size_t n)
{
    static char names[2][96];
    const char *sanitize = getenv("SANITIZE"), *profile = getenv("PROFILE");
    char sz[32];
    for (size_t i = 0; i < lesson.ncases; i++) {
        const struct check_case *c = &lesson.cases[i];
        int k = c->kind == CASE_CORRECT && c->rows >= 64 && c->rows % TILE ? 0 : c->kind == CASE_SPEED ? 1 : -1;
        if (k < 0 || gate_cases[k].name || !(k == 0 ? sanitize : profile) || !atoi(k == 0 ? sanitize : profile))
            continue;
        gate_cases[k] = *c;
        gate_cases[k].kind = k == 0 ? CASE_SANITIZER : CASE_PROFILE;
        gate_stream[k] = i;
        if (k == 0)
            snprintf(names[0], sizeof names[0], "compute-sanitizer %s", size_text(c, sz, sizeof sz));
        else
            snprintf(names[1], sizeof names[1], "Nsight Compute counters %s",
                     g.lesson->family == FAMILY_MATMUL ? "N=" WB_STR(EMU_COUNT_N) : WB_STR(EMU_COUNT_RC) "x" WB_STR(EMU_COUNT_RC));
        gate_cases[k].name = names[k];
    }
    size_t added = 0;
    for (int k = 0; k < 2; k++)
        if (gate_cases[k].name)
            tests[n + added++] = (struct CMUnitTest){gate_cases[k].name, run_case, NULL, NULL, &gate_cases[k]};
    return added;
}

/* What the check demands, from the lesson's own cases: printed by `make lessonN`. */
static void describe(void)
{
    char sz[32];
    printf("  The check demands:\n    correct output (every element, against %s and a CPU reference) at",
           reference_name());
    for (size_t i = 0; i < lesson.ncases; i++)
        if (lesson.cases[i].kind == CASE_CORRECT)
            printf(" %s", size_text(&lesson.cases[i], sz, sizeof sz));
    printf("\n");
    for (size_t i = 0; i < lesson.ncases; i++) {
        const struct check_case *c = &lesson.cases[i];
        if (c->kind == CASE_SPEED) {
            printf("    on a GPU, speed at %s: at least %.2fx the speed of %s, timed in the same run\n",
                   size_text(c, sz, sizeof sz), lesson.min_speedup, lesson.baseline_is);
            if (lesson.max_sector_ratio > 0)
                printf("    in the emulator: global memory sectors at most %.2f of that kernel's\n", lesson.max_sector_ratio);
            if (lesson.no_bank_conflicts)
                printf("    in the emulator: no shared-memory bank conflicts\n");
        }
        else if (c->kind == CASE_SHARED_BYTES)
            printf("    exactly %zu bytes of static shared memory: %s\n", c->bytes, c->why);
    }
    printf("    on a GPU with SANITIZE=1 and PROFILE=1 (always in make grade): compute-sanitizer finds no race,\n"
           "    barrier misuse or stray access, and Nsight Compute's counters keep the traffic rule as ratios\n");
}

int main(int argc, char **argv)
{
    static struct registry reg;
    char err[512];
    const char *registry_path = getenv("WB_REGISTRY") ? getenv("WB_REGISTRY") : "lessons/registry";
    if (registry_load(registry_path, &reg, err, sizeof err) != 0 || !(g.lesson = registry_find(&reg, WB_LESSON))) {
        fprintf(stderr, "%s\n", g.lesson ? err : "this check program's lesson is not in lessons/registry");
        return EXIT_USAGE;
    }
    if (argc > 1 && strcmp(argv[1], "--describe") == 0) {
        describe();
        return 0;
    }
    if (argc == 7 && strcmp(argv[1], "--run") == 0)
        return run_for_tools(argv + 2);
    ssize_t len = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    self_path[len > 0 ? len : 0] = '\0';
    const char *fmt = getenv("CMOCKA_MESSAGE_OUTPUT");
    g.narrate_to_stderr = fmt && *fmt && strcasecmp(fmt, "stdout") != 0;
    const char *seed = getenv("SEED");
    g.seed = seed && *seed ? strtoull(seed, NULL, 10) : rng_fresh_seed();
    g.timeout_s = env_double("TIMEOUT", 10.0, 1.0, 600.0);
    g.reps = (int)env_double("REPS", 15, 10, MAX_REPS);
    g.speed_size = (int)env_double("SPEED_SIZE", 0, 0, 16384);

    say("Lesson %d (%s): checking %s\n", g.lesson->number, g.lesson->folder, student_kernel.source);
    int probe = probe_device();
    if (probe != 0) {
        write_result(1, 1, probe == EXIT_NO_GPU);
        return probe == EXIT_NO_GPU ? EXIT_NO_GPU : 1;
    }
    if (g.device.emulator)
        say("Judge: the CPU emulator (no GPU here, or EMU=1): correctness, and memory traffic counted exactly "
            "instead of timed\n");
    else
        say("Judge: the GPU, %s (compute capability %d.%d, CUDA driver %d.%d)\n", g.device.device,
            g.device.cc_major, g.device.cc_minor, g.device.driver_version / 1000, g.device.driver_version % 1000 / 10);
    say("Inputs from seed %llu (same inputs again: make check SEED=%llu)\n", (unsigned long long)g.seed,
        (unsigned long long)g.seed);

    struct CMUnitTest *tests = calloc(lesson.ncases + 2, sizeof *tests);
    if (!tests)
        return 1;
    static char counts_name[64];
    snprintf(counts_name, sizeof counts_name, "memory traffic %s",
             g.lesson->family == FAMILY_MATMUL ? "N=" WB_STR(EMU_COUNT_N) : WB_STR(EMU_COUNT_RC) "x" WB_STR(EMU_COUNT_RC));
    for (size_t i = 0; i < lesson.ncases; i++) {
        const struct check_case *c = &lesson.cases[i];
        const char *name = g.device.emulator && c->kind == CASE_SPEED ? counts_name : c->name;
        tests[i] = (struct CMUnitTest){name, run_case, NULL, NULL, (void *)c};
    }
    /* The emulator checks races, barriers and stray accesses on every run: the tools are the GPU's. */
    size_t ntests = lesson.ncases + (g.device.emulator ? 0 : add_gate_cases(tests, lesson.ncases));
    const char *only = getenv("ONLY");
    if (only && *only)
        cmocka_set_test_filter(only);
    char group[96];
    snprintf(group, sizeof group, "lesson %d (%s)", g.lesson->number, g.lesson->folder);
    int failed = _cmocka_run_group_tests(group, tests, ntests, NULL, NULL);
    write_result(failed, (int)ntests, 0);
    free(tests);
    return failed ? 1 : 0;
}
