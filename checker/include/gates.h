/* The GPU's own tools as extra gates of the GPU judge: compute-sanitizer (races, barriers,
 * stray accesses) and Nsight Compute's counters (sectors, bank conflicts). The check program
 * runs them on a runner in its plain mode (gpu-runner --plain ...), reads their logs
 * back and turns them into sentences and counts. A tool that is missing or cannot run is
 * reported as skipped, never as passed. */
#ifndef WB_GATES_H
#define WB_GATES_H
#include <stddef.h>

#include "counts.h"
#include "isolate.h"

/* A tool's path: the environment variable's value if set (the Makefile passes the CUDA
 * toolkit's), else the first `name` on PATH; NULL if neither is an executable. */
const char *find_tool(const char *env, const char *name, char *buf, size_t len);

/* Runs argv (argv[0] a path) in a child with a time limit, its output captured in *r. */
void run_tool(char *const argv[], double timeout_s, struct isolate_result *r);
/* The same started apart (isolate.h), so that several tools can run at once. */
int tool_start(char *const argv[], struct isolate_child *c, struct isolate_result *r);

/* A device buffer the run printed as "wb-buffer NAME 0xADDRESS BYTES". */
struct named_buffer {
    char name[16];
    unsigned long long address, bytes;
};
/* Reads the wb-buffer lines out of a run's output. Returns how many (at most max). */
int parse_buffers(const char *output, struct named_buffer *b, int max);

/* A compute-sanitizer log: the number its ERROR SUMMARY gives (-1 if it has none), and into
 * `digest` the first findings as readable lines: the "=========" frame removed, out-of-bounds
 * addresses named after the run's buffers ("4 bytes past the end of A"). */
int sanitizer_digest(const char *log, const struct named_buffer *b, int nb, char *digest, size_t len);

/* Nsight Compute's metrics for struct mem_counts, comma-separated, for --metrics. */
extern const char NCU_METRICS[];
/* The same for a GPU of compute capability cc_major: without cp.async's (before 8.0). */
const char *ncu_metrics(int cc_major);

/* Nsight Compute's CSV (--csv --page raw --print-units base) of one launch each of the
 * student's kernel (named "student::...") and the baseline ("baseline::..."): their counts.
 * Returns 0 when both were found, else -1 with the reason in `why`. */
int ncu_parse(const char *csv, struct mem_counts *student, struct mem_counts *baseline, char *why, size_t len);
/* The same for the launches of a run, in the order they ran: the first n kernels' counts. */
int ncu_parse_rows(const char *csv, struct mem_counts *counts, int n, char *why, size_t len);

#endif
