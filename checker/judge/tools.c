/* The GPU's own tools as gates (check_run.h, gates.h): a runner in its plain mode (one launch
 * of its kernel, no guard zones) under compute-sanitizer or Nsight Compute, their logs read
 * back: the student's runner for the student's kernel, the reference side's for the baseline. */
#define _GNU_SOURCE
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
#include "isolate.h"
#include "textfile.h"
#include "traffic.h"

/* Nsight Compute's conflict counter is not exactly zero on every conflict-free kernel (tens of
 * thousands against tens of millions of wavefronts were seen on a large tiled matmul), so its
 * rule is a share: conflicts at most this fraction of the shared-memory wavefronts. On the H200
 * at the gate's sizes: 0 for the padded and swizzled tiles, 0.33 for a 2-way conflict, 0.94 for
 * the unpadded tile's 32-way one (docs/gates.md). */
#define NCU_CONFLICT_SHARE 0.05

/* WB_KEEP_TOOL_LOGS=DIR keeps each tool's log there (checker/tools/gpu-gates.sh collects them
 * as the parsers' test data): DIR/TOOL[-SUBTOOL]-student.log or -baseline.log. */
static void keep_log(char *const tool_argv[], int roles, const char *text)
{
    const char *dir = getenv("WB_KEEP_TOOL_LOGS");
    if (!dir || !*dir || !text)
        return;
    const char *tool = strrchr(tool_argv[0], '/') ? strrchr(tool_argv[0], '/') + 1 : tool_argv[0], *sub = "";
    for (int i = 1; tool_argv[i] && tool_argv[i + 1]; i++)
        if (strcmp(tool_argv[i], "--tool") == 0)
            sub = tool_argv[i + 1];
    char path[1200];
    snprintf(path, sizeof path, "%s/%s%s%s-%s.log", dir, tool, *sub ? "-" : "", sub,
             roles == SIDE_STUDENT ? "student" : "baseline");
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Runs a side's runner in its plain mode under a tool (tool_argv, NULL-terminated) on the
 * inputs of case `stream`, the job in a private file, the tool's log in another; returns the
 * log (malloc'd, or NULL) and in *bufs the device buffers the run printed. roles: SIDE_STUDENT,
 * or the baseline alone. */
static char *run_watched(char *const tool_argv[], int roles, int rows, int cols, uint64_t stream, double timeout_s,
                         struct isolate_result *r, struct named_buffer *bufs, int *nbufs)
{
    char log[] = "/tmp/wb-tool-XXXXXX", jobfile[] = "/tmp/wb-job-XXXXXX";
    *nbufs = 0;
    memset(r, 0, sizeof *r);
    int fd = mkstemp(log), jfd = mkstemp(jobfile);
    struct job_mem m = job_create(rows, cols, 1, 0);
    int ok = fd >= 0 && jfd >= 0 && m.job;
    if (ok) {
        fill_inputs(m.job, stream);
        m.job->roles = roles;
        m.job->have_solution = solution_present();
        ok = write(jfd, m.job, m.bytes) == (ssize_t)m.bytes;
    }
    job_free(&m);
    if (fd >= 0)
        close(fd);
    if (jfd >= 0)
        close(jfd);
    char *text = NULL;
    if (ok) {
        char *argv[64], *runner[12];
        int n = 0;
        for (; tool_argv[n] && n < 40; n++)
            argv[n] = tool_argv[n];
        argv[n++] = "--log-file";
        argv[n++] = log;
        runner_argv(roles == SIDE_STUDENT ? SIDE_STUDENT : SIDE_REFERENCE, 1, runner);
        for (int k = 0; runner[k] && n < 60; k++)
            argv[n++] = runner[k];
        argv[n] = NULL;
        /* The runner finds the job in the file this names. */
        setenv("WB_JOB_FILE", jobfile, 1);
        run_tool(argv, timeout_s, r);
        unsetenv("WB_JOB_FILE");
        *nbufs = parse_buffers(r->output, bufs, 4);
        text = read_text_file(log);
        keep_log(tool_argv, roles, text);
    }
    unlink(log);
    unlink(jobfile);
    return text;
}

/* One compute-sanitizer tool on the student's kernel: 0 clean, 1 errors found (shown), -1 the
 * tool could not run (said). */
static int sanitize_with(const char *sanitizer, const char *tool, const char *finds, int rows, int cols,
                         uint64_t stream)
{
    /* Three errors say where; the count comes from the tool's summary. */
    /* memcheck knows only addresses outside every allocation: a read past the end of A that lands
     * in B is not one. Its padding after each allocation makes such an overrun one. */
    char *const argv[] = {(char *)sanitizer, "--tool", (char *)tool, "--error-exitcode", "86", "--print-limit", "3",
                          "--show-backtrace", "no", strcmp(tool, "memcheck") == 0 ? "--padding" : NULL, "65536", NULL};
    struct isolate_result r;
    struct named_buffer bufs[4];
    int nbufs;
    char *log = run_watched(argv, SIDE_STUDENT, rows, cols, stream, 6 * checking.timeout_s, &r, bufs, &nbufs);
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

void case_sanitizer(const struct check_case *c, uint64_t stream)
{
    char sanitizer[1024], sz[32];
    if (!find_tool("WB_SANITIZER", "compute-sanitizer", sanitizer, sizeof sanitizer)) {
        say("  Skipped, not passed: compute-sanitizer was not found (it comes with the CUDA Toolkit; "
            "WB_SANITIZER=path names it).\n");
        case_skip(RESULT_SKIPPED);
    }
    say("  compute-sanitizer on your kernel alone at %s:\n", size_text(c, sz, sizeof sz));
    const char *tools[][2] = {{"racecheck", "shared-memory races"},
                              {"synccheck", "misused barriers"},
                              {"memcheck", "accesses outside the buffers"}};
    int found = 0, unusable = 0;
    for (size_t t = 0; t < sizeof tools / sizeof tools[0]; t++) {
        int rc = sanitize_with(sanitizer, tools[t][0], tools[t][1], c->rows, c->cols, stream);
        found += rc > 0;
        unusable += rc < 0;
    }
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
    sanitize_with(sanitizer, "memcheck", "access outside the buffers this time", c->rows, c->cols, stream);
}

void explain_wrong(const struct check_case *c, uint64_t stream)
{
    static int done;
    char sanitizer[1024];
    /* Once a run: the tools take seconds, and one finding explains every size. */
    if (done++ || !find_tool("WB_SANITIZER", "compute-sanitizer", sanitizer, sizeof sanitizer))
        return;
    say("  compute-sanitizer on your kernel alone, same inputs, for a barrier or a race behind the wrong elements:\n");
    int found = sanitize_with(sanitizer, "synccheck", "misused barriers", c->rows, c->cols, stream) > 0;
    found += sanitize_with(sanitizer, "racecheck", "shared-memory races", c->rows, c->cols, stream) > 0;
    if (found)
        say("  That is the cause to fix first: a barrier that not every thread of a block reaches (an early return, "
            "or __syncthreads() inside an `if`), or a missing one, leaves wrong elements wherever it bites, often "
            "at the edges, whatever the diagnosis above says.\n");
}

/* Nsight Compute's counters at one of the two counting sizes (drawn: the seed's), shown; 1 when
 * they break the lesson's traffic rule (its size in sz), -1 when they could not be read (why). */
static int profile_at(const char *ncu, int drawn, uint64_t stream, char *sz, size_t szlen, char *why, size_t len)
{
    struct job_mem right = counted_job(0, drawn, stream, sz, szlen);
    int rows = right.job->rows, cols = right.job->cols;
    job_free(&right);
    char *const argv[] = {(char *)ncu, "--csv", "--page", "raw", "--print-units", "base", "--metrics", (char *)NCU_METRICS,
                          "--kernel-name-base", "demangled", NULL};
    /* Each side's runner alone: the student's kernel, then the baseline. */
    const int roles[2] = {SIDE_STUDENT, 1 << ROLE_BASELINE};
    struct mem_counts counts[2];
    int bad = 0;
    for (int k = 0; k < 2 && !bad; k++) {
        struct isolate_result r;
        struct named_buffer bufs[4];
        int nbufs;
        char *csv = run_watched(argv, roles[k], rows, cols, stream, 12 * checking.timeout_s, &r, bufs, &nbufs);
        bad = ncu_parse_one(csv ? csv : "", &counts[k], why, len);
        if (bad && ((csv && strstr(csv, "ERR_NVGPUCTRPERM")) || strstr(r.output, "ERR_NVGPUCTRPERM")))
            snprintf(why, len, "this user may not read the GPU's performance counters (ERR_NVGPUCTRPERM)");
        else if (bad && r.outcome == ISOLATE_EXITED && r.status != 0)
            snprintf(why + strlen(why), len - strlen(why), " for %s (ncu stopped with exit code %d)",
                     k ? "the baseline" : "your kernel", r.status);
        free(csv);
    }
    if (bad)
        return -1;
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
        const double allowed = lesson.max_conflict_share > 0 ? lesson.max_conflict_share : NCU_CONFLICT_SHARE;
        say("  Bank conflicts: %.4f of your shared-memory wavefronts; required: at most %.2f (this counter is not "
            "exactly zero on conflict-free kernels).\n", conflict_share, allowed);
        failed |= conflict_share > allowed;
    }
    return failed;
}

/* The counters at the family's counting size and at the size the seed draws (as the emulator
 * counts): a kernel that keeps the rule only at a size it expects breaks it at the other. */
void case_profile(uint64_t stream)
{
    char ncu[1024], sz[2][32], why[700];
    if (!find_tool("WB_NCU", "ncu", ncu, sizeof ncu)) {
        say("  Skipped, not passed: Nsight Compute (ncu) was not found (it comes with the CUDA Toolkit; "
            "WB_NCU=path names it).\n");
        case_skip(RESULT_SKIPPED);
    }
    int failed[2];
    for (int drawn = 0; drawn < 2; drawn++) {
        failed[drawn] = profile_at(ncu, drawn, stream + (uint64_t)drawn, sz[drawn], sizeof sz[drawn], why, sizeof why);
        if (failed[drawn] < 0) {
            say("  Skipped, not passed: %s.\n", why);
            case_skip(RESULT_SKIPPED);
        }
    }
    if (failed[0] || failed[1])
        case_fail("Nsight Compute's counters break the lesson's traffic rule at %s%s%s", failed[0] ? sz[0] : sz[1],
                  failed[0] && failed[1] ? " and at " : "", failed[0] && failed[1] ? sz[1] : "");
}
