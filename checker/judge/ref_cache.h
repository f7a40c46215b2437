/* The reference side, remembered (ref_cache.c, WB_REF_CACHE): a side's copies of the jobs as the
 * reference runner left them, taken from the cache or kept in it. It stands on spawn.h (a side's
 * copies) and the run's state; jobs.c, above it, asks it before starting the reference side. */
#ifndef WB_REF_CACHE_H
#define WB_REF_CACHE_H

#include "gpu_job.h"
#include "isolate.h"
#include "spawn.h"

/* The emulator's reference side from WB_REF_CACHE: 1 when every job's entry was there, s holding
 * the copies as the runner would have left them, r a runner that completed, cpu[k] the CPU
 * seconds job k took; else 0 (nothing held). */
int ref_cache_take(struct gpu_job *const *jobs, int n, struct side_run *s, struct isolate_result *r, double *cpu);
/* After a reference side that completed every job: each job's entry written (whole, or not at all). */
void ref_cache_keep(struct gpu_job *const *jobs, int n, const struct side_run *s, const struct isolate_result *r,
                    const double *cpu);

#endif
