/* The GPU's own tools as gates (tools.c): compute-sanitizer and Nsight Compute run on a runner
 * in its plain mode, their logs read back and said. It stands on the jobs (jobs.h), the runners'
 * start (spawn.h), the GPU's sharing and the run's state; main.c, above it, calls it from its
 * cases, and judges the outputs a gate needs right first. */
#ifndef WB_TOOLS_H
#define WB_TOOLS_H
#include <stddef.h>
#include <stdint.h>

#include "check.h"

void case_sanitizer(const struct check_case *c, uint64_t stream);
/* After the student's kernel crashed on the GPU: memcheck on it alone, to point at the access. */
void explain_crash(const struct check_case *c, uint64_t stream);
/* After its output was wrong on the GPU (once a run): synccheck and racecheck on it alone, since
 * a misused barrier shows there only as wrong elements. */
void explain_wrong(const struct check_case *c, uint64_t stream);
/* Nsight Compute's gate, around main.c's check of the outputs at the two counting sizes: where
 * ncu is, into ncu (the case said skipped and ended where it is not found); then the counters of
 * the student's kernel and the baseline at those sizes (sized, their text in sz, the inputs of
 * cases stream and stream + 1), said and held to the lesson's traffic rules. */
void profile_tool(char *ncu, size_t len);
void profile_counters(const char *ncu, const struct check_case sized[2], uint64_t stream, const char sz[2][32]);

#endif
