/* The judge's jobs (jobs.c): a job's memory and inputs, and a job or a batch run by both sides'
 * runners, the reference side first, with what each side may write read back. It stands on the
 * runners' start (spawn.h), the reference cache, the GPU's sharing and the run's state; the
 * judging, the GPU's tools and the cases, above it, run their jobs through it. */
#ifndef WB_JOBS_H
#define WB_JOBS_H
#include <stddef.h>
#include <stdint.h>

#include "gpu_job.h"

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

#endif
