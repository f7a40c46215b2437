/* The judge of one lesson: runs the lesson's cases (lessons/NN/check.c) as cmocka tests, held to
 * its thresholds (lessons/NN/thresholds); the top layer of checker/judge/ (docs/architecture.md).
 * The kernels run in runner programs, the student's apart from the reference's
 * (checker/runner/); this program links none of them, and
 * everything judged here is read back by this process itself, so nothing a kernel prints or
 * does can pass for a verdict.
 *
 * Built per lesson with -DWB_LESSON=<number> -DWB_HAVE_SOLUTION=0|1, and copied beside the
 * student's part as build/SRC/NN/check (the GPU's runner) or check-emu (the emulator's).
 * Environment: SEED (replay inputs), TIMEOUT
 * (seconds per case, default 10), REPS (timed launches per kernel, default 15), ONLY (a
 * cmocka name pattern), WB_RESULT_FILE (where to write the run's record for make: check_record.h), SPEED_SIZE
 * (run the speed case at N x N instead: for profiling at the emulator's counting size),
 * COUNT_AT_SPEED_SIZE=1 (count, or profile, at the speed case's size first: the time model's
 * measurements at the timed size; slow in the emulator, where WB_SAMPLE_BLOCKS=N runs only N
 * blocks of each launch there and judges no output),
 * SANITIZE=1 and PROFILE=1 (the GPU's own tools as extra cases; WB_SANITIZER and WB_NCU name
 * them where they are not on PATH).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cmocka.h>

#include "check_run.h"
#include "counting.h"
#include "gpu_share.h"
#include "jobs.h"
#include "judge.h"
#include "quiet_cmocka.h"
#include "rng.h"
#include "stats.h"
#include "tools.h"

#ifndef WB_LESSON
#error "build with -DWB_LESSON=<lesson number>"
#endif

enum { EXIT_NO_GPU = 3, EXIT_USAGE = 4 };

#define TILE 32

/* cudaErrorIllegalAddress, cudaErrorMisalignedAddress, cudaErrorInvalidAddressSpace, and
 * cudaErrorLaunchFailure (which some drivers give for the same). */
static int bad_access(int cuda_error)
{
    return cuda_error == 700 || cuda_error == 716 || cuda_error == 717 || cuda_error == 719;
}

/* The cases the checker adds on a GPU (add_gate_cases), and the lesson case whose inputs each uses. */
static struct check_case gate_cases[2];
static uint64_t gate_stream[2];

/* ---- correctness, in batches ---- */

/* Every correctness job of the lesson (and Nsight Compute's gate's check of the output at its two
 * sizes, and on a GPU the timed job) runs in batches at the first case that needs one (one runner
 * pair for up to MAX_BATCH jobs instead of one per job: on a GPU one CUDA context per side, in the
 * emulator one sandbox);
 * each case then judges its own jobs' results here, in its turn, as if it had run them itself.
 * Jobs past a batch's failure and large ones run alone when their case comes (sizes too large
 * to emulate quickly never run in the emulator). */
#define BATCH_MAX_ELEMS (1 << 24) /* 4000x3000 is in: alone, its own runner pair cost 0.9 s on the H200 */
struct ran_job {
    int rows, cols, reps; /* reps: a timed job's launches (0: untimed) */
    uint64_t stream;
    struct job_mem m;
    int ran, hung; /* ran: completed; else why says how it failed, and hung: it did not finish */
    char why[700];
};
static struct ran_job ran_jobs[RECORD_MAX_CASES + MAX_RESIDUE_SHAPES];
static int nran = -1; /* -1: the batches have not run */

static int residue_cases(struct shape *shapes);
static double case_work(const struct check_case *c);

/* The inputs of a residue shape: a stream of their own. */
static uint64_t residue_stream(uint64_t stream, int i)
{
    return stream * 64 + (uint64_t)i + 1024;
}

static void plan_job(int rows, int cols, uint64_t stream, int reps)
{
    struct check_case sized = {.rows = rows, .cols = cols};
    int too_large = (size_t)rows * (size_t)cols > BATCH_MAX_ELEMS && !reps; /* a timed job is one, however large */
    if (too_large || nran >= (int)(sizeof ran_jobs / sizeof ran_jobs[0]) ||
        (checking.emulator && case_work(&sized) > EMU_MAX_WORK)) /* never run there */
        return;
    struct ran_job *j = &ran_jobs[nran++];
    *j = (struct ran_job){rows, cols, reps, stream, {0}, 0, 0, ""};
}

/* The size the speed case times at. */
static struct check_case speed_sized(const struct check_case *c)
{
    struct check_case sized = *c;
    if (checking.speed_size)
        sized.rows = sized.cols = checking.speed_size;
    return sized;
}

static void run_batches(void)
{
    nran = 0;
    /* ONLY runs some cases. WB_STOP_AT_FAILURE wants to stop at the first wrong one: in the
     * emulator, where every job is interpreted, the jobs then run one at a time; on a GPU the batch
     * still pays (each job alone costs two runners' CUDA contexts: a lesson's 18 residue shapes
     * took 9.6 s on the H200). In the emulator a batch saves a sandbox and a runner per job (a
     * lesson's check 19 % faster), and each job keeps a CPU budget of its own (run_jobs);
     * WB_BATCH=0 runs every job alone. */
    int alone = getenv("WB_BATCH") && strcmp(getenv("WB_BATCH"), "0") == 0;
    if (alone || (getenv("ONLY") && *getenv("ONLY")) || (checking.stop_at_failure && checking.emulator))
        return;
    struct shape shapes[MAX_RESIDUE_SHAPES];
    int nshapes = residue_cases(shapes);
    for (size_t i = 0; i < lesson.ncases; i++) {
        const struct check_case *c = &lesson.cases[i];
        if (c->kind == CASE_CORRECT)
            plan_job(c->rows, c->cols, (uint64_t)i, 0);
        for (int k = 0; c->kind == CASE_RESIDUES && k < nshapes; k++)
            plan_job(shapes[k].rows, shapes[k].cols, residue_stream((uint64_t)i, k), 0);
    }
    /* The emulator's sanitizer gate runs the inputs of its correctness case again (batched_job
     * hands each job out once). */
    if (gate_cases[0].name && checking.emulator)
        plan_job(gate_cases[0].rows, gate_cases[0].cols, gate_stream[0], 0);
    for (int g = 0; g < 2; g++)
        for (int drawn = 0; gate_cases[g].name && gate_cases[g].kind == CASE_PROFILE && drawn < 2; drawn++) {
            int rows, cols;
            count_size(drawn, &rows, &cols);
            plan_job(rows, cols, gate_stream[g] + (uint64_t)drawn, 0);
        }
    /* On a GPU the speed case's timed job goes last, in the same runners: a timed job alone cost
     * a runner pair of its own (two CUDA processes, whose starts and ends the driver serializes
     * among every judge's). Not where the check stops at its first failure: the timing would
     * mostly be for a check that ends before its speed case. */
    for (size_t i = 0; i < lesson.ncases && !checking.emulator && !checking.stop_at_failure; i++)
        if (lesson.cases[i].kind == CASE_SPEED) {
            struct check_case sized = speed_sized(&lesson.cases[i]);
            plan_job(sized.rows, sized.cols, (uint64_t)i, checking.reps);
            break; /* a turn alone is the last job's (run_jobs) */
        }
    for (int first = 0; first < nran; first += MAX_BATCH) {
        int n = nran - first < MAX_BATCH ? nran - first : MAX_BATCH, done;
        struct gpu_job *jobs[MAX_BATCH];
        for (int k = 0; k < n; k++) {
            struct ran_job *j = &ran_jobs[first + k];
            j->m = job_create(j->rows, j->cols, 1, j->reps);
            if (!(jobs[k] = j->m.job)) {
                for (int f = 0; f < k; f++)
                    job_free(&ran_jobs[first + f].m);
                nran = first;
                return;
            }
            fill_inputs(j->m.job, j->stream);
        }
        /* A hang is its own case's to report: the flag waits for that case. */
        int hung_before = checking.hung;
        char why[700];
        done = run_jobs(jobs, n, checking.timeout_s, why, sizeof why);
        for (int k = 0; k < n; k++)
            ran_jobs[first + k].ran = k < done;
        if (done < n) {
            struct ran_job *failed = &ran_jobs[first + done];
            snprintf(failed->why, sizeof failed->why, "%s", why);
            failed->hung = checking.hung && !hung_before;
            checking.hung = hung_before;
            for (int k = done + 1; k < n; k++) /* not run: they run alone in their turn */
                job_free(&ran_jobs[first + k].m);
            nran = first + done + 1;
            return;
        }
    }
}

/* How many jobs ran before the last one batched_job gave, in the same runners (-1: it ran alone). */
static int launched_before = -1;

/* The job run now, alone in runners of its own: 0 when it completed, else why says how it failed;
 * *m is the caller's to judge and free. */
static int run_alone(int rows, int cols, uint64_t stream, int reps, struct job_mem *m, char *why, size_t len)
{
    *m = job_create(rows, cols, 1, reps);
    if (!m->job)
        return snprintf(why, len, "cannot allocate memory for %dx%d", rows, cols), -1;
    fill_inputs(m->job, stream);
    return run_job(m->job, checking.timeout_s, why, len);
}

/* A job of rows x cols with the inputs of case `stream`, timed over `reps` launches (0: untimed):
 * its result from the batches that ran at the first case needing one, else run now. 0 when it
 * completed, else why says how it failed; *m is the caller's to judge and free. */
static int batched_job(int rows, int cols, uint64_t stream, int reps, struct job_mem *m, char *why, size_t len)
{
    if (nran < 0)
        run_batches();
    launched_before = -1;
    for (int i = 0; i < nran; i++) {
        struct ran_job *j = &ran_jobs[i];
        if (j->m.job && j->rows == rows && j->cols == cols && j->stream == stream && j->reps == reps) {
            launched_before = i % MAX_BATCH;
            *m = j->m;
            j->m.job = NULL; /* the caller's now */
            snprintf(why, len, "%s", j->why);
            if (j->hung)
                checking.hung = 1;
            return j->ran ? 0 : -1;
        }
    }
    return run_alone(rows, cols, stream, reps, m, why, len);
}

/* The job of case c run again alone, in runners of its own: whether the student's output is then
 * right. A diagnosis only: its hang is not the check's (the batch's run finished). */
static int right_alone(const struct check_case *c, uint64_t stream)
{
    char why[700];
    int hung = checking.hung;
    double hung_elems = checking.hung_elems;
    struct job_mem m;
    int right = run_alone(c->rows, c->cols, stream, 0, &m, why, sizeof why) == 0 && output_agrees(m.job);
    job_free(&m);
    checking.hung = hung, checking.hung_elems = hung_elems;
    return right;
}

static void case_correct(const struct check_case *c, uint64_t stream)
{
    char why[700], sz[32], when[96];
    struct job_mem m;
    size_text(c, sz, sizeof sz);
    snprintf(when, sizeof when, "at %s", sz);
    const char *failure = NULL;
    if (batched_job(c->rows, c->cols, stream, 0, &m, why, sizeof why) != 0) {
        say("  At %s: %s\n", sz, why);
        failure = "the kernel failed (see above)";
        if (m.job && !checking.emulator && m.job->rep.failed_role == ROLE_STUDENT && bad_access(m.job->rep.cuda_error))
            explain_crash(c, stream);
    } else if (judge_guards(m.job) != 0)
        failure = "writes outside the output";
    else {
        /* Wrong after other jobs in the same runners, where an earlier case passed: a kernel that
         * keeps state between launches is right alone. Only on a GPU: the emulator gives a job no
         * memory that outlives it (a store outside its buffers stops the kernel). */
        checking.right_alone = !checking.emulator && launched_before > 0 &&
                               record_count(&checking.record, RESULT_PASSED) > 0 && !output_agrees(m.job) &&
                               right_alone(c, stream);
        if (judge_output(m.job, job_out(m.job, OUT_STUDENT), when) != 0) {
            failure = checking.right_alone ? "wrong output after other launches in the same process, though right "
                                             "alone (state kept from one launch to the next)"
                                           : "wrong output";
            /* The emulator names barriers and races itself; racecheck on large sizes takes minutes. */
            if (!checking.right_alone && !checking.emulator && (size_t)c->rows * c->cols <= 300 * 300)
                explain_wrong(c, stream);
        }
        checking.right_alone = 0;
    }
    job_free(&m);
    if (failure)
        case_fail("%s at %s", failure, sz);
}

/* The shapes of the RESIDUES case: every residue class of the family's grains (residues.h). */
static int residue_cases(struct shape *shapes)
{
    const struct family *f = checking.lesson->family;
    /* (a family whose sizes are multiples of a step: the classes of the step's multiples) */
    return residue_shapes_stepped(f->size_step, shapes, residue_shapes(f->grains, f->nscalars == 1, shapes,
                                                                        MAX_RESIDUE_SHAPES));
}

/* Correct at each of those shapes, in turn; the first wrong one fails the case with its size. */
static void case_residues(const struct check_case *c, uint64_t stream)
{
    struct shape shapes[MAX_RESIDUE_SHAPES];
    int n = residue_cases(shapes);
    char sz[32];
    say("  Sizes:");
    for (int i = 0; i < n; i++) {
        struct check_case one = *c;
        one.rows = shapes[i].rows, one.cols = shapes[i].cols;
        say(" %s", size_text(&one, sz, sizeof sz));
    }
    say("\n");
    for (int i = 0; i < n; i++) {
        struct check_case one = *c;
        one.kind = CASE_CORRECT;
        one.rows = shapes[i].rows, one.cols = shapes[i].cols;
        case_correct(&one, residue_stream(stream, i)); /* inputs of their own */
    }
}

/* The emulator's stand-in for compute-sanitizer's gate, at its size and on its inputs: a fault of
 * the kinds memcheck, racecheck and synccheck find (gpu_job.h: sanitizer_fault), or a write
 * outside the output, fails it and, as on a GPU, voids the lesson's points (check_record.h): an
 * output that came out right beside such a fault was luck. A wrong output alone does not. */
static void case_emu_sanitizer(const struct check_case *c, uint64_t stream)
{
    char why[700], sz[32];
    struct job_mem m;
    size_text(c, sz, sizeof sz);
    int ran = batched_job(c->rows, c->cols, stream, 0, &m, why, sizeof why) == 0;
    int fault = m.job && (ran ? m.job->rep.guard_writes > 0 : m.job->rep.failed_role == ROLE_STUDENT && m.job->rep.sanitizer_fault);
    job_free(&m);
    if (fault) {
        if (ran)
            say("  At %s your kernel wrote outside its output.\n", sz);
        else
            say("  At %s: %s\n", sz, why);
        case_fail("compute-sanitizer would find errors in your kernel at %s, as the emulator did: a right output "
                  "beside a stray access or a race was luck, and earns no points", sz);
    }
    /* Stopped for something else (a value read from shared memory nothing wrote, a cp.async read
     * before it landed): the checks saw the run only up to there, and say nothing of the rest
     * (issue 47: "no race" was said here of such a kernel). */
    if (!ran) {
        say("  At %s: %s\n  The emulator stopped your kernel there, so its own checks (what compute-sanitizer's "
            "memcheck, racecheck and synccheck find on a GPU) did not see the rest of the run: not judged, and not "
            "passed.\n", sz, why);
        case_skip(RESULT_SKIPPED);
    }
    say("  Nothing compute-sanitizer's memcheck, racecheck or synccheck would find on a GPU: no access outside the "
        "buffers, no race in shared memory, no barrier some threads miss.\n");
}

/* ---- speed ---- */

/* Each kernel's throughput beside the family's yardstick doing the same work in the same run
 * (family.h: cudaMemcpy of the data a transpose moves, cuBLAS for a matmul), with bars. */
static void limit_report(const struct gpu_job *job, const double med[ROLE_COUNT], const char *const labels[ROLE_COUNT])
{
    const struct limit *l = &checking.lesson->family->limit;
    double limit = stats_median(job->rep.limit_ms, (size_t)job->rep.reps);
    if (!job->time_limit || limit <= 0)
        return;
    checking.limit_share = limit / med[ROLE_STUDENT];
    double amount = l->amount(job->rows, job->cols);
    say("  Throughput (%s) against %s doing the same work, same run:\n", l->what, l->routine);
    const double best = amount / (limit * 1e-3) / l->scale;
    for (int r = -1; r < ROLE_COUNT; r++) {
        if (r >= 0 && !role_present(r))
            continue;
        double rate = r < 0 ? best : amount / (med[r] * 1e-3) / l->scale, share = rate / best;
        char bar[41];
        int n = (int)(40 * (share < 1 ? share : 1) + 0.5);
        memset(bar, '#', (size_t)n);
        bar[n] = '\0';
        say("    %-19s %8.*f %-7s %4.0f%%  %s\n", r < 0 ? l->routine : labels[r], rate < 100 ? 1 : 0, rate, l->unit,
            100 * share, bar);
    }
}

static void case_speed(const struct check_case *c, uint64_t stream)
{
    char why[700], sz[32], when[96];
    struct check_case sized = speed_sized(c);
    c = &sized;
    size_text(c, sz, sizeof sz);
    struct job_mem m;
    if (batched_job(c->rows, c->cols, stream, checking.reps, &m, why, sizeof why) != 0) {
        say("  At %s: %s\n", sz, why);
        job_free(&m);
        case_fail("the kernel failed at %s (see above)", sz);
    }
    struct gpu_job *job = m.job;
    snprintf(when, sizeof when, "at %s, so its speed was not measured", sz);
    if (judge_guards(job) != 0) {
        job_free(&m);
        case_fail("wrong output at %s: speed not measured", sz);
    }
    /* The timed job runs after the correctness jobs, in the same runners: a first launch that is
     * wrong there, where earlier cases passed, is run again alone, as a correctness case's is
     * (issue 47: a kernel that kept a counter from one launch to the next and then skipped its
     * work was told here that it "wrote nothing", is a TODO still open?). */
    checking.right_alone = launched_before > 0 && record_count(&checking.record, RESULT_PASSED) > 0 &&
                           !output_agrees(job) && right_alone(c, stream);
    int alone = checking.right_alone;
    int wrong = judge_output(job, job_out(job, OUT_STUDENT), when) != 0;
    checking.right_alone = 0;
    if (wrong) {
        job_free(&m);
        if (alone)
            case_fail("wrong output at %s after other launches in the same process, though right alone (state kept "
                      "from one launch to the next): speed not measured", sz);
        case_fail("wrong output at %s: speed not measured", sz);
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
    say("; required: at least %.2fx.\n", checking.limits.min_speedup);
    limit_report(job, med, labels);
    if (checking.limits.min_limit_share > 0)
        say("  Required: at least %.0f%% of %s's throughput.\n", 100 * checking.limits.min_limit_share,
            checking.lesson->family->limit.routine);

    snprintf(when, sizeof when, "after the timed runs at %s", sz);
    /* Bit for bit the first output (judged above), the runner says, or judged here. */
    int right_after = judge_later_outputs(job, when) == 0;
    if (right_after && job->rep.timed_input_changes > 0) {
        say("  After %d of the %d timed launches an input (or the guard zones around it) was not what it was "
            "before the first, though it was by the end: a kernel may only read its inputs, and work kept in "
            "an input from one launch to the next is not timed fairly.\n", job->rep.timed_input_changes, job->rep.reps);
        job_free(&m);
        case_fail("your kernel changed its input between the timed runs at %s", sz);
    }
    if (right_after && job->rep.timed_differing > 0)
        say("  %d of the %d timed launches gave other bits than the first, each right within the tolerance: "
            "another order of additions (atomics) rounds otherwise.\n", job->rep.timed_differing, job->rep.reps);
    if (!right_after)
        say("  %d of the %d timed launches gave another output than the first, which was right, and not all of "
            "them were right: a result that changes between runs is a race (a missing __syncthreads()?), or state "
            "kept from one launch to the next.\n", job->rep.timed_differing, job->rep.reps);
    else {
        checking.speed_ms = med[ROLE_STUDENT];
        checking.speedup = yours;
        checking.solution_ms = solution_present() ? med[ROLE_SOLUTION] : 0;
        checking.baseline_ms = med[ROLE_BASELINE];
    }
    job_free(&m);
    if (!right_after)
        case_fail("wrong output after the timed runs at %s", sz);
    if (yours < checking.limits.min_speedup)
        case_fail("too slow: %.2fx the baseline's speed where %.2fx is required", yours, checking.limits.min_speedup);
    if (checking.limits.min_limit_share > 0 && !(checking.limit_share >= checking.limits.min_limit_share))
        case_fail("too slow: %.0f%% of %s's throughput where %.0f%% is required", 100 * checking.limit_share,
                  checking.lesson->family->limit.routine, 100 * checking.limits.min_limit_share);
}

/* ---- memory traffic: counting.c (the emulator's counting case) ---- */

/* Nsight Compute's gate on a GPU: the counters at the family's counting size and at the size the
 * seed draws (as the emulator counts): a kernel that keeps the rule only at a size it expects
 * breaks it at the other. The outputs at both sizes are judged first, in one batch; then one
 * Nsight Compute run watches one runner that runs, at each size, the baseline and then the
 * student's kernel (tools.c). */
static void case_profile(uint64_t stream)
{
    char ncu[1024], sz[2][32], why[700], failure[700];
    struct check_case sized[2] = {{0}};
    profile_tool(ncu, sizeof ncu);
    for (int drawn = 0; drawn < 2; drawn++) {
        struct check_case *at = &sized[drawn];
        struct job_mem m;
        count_size(drawn, &at->rows, &at->cols);
        size_text(at, sz[drawn], sizeof sz[drawn]);
        int ran = batched_job(at->rows, at->cols, stream + (uint64_t)drawn, 0, &m, why, sizeof why) == 0;
        int wrong = m.job ? counted_judge(&m, sz[drawn], ran, why, failure, sizeof failure) != 0
                          : (snprintf(failure, sizeof failure, "%s", why), 1);
        job_free(&m);
        if (wrong)
            case_fail("%s", failure);
    }
    say_occupancy();
    profile_counters(ncu, sized, stream, sz);
}

/* ---- shared memory rule ---- */

static void case_shared_bytes(const struct check_case *c)
{
    size_t have = checking.device.static_smem[ROLE_STUDENT];
    say("  Your kernel declares %zu bytes of static shared memory; this lesson demands exactly %zu.\n", have, c->bytes);
    if (have != c->bytes) {
        say("  %s\n", c->why);
        case_fail("%zu bytes of shared memory where %zu are required", have, c->bytes);
    }
}

/* The emulator's cost of a case, in multiply-adds' worth (the family's estimate). */
static double case_work(const struct check_case *c)
{
    const struct family *f = checking.lesson->family;
    return f->work(c->rows, c->cols) * (f->emu_cost > 0 ? f->emu_cost : 1);
}

/* The case behind each entry of the record, and the entry for case c (a lesson case or a gate). */
static const struct check_case *recorded[RECORD_MAX_CASES];
static int record_index(const struct check_case *c)
{
    for (int i = 0; i < checking.record.ncases; i++)
        if (recorded[i] == c)
            return i;
    return -1;
}

static void run_case(void **state)
{
    const struct check_case *c = *state;
    gpu_done(); /* (the GPU lock of a case that failed while it held it) */
    checking.current = record_index(c);
    if (checking.current >= 0) /* a case that ends early, by a failure or a crash, failed */
        checking.record.cases[checking.current].result = RESULT_FAILED;
    /* After a hang, the cases left would only wait for it again; but where the kernel finished at
     * smaller sizes and compute-sanitizer's size is one of them, a stray write at the larger size
     * may be what stopped it (it can break the GPU runner's own state), and compute-sanitizer is
     * what can say so. */
    int explains_hang = c->kind == CASE_SANITIZER && record_count(&checking.record, RESULT_PASSED) > 0 &&
                        (double)c->rows * c->cols < checking.hung_elems;
    if (checking.hung && !explains_hang) {
        say("  Skipped: the kernel did not finish in an earlier case.\n");
        case_skip(RESULT_SKIPPED);
    }
    if (checking.hung)
        say("  The kernel did not finish in an earlier case, but finished at smaller sizes, this one among them: an "
            "access outside its buffers can stop a run too, and this is where one would show.\n");
    if (checking.stop_at_failure && record_count(&checking.record, RESULT_FAILED) > (checking.current >= 0)) {
        say("  Skipped: an earlier case failed (WB_STOP_AT_FAILURE=1).\n");
        case_skip(RESULT_SKIPPED);
    }
    int gate = c >= gate_cases && c < gate_cases + 2;
    uint64_t stream = gate ? gate_stream[c - gate_cases] : (uint64_t)(c - lesson.cases);
    if (checking.emulator && c->kind == CASE_CORRECT && case_work(c) > EMU_MAX_WORK) {
        say("  Not run here: too large to emulate quickly; the GPU judge checks this size. Its residue classes "
            "are run here at smaller sizes (\"correct at every residue class\").\n");
        case_skip(RESULT_ELSEWHERE);
    }
    switch (c->kind) {
    case CASE_CORRECT:
        case_correct(c, stream);
        break;
    case CASE_RESIDUES:
        case_residues(c, stream);
        break;
    case CASE_SPEED:
        if (checking.emulator) {
            struct check_case timed = speed_sized(c);
            case_counts(&timed, stream);
        }
        else
            case_speed(c, stream);
        break;
    case CASE_SHARED_BYTES:
        case_shared_bytes(c);
        break;
    case CASE_SANITIZER:
        if (checking.emulator)
            case_emu_sanitizer(c, stream);
        else
            case_sanitizer(c, stream);
        break;
    case CASE_PROFILE:
        case_profile(stream);
        break;
    }
    if (checking.current >= 0)
        checking.record.cases[checking.current].result = RESULT_PASSED;
    checking.current = -1;
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

/* A cubin this GPU cannot run: the programs were built for another GPU (cudaErrorInvalidKernelImage,
 * NoKernelImageForDevice, InvalidPtx, UnsupportedPtxVersion). */
static int image_error(int cuda_error)
{
    return cuda_error == 200 || cuda_error == 209 || cuda_error == 218 || cuda_error == 222;
}

/* probe_device's answer when the student's kernel alone could not run, and its sentence. */
#define PROBE_STUDENT 2
static char probe_failure[800];

/* The first job, 1 x 1: the GPU is there and every role's kernels load on it. A GPU that cannot
 * run what was built (another architecture) is the grader's problem, never the student's: the
 * lesson is not graded here (EXIT_NO_GPU), with the cause. */
static int probe_device(void)
{
    char why[700];
    /* The first batch's first job, where both sides completed it, describes the GPU (or the
     * emulator) as the probe's own job would, and saves a runner per side: on a GPU every CUDA
     * process's start and end go through the driver one at a time, which bounds judges side by
     * side (docs/measurements.md). Its runs are the first case's, where their output is kept.
     * Anything else (no batch: ONLY, WB_STOP_AT_FAILURE in the emulator; a failure) is left to the
     * probe's job, whose sentences name the cause. */
    if (nran < 0) {
        checking.current = lesson.ncases && lesson.cases[0].kind == CASE_CORRECT ? record_index(&lesson.cases[0]) : -1;
        run_batches();
        checking.current = -1;
    }
    if (nran > 0 && ran_jobs[0].ran && ran_jobs[0].m.job) {
        checking.device = ran_jobs[0].m.job->rep;
        checking.device.failure[0] = '\0';
        checking.device.cuda_error = 0;
        checking.device.failed_role = -1;
        return 0;
    }
    struct job_mem m = job_create(1, 1, 0, 0);
    if (!m.job) {
        fprintf(stderr, "cannot allocate the job memory\n");
        return -1;
    }
    int rc = run_job(m.job, 60.0, why, sizeof why);
    checking.device = m.job->rep;
    job_free(&m);
    if (rc == 0)
        return 0;
    /* The student's kernel alone failed to load or run (an instruction the interpreter refuses, a
     * kernel the GPU will not launch): the student's 0, each case saying why. A GPU that cannot
     * run what the grader built is the grader's (below), whatever the student's kernel printed. */
    if (checking.device.failed_role == ROLE_STUDENT && (checking.emulator || (checking.device.device[0] &&
                                                                              !image_error(checking.device.cuda_error)))) {
        say("Your kernel could not run: %s\n", why);
        snprintf(probe_failure, sizeof probe_failure, "Your kernel could not run: %s\n", why);
        return PROBE_STUDENT;
    }
    if (checking.emulator) {
        say("The emulator could not run lesson %d's kernels: %s\n", checking.lesson->number, why);
        return -1;
    }
    if (checking.device.device[0] == '\0') {
        say("No NVIDIA GPU is usable here (%s), so lesson %d cannot be graded on a GPU; "
            "the build itself succeeded.\n",
            checking.device.failure[0] ? checking.device.failure : why, checking.lesson->number);
        return EXIT_NO_GPU;
    }
    if (image_error(checking.device.cuda_error)) {
        say("The check programs cannot run on this GPU (%s, compute capability %d.%d): they were built for another "
            "one: %s. Nothing of lesson %d was graded: rebuild them for this GPU (make clean here, or CUDA_ARCH=%d%d "
            "where they are built).\n",
            checking.device.device, checking.device.cc_major, checking.device.cc_minor, why, checking.lesson->number,
            checking.device.cc_major, checking.device.cc_minor);
        return EXIT_NO_GPU;
    }
    say("The GPU run could not start: %s\n", why);
    return -1;
}

/* Which judge this is (check or check-emu, by its name), where its runners lie, and the
 * student's file (the build writes its path beside this program). */
static void find_parts(const char *argv0)
{
    char self[800];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = '\0';
    const char *name = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
    checking.emulator = strlen(name) > 4 && strcmp(name + strlen(name) - 4, "-emu") == 0;
    snprintf(checking.here, sizeof checking.here, "%s", self);
    char *slash = strrchr(checking.here, '/');
    if (slash)
        *slash = '\0';
    snprintf(checking.common, sizeof checking.common, "%s/../../common/%s", checking.here, checking.lesson->folder);
    char path[900];
    snprintf(path, sizeof path, "%s/source", checking.here);
    FILE *f = fopen(path, "r");
    if (!f || !fgets(checking.source, sizeof checking.source, f))
        snprintf(checking.source, sizeof checking.source, "%s.cu", checking.lesson->kernel);
    checking.source[strcspn(checking.source, "\n")] = '\0';
    if (f)
        fclose(f);
}

/* The record for make (check_record.h), its points by the record's rules. */
static void write_result(int no_gpu)
{
    const char *path = getenv("WB_RESULT_FILE"), *only = getenv("ONLY");
    struct check_record *r = &checking.record;
    if (!path || !*path)
        return;
    r->lesson = checking.lesson->number;
    r->no_gpu = no_gpu;
    r->hung = checking.hung;
    r->partial = only && *only; /* ONLY picked some cases: passing them is not passing the lesson */
    r->emulator = checking.emulator;
    r->speed_ms = checking.speed_ms;
    r->speedup = checking.speedup;
    r->solution_ms = checking.solution_ms;
    r->baseline_ms = checking.baseline_ms;
    r->limit_share = checking.limit_share;
    record_score(r);
    if (record_write(path, r) != 0)
        fprintf(stderr, "cannot write the check's record %s\n", path);
}

/* The record's cases, one per test, before any runs: a case ONLY leaves out stays not-run. */
static void record_cases(const struct CMUnitTest *tests, size_t n)
{
    checking.current = -1;
    for (size_t i = 0; i < n && i < RECORD_MAX_CASES; i++) {
        const struct check_case *c = tests[i].initial_state;
        recorded[checking.record.ncases] = c;
        struct case_record *rc = &checking.record.cases[checking.record.ncases++];
        snprintf(rc->name, sizeof rc->name, "%s", tests[i].name);
        rc->kind = c->kind;
        rc->max_points = c->points;
    }
}

/* The cases' points must add up to what lessons/registry says the lesson is worth, and a case
 * the emulator leaves to the GPU judge must be worth nothing (the same points in both judges). */
static int points_agree(void)
{
    int sum = 0;
    for (size_t i = 0; i < lesson.ncases; i++) {
        const struct check_case *c = &lesson.cases[i];
        sum += c->points;
        if (c->kind == CASE_CORRECT && c->points && case_work(c) > EMU_MAX_WORK) {
            fprintf(stderr, "lessons/%s/check.c: case \"%s\" is worth %d points but is too large for the emulator, "
                            "which leaves it to the GPU judge: make it worth 0\n",
                    checking.lesson->folder, c->name, c->points);
            return 0;
        }
    }
    if (sum != checking.lesson->points)
        fprintf(stderr, "lessons/%s/check.c: the cases are worth %d points together, lessons/registry says %d\n",
                checking.lesson->folder, sum, checking.lesson->points);
    return sum == checking.lesson->points;
}

/* The sizes memory traffic is counted at, as text: the family's, and the one the seed draws. */
static const char *counting_size(char *buf, size_t len)
{
    const struct family *f = checking.lesson->family;
    char fixed[32], drawn[32];
    int rows, cols;
    count_size(1, &rows, &cols);
    int first_rows, first_cols;
    count_size(0, &first_rows, &first_cols);
    snprintf(buf, len, "%s and %s", f->size_text(first_rows, first_cols, fixed, sizeof fixed),
             f->size_text(rows, cols, drawn, sizeof drawn));
    return buf;
}

/* The cases the GPU's tools add (SANITIZE=1, PROFILE=1): compute-sanitizer at the first
 * correctness size of two tiles or more with partial tiles (quick under the tools), the
 * counters on the speed case's inputs. The emulator adds the first (unless SANITIZE=0), made with
 * its own checks (case_emu_sanitizer), so that a fault voids a lesson whichever judge grades it;
 * its counts are its speed case. Appended to tests[n]; returns how many. */
static size_t add_gate_cases(struct CMUnitTest *tests, size_t n)
{
    static char names[2][96];
    const char *sanitize = getenv("SANITIZE"), *profile = getenv("PROFILE");
    int emulator = checking.emulator;
    char sz[32];
    for (size_t i = 0; i < lesson.ncases; i++) {
        const struct check_case *c = &lesson.cases[i];
        int k = c->kind == CASE_CORRECT && c->rows >= 64 && c->rows % TILE ? 0 : c->kind == CASE_SPEED && !emulator ? 1 : -1;
        const char *on = k == 0 ? sanitize : profile;
        if (k < 0 || gate_cases[k].name || (on ? !atoi(on) : !(emulator && k == 0)))
            continue;
        gate_cases[k] = *c;
        gate_cases[k].points = 0; /* a gate adds no points: its failure takes some (check_record.h) */
        gate_cases[k].kind = k == 0 ? CASE_SANITIZER : CASE_PROFILE;
        gate_stream[k] = i;
        if (k == 0)
            snprintf(names[0], sizeof names[0], "%s %s", emulator ? "memcheck, racecheck, synccheck" : "compute-sanitizer",
                     size_text(c, sz, sizeof sz));
        else
            snprintf(names[1], sizeof names[1], "Nsight Compute counters %s", counting_size(sz, sizeof sz));
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
    printf("  The check demands (with the points each case earns in make grade):\n"
           "    correct output (every element, against %s and a CPU reference) at\n     ",
           reference_name());
    for (size_t i = 0; i < lesson.ncases; i++)
        if (lesson.cases[i].kind == CASE_CORRECT)
            printf(" %s (%d)", size_text(&lesson.cases[i], sz, sizeof sz), lesson.cases[i].points);
    printf("\n");
    for (size_t i = 0; i < lesson.ncases; i++)
        if (lesson.cases[i].kind == CASE_RESIDUES) {
            struct shape shapes[MAX_RESIDUE_SHAPES];
            int n = residue_cases(shapes);
            printf("    and at every residue class of the sizes, %d points for all of them (the tile edges a kernel\n"
                   "    may use pick the sizes):",
                   lesson.cases[i].points);
            for (int k = 0; k < n; k++) {
                struct check_case one = lesson.cases[i];
                one.rows = shapes[k].rows, one.cols = shapes[k].cols;
                printf("%s%s", k % 10 ? " " : "\n      ", size_text(&one, sz, sizeof sz));
            }
            printf("\n");
        }
    for (size_t i = 0; i < lesson.ncases; i++) {
        const struct check_case *c = &lesson.cases[i];
        if (c->kind == CASE_SPEED) {
            printf("    on a GPU, speed at %s: at least %.2fx the speed of %s, timed in the same run\n"
                   "      (%d points, earned only when every other case passed too)\n",
                   size_text(c, sz, sizeof sz), checking.limits.min_speedup, lesson.baseline_is, c->points);
            if (checking.limits.min_limit_share > 0)
                printf("      and at least %.0f%% of the throughput of %s doing the same work, timed in the same run\n",
                       100 * checking.limits.min_limit_share, checking.lesson->family->limit.routine);
            const struct family *f = checking.lesson->family;
            char fixed[32];
            int dims = f->nscalars == 1 ? 1 : 2, drawn = 0, rows, cols;
            for (int k = 0; k < dims; k++)
                drawn |= f->count_draw[k].lo != f->count_draw[k].hi;
            f->size_text(f->count_rows, f->count_cols, fixed, sizeof fixed);
            if (!drawn) { /* one second size, the same in every run */
                count_size(1, &rows, &cols);
                char second[32];
                printf("    in the emulator, memory traffic counted at %s and at %s, the same rules at both:\n", fixed,
                       f->size_text(rows, cols, second, sizeof second));
            } else {
                printf("    in the emulator, memory traffic counted at %s and at a second size drawn from the run's "
                       "seed\n      (", fixed);
                for (int k = 0; k < dims; k++) {
                    const struct count_draw *d = &f->count_draw[k];
                    const char *dim = f->nscalars == 1 ? "N" : k ? "; cols" : "rows";
                    if (d->lo == d->hi)
                        printf("%s = %d", dim, d->step * d->lo);
                    else if (d->step == 1) /* (every whole number: "a multiple of 1" says nothing) */
                        printf("%s from %d to %d", dim, d->lo, d->hi);
                    else
                        printf("%s a multiple of %d from %d to %d", dim, d->step, d->step * d->lo, d->step * d->hi);
                }
                printf(", never %s itself),\n      the same rules at both:\n", fixed);
            }
            char rules[TRAFFIC_RULES][RULE_TEXT];
            for (int k = 0, n = traffic_rules(rules, -1); k < n; k++)
                printf("    in the emulator: %s\n", rules[k]);
            if (f->timed_sample)
                printf("    and the same rules at %s, the size a GPU times, from %d blocks of each launch scaled to its\n"
                       "      grid, where the loads must cover the inputs and the stores the output\n",
                       size_text(c, sz, sizeof sz), f->timed_sample);
        }
        else if (c->kind == CASE_SHARED_BYTES)
            printf("    exactly %zu bytes of static shared memory: %s\n", c->bytes, c->why);
    }
    printf("    no race, barrier misuse or stray access at the first size of partial tiles (compute-sanitizer on a\n"
           "    GPU, the emulator's own checks there; SANITIZE=0 skips it): one found voids every point; and on\n"
           "    a GPU with PROFILE=1 (always in make grade), Nsight Compute's counters keep the traffic rule as ratios\n");
}

/* The run's options, from the environment that make check and the graders set. */
static void read_options(void)
{
    const char *fmt = getenv("CMOCKA_MESSAGE_OUTPUT");
    checking.narrate_to_stderr = fmt && *fmt && strcasecmp(fmt, "stdout") != 0;
    const char *seed = getenv("SEED");
    checking.seed = seed && *seed ? strtoull(seed, NULL, 10) : rng_fresh_seed();
    checking.timeout_s = env_double("TIMEOUT", 10.0, 1.0, 600.0);
    checking.reps = (int)env_double("REPS", 15, 10, MAX_REPS);
    checking.speed_size = (int)env_double("SPEED_SIZE", 0, 0, 16384);
    checking.stop_at_failure = env_double("WB_STOP_AT_FAILURE", 0, 0, 1) == 1;
    int count_at_speed_size = env_double("COUNT_AT_SPEED_SIZE", 0, 0, 1) == 1;
    for (size_t i = 0; i < lesson.ncases && count_at_speed_size; i++)
        if (lesson.cases[i].kind == CASE_SPEED) {
            struct check_case sized = speed_sized(&lesson.cases[i]);
            checking.count_rows = sized.rows, checking.count_cols = sized.cols;
            checking.sample_blocks = (int)env_double("WB_SAMPLE_BLOCKS", 0, 0, 1 << 20);
        }
}

int main(int argc, char **argv)
{
    static struct registry reg;
    char err[512];
    const char *registry_path = getenv("WB_REGISTRY") ? getenv("WB_REGISTRY") : "lessons/registry";
    if (registry_load(registry_path, &reg, err, sizeof err) != 0 || !(checking.lesson = registry_find(&reg, WB_LESSON))) {
        fprintf(stderr, "%s\n", checking.lesson ? err : "this check program's lesson is not in lessons/registry");
        return EXIT_USAGE;
    }
    find_parts(argv[0]);
    /* The lesson's thresholds, as the build copied them beside this program's common parts (from
     * lessons/NN_topic/thresholds): what grade-all hashes is what is judged. */
    char limits_path[1024];
    snprintf(limits_path, sizeof limits_path, "%s/thresholds", checking.common);
    if (thresholds_load(limits_path, &checking.limits, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return EXIT_USAGE;
    }
    checking.have_solution = WB_HAVE_SOLUTION;
    checking.current = -1;
    if (!points_agree())
        return EXIT_USAGE;
    if (argc > 1 && strcmp(argv[1], "--describe") == 0) {
        describe();
        return 0;
    }
    quiet_cmocka_locations();
    read_options();

    say("Lesson %d (%s): checking %s\n", checking.lesson->number, checking.lesson->folder, checking.source);
    /* The cases first: the probe may run the first batch, which holds the gates' jobs. */
    struct CMUnitTest *tests = calloc(lesson.ncases + 2, sizeof *tests);
    if (!tests)
        return 1;
    static char counts_name[64];
    char sz[32];
    snprintf(counts_name, sizeof counts_name, "memory traffic %s", counting_size(sz, sizeof sz));
    for (size_t i = 0; i < lesson.ncases; i++) {
        const struct check_case *c = &lesson.cases[i];
        const char *name = checking.emulator && c->kind == CASE_SPEED ? counts_name : c->name;
        tests[i] = (struct CMUnitTest){name, run_case, NULL, NULL, (void *)c};
    }
    size_t ntests = lesson.ncases + add_gate_cases(tests, lesson.ncases);
    if (ntests > RECORD_MAX_CASES) { /* an author's mistake: every case must reach the record */
        fprintf(stderr, "lessons/%s/check.c: %zu cases, more than the %d a record holds (check_record.h)\n",
                checking.lesson->folder, ntests, RECORD_MAX_CASES);
        return EXIT_USAGE;
    }
    record_cases(tests, ntests);
    int probe = probe_device();
    if (probe == PROBE_STUDENT) { /* every case failed, for the reason said */
        for (int i = 0; i < checking.record.ncases; i++) {
            checking.record.cases[i].result = RESULT_FAILED;
            checking.record.cases[i].output = strdup(probe_failure);
        }
        write_result(0);
        return 1;
    }
    if (probe != 0) {
        record_free(&checking.record); /* nothing was graded: the record holds no case */
        checking.record.ncases = 0;
        write_result(probe == EXIT_NO_GPU);
        return probe == EXIT_NO_GPU ? EXIT_NO_GPU : 1;
    }
    if (checking.emulator)
        say("Judge: the CPU emulator (no GPU here, or EMU=1): correctness, and memory traffic counted exactly "
            "instead of timed\n");
    else
        say("Judge: the GPU, %s (compute capability %d.%d, CUDA driver %d.%d)\n", checking.device.device,
            checking.device.cc_major, checking.device.cc_minor, checking.device.driver_version / 1000, checking.device.driver_version % 1000 / 10);
    say("Inputs from seed %llu (same inputs again: make check SEED=%llu)\n", (unsigned long long)checking.seed,
        (unsigned long long)checking.seed);

    const char *only = getenv("ONLY");
    if (only && *only)
        cmocka_set_test_filter(only);
    char group[96];
    snprintf(group, sizeof group, "lesson %d (%s)", checking.lesson->number, checking.lesson->folder);
    int failed = _cmocka_run_group_tests(group, tests, ntests, NULL, NULL);
    /* A pass here is the emulator's: say what it did not judge, which the GPU judge will. */
    if (checking.emulator && !failed && !(only && *only))
        say("Not judged in the emulator: your kernel's time (a GPU times it against %s%s%s), and the sizes "
            "left to the GPU (skipped above). A kernel slow for a reason its memory traffic does not show "
            "passes here and can fail on a GPU.\n",
            lesson.baseline_is ? lesson.baseline_is : "the baseline",
            checking.limits.min_limit_share > 0 ? " and " : "",
            checking.limits.min_limit_share > 0 ? checking.lesson->family->limit.routine : "");
    write_result(0);
    free(tests);
    return failed ? 1 : 0;
}
