/* The check program of one lesson: runs the lesson's cases (lessons/NN/check.c) as cmocka
 * tests. The kernels run in a child process (gpu/gpu_job.c); everything judged here is read
 * back by this process itself, so nothing a kernel prints or does can pass for a verdict.
 *
 * Built per lesson with -DWB_LESSON=<number>. Environment: SEED (replay inputs), TIMEOUT
 * (seconds per case, default 10), REPS (timed launches per kernel, default 15), ONLY (a
 * cmocka name pattern), WB_RESULT_FILE (where to write a one-line summary for make), SPEED_SIZE
 * (run the speed case at N x N instead: for profiling at the emulator's counting size). */
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

#include <cmocka.h>

#include "check.h"
#include "compare.h"
#include "gpu_job.h"
#include "isolate.h"
#include "reference.h"
#include "registry.h"
#include "rng.h"
#include "stats.h"
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

    /* The solution must agree with the CPU, or nothing can be judged. */
    struct comparison sol;
    compare_sampled(job_out(job, OUT_SOLUTION), want, idx, n, orows, ocols, TILE, tol, &sol);
    if (sol.wrong) {
        show_mismatches(&sol, "the CPU reference (the solution's output)");
        say("  The reference solution itself is wrong here: this is a bug in the workbook, please report it.\n");
        goto out;
    }
    struct comparison vs_sol, vs_cpu;
    compare_outputs(got, job_out(job, OUT_SOLUTION), orows, ocols, TILE, tol, &vs_sol);
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
    struct diagnosis_inputs d = {job->family, job_out(job, OUT_SOLUTION), got,
                                 job->family == FAMILY_TRANSPOSE ? job_in(job, 0) : NULL, swapped, tol};
    const struct comparison *c = vs_sol.wrong ? &vs_sol : &vs_cpu;
    say("  Wrong output %s.\n", when);
    show_mismatches(c, vs_sol.wrong ? "the reference solution" : "the CPU reference");
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
        say("  Your kernel wrote %zu float%s outside its output; the nearest is %ld elements before its start "
            "(a negative index?).\n",
            job->rep.guard_writes, job->rep.guard_writes == 1 ? "" : "s", -off);
    else
        say("  Your kernel wrote %zu float%s outside its output; the nearest is element %ld, %ld past its last "
            "(a store without its bounds check?).\n",
            job->rep.guard_writes, job->rep.guard_writes == 1 ? "" : "s", off, off - (long)job->out_elems + 1);
    return -1;
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
        say("    %-19s %9.3f ms  (spread +-%.1f%%)%s%s\n", labels[r], med[r],
            100.0 * stats_rel_spread(job->rep.ms[r], (size_t)job->rep.reps), r == ROLE_BASELINE ? "  " : "",
            r == ROLE_BASELINE ? lesson.baseline_is : "");
    }
    double yours = stats_speedup(med[ROLE_BASELINE], med[ROLE_STUDENT]);
    double solution = stats_speedup(med[ROLE_BASELINE], med[ROLE_SOLUTION]);
    say("  Speed-up over the baseline: yours %.2fx, the solution's %.2fx; required: at least %.2fx.\n", yours,
        solution, lesson.min_speedup);

    snprintf(when, sizeof when, "after the timed runs at %s", sz);
    int right_after = judge_output(job, job_out(job, OUT_STUDENT_TIMED), when) == 0;
    if (!right_after)
        say("  It was right the first time: a result that changes between runs is a race "
            "(a missing __syncthreads()?).\n");
    else {
        g.speed_ms = med[ROLE_STUDENT];
        g.speedup = yours;
        g.solution_ms = med[ROLE_SOLUTION];
        g.baseline_ms = med[ROLE_BASELINE];
    }
    job_free(&m);
    if (!right_after)
        fail_msg("wrong output after the timed runs at %s", sz);
    if (yours < lesson.min_speedup)
        fail_msg("too slow: %.2fx the baseline's speed where %.2fx is required", yours, lesson.min_speedup);
}

/* ---- memory traffic (the emulator's replacement for timing) ---- */

static void case_counts(const struct check_case *c, uint64_t stream)
{
    char why[700], sz[32], when[96];
    struct check_case sized = *c;
    sized.rows = sized.cols = g.lesson->family == FAMILY_MATMUL ? EMU_COUNT_N : EMU_COUNT_RC;
    size_text(&sized, sz, sizeof sz);
    struct job_mem m = job_create(sized.rows, sized.cols, 1, 0);
    if (!m.job)
        fail_msg("cannot allocate memory for %s", sz);
    m.job->count = 1;
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
    const struct gpu_report *rep = &m.job->rep;
    const char *labels[ROLE_COUNT] = {"your kernel", "reference solution", "baseline"};
    say("  Memory traffic at %s, counted by the emulator (as Nsight Compute counts it):\n", sz);
    traffic_table(say, labels, rep->counts, ROLE_COUNT);
    say("  Baseline: %s.\n  Your kernel, line by line:\n", lesson.baseline_is);
    traffic_lines(say, rep->lines, rep->nlines);
    int bad = traffic_verdict(&rep->counts[ROLE_STUDENT], &rep->counts[ROLE_BASELINE], lesson.max_sector_ratio,
                              lesson.no_bank_conflicts, why, sizeof why);
    struct mem_counts solution = rep->counts[ROLE_SOLUTION];
    job_free(&m);
    if (lesson.max_sector_ratio > 0)
        say("  Required: global memory sectors at most %.2f of the baseline's.\n", lesson.max_sector_ratio);
    if (lesson.no_bank_conflicts)
        say("  Required: no shared-memory bank conflicts (the solution has %llu).\n",
            (unsigned long long)all_conflicts(&solution));
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

static void run_case(void **state)
{
    const struct check_case *c = *state;
    if (g.hung) {
        say("  Skipped: the kernel did not finish in an earlier case.\n");
        skip();
    }
    uint64_t stream = (uint64_t)(c - lesson.cases);
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
            case_counts(c, stream);
        else
            case_speed(c, stream);
        break;
    case CASE_SHARED_BYTES:
        case_shared_bytes(c);
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

/* What the check demands, from the lesson's own cases: printed by `make lessonN`. */
static void describe(void)
{
    char sz[32];
    printf("  The check demands:\n    correct output (every element, against the reference solution and a CPU reference) at");
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

    struct CMUnitTest *tests = calloc(lesson.ncases, sizeof *tests);
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
    const char *only = getenv("ONLY");
    if (only && *only)
        cmocka_set_test_filter(only);
    char group[96];
    snprintf(group, sizeof group, "lesson %d (%s)", g.lesson->number, g.lesson->folder);
    int failed = _cmocka_run_group_tests(group, tests, lesson.ncases, NULL, NULL);
    write_result(failed, (int)lesson.ncases, 0);
    free(tests);
    return failed ? 1 : 0;
}
