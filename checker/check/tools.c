/* The GPU's own tools as gates (check_run.h, gates.h): this program run again as
 * `check --run ...` under compute-sanitizer or Nsight Compute, their logs read back. */
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
    snprintf(sseed, sizeof sseed, "%llu", (unsigned long long)checking.seed);
    snprintf(sstream, sizeof sstream, "%llu", (unsigned long long)stream);
    char *argv[48];
    int n = 0;
    for (; tool_argv[n] && n < 36; n++)
        argv[n] = tool_argv[n];
    char *tail[] = {"--log-file", log, checking.self_path, "--run", (char *)roles, srows, scols, sseed, sstream, NULL};
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
                         uint64_t stream)
{
    /* Three errors say where; the count comes from the tool's summary. */
    char *const argv[] = {(char *)sanitizer, "--tool", (char *)tool, "--error-exitcode", "86", "--print-limit", "3",
                          "--show-backtrace", "no", NULL};
    struct isolate_result r;
    struct named_buffer bufs[4];
    int nbufs;
    char *log = run_watched(argv, "student", rows, cols, stream, 6 * checking.timeout_s, &r, bufs, &nbufs);
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
        skip();
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
        fail_msg("compute-sanitizer found errors in your kernel at %s", sz);
    if (unusable) {
        say("  Skipped, not passed: a sanitizer tool could not run here.\n");
        skip();
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

void case_profile(uint64_t stream)
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
    char *csv = run_watched(argv, "student,baseline", rows, cols, stream, 12 * checking.timeout_s, &r, bufs, &nbufs);
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

/* The inputs of that case, each role launched once (gpu_run_plain), for compute-sanitizer or
 * Nsight Compute to watch. */
int run_for_tools(char **argv)
{
    int roles[2], nroles = 0;
    if (strstr(argv[0], "student"))
        roles[nroles++] = ROLE_STUDENT;
    if (strstr(argv[0], "baseline"))
        roles[nroles++] = ROLE_BASELINE;
    int rows = atoi(argv[1]), cols = atoi(argv[2]);
    checking.seed = strtoull(argv[3], NULL, 10);
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
