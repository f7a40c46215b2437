/* Judging outputs (judge.c): the student's output against the reference kernel's and the CPU's,
 * the guard zones, and the size memory traffic is counted at with its job run and judged. It
 * stands on the jobs (jobs.h) and the run's state; main.c, above it, judges each case's jobs
 * with it. */
#ifndef WB_JUDGE_H
#define WB_JUDGE_H
#include <stddef.h>
#include <stdint.h>

#include "gpu_job.h"
#include "jobs.h"

/* 0 if got is right; otherwise reports the mismatches and a diagnosis and returns -1. */
int judge_output(struct gpu_job *job, const float *got, const char *when);
/* 0 if the student's later launches (timed, or counted) were right as well: the range each
 * element took over them (gpu_job.h), judged like the first output; otherwise reported, -1. */
int judge_later_outputs(struct gpu_job *job, const char *when);
/* Whether the student's output agrees with the reference side's within the tolerance, saying nothing. */
int output_agrees(struct gpu_job *job);
/* 0 unless the kernel wrote into the guard zones around its output (then reported, -1). */
int judge_guards(const struct gpu_job *job);
/* The kernels run at the size traffic is counted at (its text in sz), the emulator counting
 * when `count`; fails the current test unless the student's output is right there. */
struct job_mem counted_job(int count, int drawn, uint64_t stream, char *sz, size_t szlen);
/* The same at rows x cols with only `blocks` blocks of each launch run (the emulator's sample at
 * the speed case's size: family.h's timed_sample), the output judged where they wrote it. */
struct job_mem sampled_job(int rows, int cols, int blocks, uint64_t stream, char *sz, size_t szlen);
/* Its output alone: `blocks` blocks of the student's launch, nothing counted. */
struct job_mem sampled_output_job(int rows, int cols, int blocks, uint64_t stream, char *sz, size_t szlen);
/* The judgement of a counted job after it ran (ran: completed; else why says how it failed):
 * 0, or -1 with the failure. */
int counted_judge(struct job_mem *m, const char *sz, int ran, const char *why, char *failure, size_t len);
/* The size memory traffic is counted at: the family's own, or (drawn) the second one this run's
 * seed draws (family.h), which no kernel can expect. */
void count_size(int drawn, int *rows, int *cols);

#endif
