/* The GPU's own tools as gates (tools.h, gates.h): a runner in its plain mode (one launch
 * of its kernel, no guard zones) under compute-sanitizer or Nsight Compute, their logs read
 * back: the student's runner for the student's kernel, the reference side's for the baseline. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "check_run.h"
#include "gates.h"
#include "gpu_share.h"
#include "gpu_turn.h"
#include "isolate.h"
#include "jobs.h"
#include "spawn.h"
#include "textfile.h"
#include "tools.h"
#include "traffic.h"

/* Nsight Compute's conflict counter is not exactly zero on every conflict-free kernel (tens of
 * thousands against tens of millions of wavefronts were seen on a large tiled matmul), so its
 * rule is a share: conflicts at most this fraction of the shared-memory wavefronts. On the H200
 * at the gate's sizes: 0 for the padded and swizzled tiles, 0.33 for a 2-way conflict, 0.94 for
 * the unpadded tile's 32-way one (docs/gates.md). */
#define NCU_CONFLICT_SHARE 0.05

/* WB_KEEP_TOOL_LOGS=DIR keeps each tool's log there (checker/bench/gpu-gates.sh collects them
 * as the parsers' test data): DIR/TOOL[-SUBTOOL]-WHO.log, WHO the side(s) the tool watched. */
static void keep_log(char *const tool_argv[], const char *who, const char *text)
{
    const char *dir = getenv("WB_KEEP_TOOL_LOGS");
    if (!dir || !*dir || !text)
        return;
    const char *tool = strrchr(tool_argv[0], '/') ? strrchr(tool_argv[0], '/') + 1 : tool_argv[0], *sub = "";
    for (int i = 1; tool_argv[i] && tool_argv[i + 1]; i++)
        if (strcmp(tool_argv[i], "--tool") == 0)
            sub = tool_argv[i + 1];
    char path[1200];
    snprintf(path, sizeof path, "%s/%s%s%s-%s.log", dir, tool, *sub ? "-" : "", sub, who);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A side's runner in its plain mode under a tool: SIDE_STUDENT or the baseline alone, on n jobs
 * (a batch) with these shapes and the inputs of these cases. */
struct watched {
    int roles, n;
    int rows[2], cols[2];
    uint64_t stream[2];
};

/* A tool run in flight: its log, its job files, its command. */
struct watch {
    char log[32], jobs[2][32], list[80];
    int njobs;
    char *argv[72];
    struct isolate_child child;
    struct isolate_result r;
};

/* Writes the run's jobs into private files and starts the tool on its runner (the files in
 * WB_JOB_FILE). 0, or -1 with w->r saying why. */
static int watch_start(struct watch *w, char *const tool_argv[], const struct watched *run)
{
    memset(w, 0, sizeof *w);
    w->r.outcome = ISOLATE_NOT_STARTED;
    snprintf(w->log, sizeof w->log, "/tmp/wb-tool-XXXXXX");
    int fd = mkstemp(w->log), ok = fd >= 0;
    if (fd >= 0)
        close(fd);
    for (int k = 0; k < run->n && ok && w->njobs < 2; k++) {
        char *file = w->jobs[w->njobs++];
        snprintf(file, sizeof w->jobs[0], "/tmp/wb-job-XXXXXX");
        int jfd = mkstemp(file);
        struct job_mem m = job_create(run->rows[k], run->cols[k], 1, 0);
        ok = jfd >= 0 && m.job;
        if (ok) {
            fill_inputs(m.job, run->stream[k]);
            m.job->roles = run->roles;
            m.job->have_solution = solution_present();
            ok = write(jfd, m.job, m.bytes) == (ssize_t)m.bytes;
        }
        job_free(&m);
        if (jfd >= 0)
            close(jfd);
        snprintf(w->list + strlen(w->list), sizeof w->list - strlen(w->list), "%s%s", k ? ":" : "", file);
    }
    if (!ok) {
        w->r.start_errno = errno;
        return -1;
    }
    int n = 0;
    for (; tool_argv[n] && n < 40; n++)
        w->argv[n] = tool_argv[n];
    w->argv[n++] = "--log-file";
    w->argv[n++] = w->log;
    char *runner[12];
    runner_argv(run->roles, 1, run->n, 0, runner);
    for (int k = 0; runner[k] && n < 70; k++)
        w->argv[n++] = runner[k];
    setenv("WB_JOB_FILE", w->list, 1); /* the child takes the environment as it is now */
    w->argv[n] = NULL;
    int rc = tool_start(w->argv, &w->child, &w->r);
    unsetenv("WB_JOB_FILE");
    return rc;
}

/* Waits for the tool; returns its log (malloc'd, or NULL) and in *bufs the device buffers the
 * runs printed. who names the log kept for the parsers' tests. */
static char *watch_finish(struct watch *w, int started, char *const tool_argv[], const char *who, double timeout_s,
                          struct named_buffer *bufs, int *nbufs)
{
    char *text = NULL;
    *nbufs = 0;
    if (started) {
        isolate_wait(&w->child, timeout_s, &w->r);
        *nbufs = parse_buffers(w->r.output, bufs, 4);
        text = read_text_file(w->log);
        keep_log(tool_argv, who, text);
    }
    unlink(w->log);
    for (int k = 0; k < w->njobs; k++)
        if (w->jobs[k][0])
            unlink(w->jobs[k]);
    return text;
}

/* compute-sanitizer's tools, and what each finds. */
enum { RACECHECK, SYNCCHECK, MEMCHECK, SANITIZER_TOOLS };
static const char *const sanitizer_tool[SANITIZER_TOOLS][2] = {
    {"racecheck", "shared-memory races"}, {"synccheck", "misused barriers"}, {"memcheck", "accesses outside the buffers"}};

/* What one finished sanitizer run found, said: 0 clean, 1 errors (shown), -1 the tool could not
 * run. */
static int sanitizer_verdict(struct watch *w, int started, char *const argv[], const char *tool, const char *finds)
{
    struct named_buffer bufs[4];
    int nbufs;
    char *log = watch_finish(w, started, argv, "student", 6 * checking.timeout_s, bufs, &nbufs);
    const struct isolate_result *r = &w->r;
    static char digest[4096];
    int errors = sanitizer_digest(log ? log : "", bufs, nbufs, digest, sizeof digest);
    free(log);
    if (r->outcome == ISOLATE_EXITED && r->status == 0 && errors <= 0) {
        say("    %-10s no %s\n", tool, finds);
        return 0;
    }
    if ((r->outcome == ISOLATE_EXITED && r->status == 86) || errors > 0) {
        if (errors > 0)
            say("    %-10s %d error%s:\n%s", tool, errors, errors == 1 ? "" : "s", digest);
        else /* an error exit without a count in the log */
            say("    %-10s errors:\n%s", tool, digest);
        return 1;
    }
    if (r->outcome == ISOLATE_EXITED && r->status == JOB_KERNEL_FAILED) {
        say("    %-10s saw nothing before your kernel crashed under it\n", tool);
        return 0; /* the crash itself is memcheck's to name */
    }
    char why[700];
    if (r->outcome == ISOLATE_EXITED)
        snprintf(why, sizeof why, "it stopped with exit code %d", r->status);
    else
        isolate_describe(r, why, sizeof why);
    say("    %-10s could not run: %s\n", tool, why);
    if (r->outcome == ISOLATE_EXITED) /* the tool's words and the kernel's printf, mixed */
        say_quoted("The tool's run", r->output, r->output_len, r->output_bytes, r->output_lines);
    return -1;
}

/* The sanitizer's tools `which` (a mask of 1 << RACECHECK ...) on the student's kernel at once,
 * each its own process beside the others, and their findings said in a fixed order. Counts the
 * tools that found errors and those that could not run. */
static void sanitize(const char *sanitizer, int which, int rows, int cols, uint64_t stream, int *found, int *unusable)
{
    static struct watch w[SANITIZER_TOOLS];
    char *argv[SANITIZER_TOOLS][12];
    int started[SANITIZER_TOOLS] = {0};
    struct watched run = {SIDE_STUDENT, 1, {rows}, {cols}, {stream}};
    *found = *unusable = 0;
    gpu_use(0, "sanitizer");
    for (int t = 0; t < SANITIZER_TOOLS; t++) {
        if (!(which >> t & 1))
            continue;
        /* Three errors say where; the count comes from the tool's summary. memcheck knows only
         * addresses outside every allocation: a read past the end of A that lands in B is not
         * one. Its padding after each allocation makes such an overrun one. */
        char *const a[] = {(char *)sanitizer, "--tool", (char *)sanitizer_tool[t][0], "--error-exitcode", "86",
                           "--print-limit", "3", "--show-backtrace", "no", t == MEMCHECK ? "--padding" : NULL, "65536",
                           NULL};
        memcpy(argv[t], a, sizeof a);
        started[t] = watch_start(&w[t], argv[t], &run) == 0;
    }
    for (int t = 0; t < SANITIZER_TOOLS; t++) {
        if (!(which >> t & 1))
            continue;
        int rc = sanitizer_verdict(&w[t], started[t], argv[t], sanitizer_tool[t][0], sanitizer_tool[t][1]);
        *found += rc > 0;
        *unusable += rc < 0;
    }
    gpu_done();
}

void case_sanitizer(const struct check_case *c, uint64_t stream)
{
    char sanitizer[1024], sz[32];
    if (!find_tool("WB_SANITIZER", "compute-sanitizer", sanitizer, sizeof sanitizer)) {
        say("  Skipped, not passed: compute-sanitizer was not found (it comes with the CUDA Toolkit; "
            "WB_SANITIZER=path names it).\n");
        case_skip(RESULT_SKIPPED);
    }
    say("  compute-sanitizer on your kernel alone at %s:\n", size_text(c, sz, sizeof sz));
    int found, unusable;
    sanitize(sanitizer, 1 << RACECHECK | 1 << SYNCCHECK | 1 << MEMCHECK, c->rows, c->cols, stream, &found, &unusable);
    if (found)
        case_fail("compute-sanitizer found errors in your kernel at %s", sz);
    if (unusable) {
        say("  Skipped, not passed: a sanitizer tool could not run here.\n");
        case_skip(RESULT_SKIPPED);
    }
}

void explain_crash(const struct check_case *c, uint64_t stream)
{
    char sanitizer[1024];
    if (!find_tool("WB_SANITIZER", "compute-sanitizer", sanitizer, sizeof sanitizer)) {
        say("  (compute-sanitizer, which would name the access, was not found.)\n");
        return;
    }
    say("  compute-sanitizer's memcheck on your kernel alone, same inputs:\n");
    int found, unusable;
    sanitize(sanitizer, 1 << MEMCHECK, c->rows, c->cols, stream, &found, &unusable);
}

void explain_wrong(const struct check_case *c, uint64_t stream)
{
    static int done;
    char sanitizer[1024];
    /* Once a run: the tools take seconds, and one finding explains every size. */
    if (done++ || !find_tool("WB_SANITIZER", "compute-sanitizer", sanitizer, sizeof sanitizer))
        return;
    say("  compute-sanitizer on your kernel alone, same inputs, for a barrier or a race behind the wrong elements:\n");
    int found, unusable;
    sanitize(sanitizer, 1 << RACECHECK | 1 << SYNCCHECK, c->rows, c->cols, stream, &found, &unusable);
    if (found)
        say("  compute-sanitizer found errors in your kernel at these inputs, and that is the cause to fix first: a "
            "barrier that not every thread of a block reaches (an early return, or __syncthreads() inside an `if`), "
            "or a missing one, leaves wrong elements wherever it bites, often at the edges, whatever the diagnosis "
            "above says.\n");
}

/* Nsight Compute's counters of the student's kernel and the baseline at one counting size (sz),
 * shown; 1 when they break the lesson's traffic rule, which `broken` then names (the
 * emulator's wording, so both judges' sentences match). */
static int profile_verdict(const char *sz, const struct mem_counts counts[2], char *broken, size_t len)
{
    const char *labels[2] = {"your kernel", "baseline"};
    say("  Memory traffic at %s, measured by Nsight Compute on the GPU:\n", sz);
    traffic_table(say, labels, counts, 2);
    uint64_t shared = counts[0].op[SHARED_LD].wavefronts + counts[0].op[SHARED_ST].wavefronts;
    double conflict_share = shared ? (double)all_conflicts(&counts[0]) / (double)shared : 0;
    double sector_ratio = sectors(&counts[1]) ? (double)sectors(&counts[0]) / (double)sectors(&counts[1]) : 0;
    int failed = 0;
    if (checking.limits.max_sector_ratio > 0) {
        say("  Global memory sectors: %.3f of the baseline's; required: at most %.2f.\n", sector_ratio,
            checking.limits.max_sector_ratio);
        if (sector_ratio > checking.limits.max_sector_ratio && !failed)
            snprintf(broken, len, "global memory sectors %.2f of the baseline's, at most %.2f allowed", sector_ratio,
                     checking.limits.max_sector_ratio);
        failed |= sector_ratio > checking.limits.max_sector_ratio;
    }
    if (checking.limits.no_bank_conflicts) {
        const double share = checking.limits.max_conflict_share, allowed = share > 0 ? share : NCU_CONFLICT_SHARE;
        say("  Bank conflicts: %.4f of your shared-memory wavefronts; required: at most %.2f (this counter is not "
            "exactly zero on conflict-free kernels).\n", conflict_share, allowed);
        if (conflict_share > allowed && !failed)
            snprintf(broken, len, "bank conflicts where none are allowed (%.2f of the shared-memory wavefronts, at "
                     "most %.2f allowed)", conflict_share, allowed);
        failed |= conflict_share > allowed;
    }
    return failed;
}

/* Nsight Compute on the run, its log returned as watch_finish's: where judges share the GPU,
 * its start and the runner's setup beside the others, and from the runner's word before its
 * first counted launch (gpu_turn.h) to its word that its context is gone (else the tool's end),
 * alone, so that no kernel of another context is in the counters. */
static char *profile_alone(struct watch *w, char *const argv[], const struct watched *run, double limit,
                           struct named_buffer *bufs, int *nbufs)
{
    struct turn_fifos t;
    int turn = turn_fifos_open(&t) == 0;
    if (turn)
        setenv(TURN_ENV, t.dir, 1);
    gpu_use(!turn, turn ? "ncu-setup" : "ncu"); /* without the FIFOs, alone from the start */
    int started = watch_start(w, argv, run) == 0;
    unsetenv(TURN_ENV);
    if (turn && started && turn_await(t.ready, &w->child, limit, TURN_READY)) {
        isolate_pause(&w->child, gpu_use(1, "ncu"));
        turn_give(t.go);
        if (turn_await(t.ready, &w->child, limit, TURN_DONE)) /* counted, its context gone: ncu's report */
            gpu_done();                                         /* is written without the GPU */
    }
    char *log = watch_finish(w, started, argv, "both", limit, bufs, nbufs);
    gpu_done();
    if (turn)
        turn_fifos_close(&t);
    return log;
}

void profile_tool(char *ncu, size_t len)
{
    if (!find_tool("WB_NCU", "ncu", ncu, len)) {
        say("  Skipped, not passed: Nsight Compute (ncu) was not found (it comes with the CUDA Toolkit; "
            "WB_NCU=path names it).\n");
        case_skip(RESULT_SKIPPED);
    }
}

/* One Nsight Compute run watches one runner that runs, at each size, the baseline and then the
 * student's kernel. */
void profile_counters(const char *ncu, const struct check_case sized[2], uint64_t stream, const char sz[2][32])
{
    char why[700];
    struct watched run = {SIDE_STUDENT | 1 << ROLE_BASELINE, 2, {sized[0].rows, sized[1].rows},
                          {sized[0].cols, sized[1].cols}, {stream, stream + 1}};

    /* WB_NCU_EXTRA: more metrics, for measuring only (checker/bench/speed-set.sh NCU=1, the time
     * model's calibration); the verdict reads its own columns by name and ignores them. */
    static char metrics[4096];
    const char *extra = getenv("WB_NCU_EXTRA");
    snprintf(metrics, sizeof metrics, "%s%s%s", ncu_metrics(checking.device.cc_major), extra && *extra ? "," : "",
             extra && *extra ? extra : "");
    /* Clocks left alone: the counts do not depend on them (the emulator's equal Nsight Compute's
     * so, docs/emulator.md), and a clock ncu locked would change another judge's timing. */
    char *const argv[] = {(char *)ncu, "--clock-control", "none", "--csv", "--page", "raw", "--print-units", "base",
                          "--metrics", metrics, "--kernel-name-base", "demangled", NULL};
    static struct watch w;
    struct named_buffer bufs[4];
    int nbufs;
    char *csv = profile_alone(&w, argv, &run, 24 * checking.timeout_s, bufs, &nbufs);
    struct mem_counts counts[4]; /* at each size in turn, the baseline's kernel and then the student's */
    int bad = ncu_parse_rows(csv ? csv : "", counts, 4, why, sizeof why);
    if (!bad && !(w.r.outcome == ISOLATE_EXITED && w.r.status == 0)) /* a row may be missing or another's */
        bad = 1, snprintf(why, sizeof why, "Nsight Compute's run did not complete");
    if (bad && ((csv && strstr(csv, "ERR_NVGPUCTRPERM")) || strstr(w.r.output, "ERR_NVGPUCTRPERM")))
        snprintf(why, sizeof why, "this user may not read the GPU's performance counters (ERR_NVGPUCTRPERM)");
    else if (bad && w.r.outcome == ISOLATE_EXITED && w.r.status != 0)
        snprintf(why + strlen(why), sizeof why - strlen(why), " (ncu stopped with exit code %d)", w.r.status);
    else if (bad && w.r.outcome != ISOLATE_EXITED)
        isolate_describe(&w.r, why, sizeof why);
    free(csv);
    if (bad) {
        say("  Skipped, not passed: %s.\n", why);
        case_skip(RESULT_SKIPPED);
    }
    int failed[2];
    char broken[2][200] = {"", ""};
    for (int drawn = 0; drawn < 2; drawn++) {
        const struct mem_counts pair[2] = {counts[2 * drawn + 1], counts[2 * drawn]};
        failed[drawn] = profile_verdict(sz[drawn], pair, broken[drawn], sizeof broken[drawn]);
    }
    if (failed[0] || failed[1])
        case_fail("Nsight Compute's counters break the lesson's traffic rule at %s%s%s: %s", failed[0] ? sz[0] : sz[1],
                  failed[0] && failed[1] ? " and at " : "", failed[0] && failed[1] ? sz[1] : "",
                  failed[0] ? broken[0] : broken[1]);
}
