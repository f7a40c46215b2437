/* Starting a runner (spawn.c): one side's runner command, and the side started on its own copies
 * of the jobs and finished. It stands on the run's state alone (check_run.h); the reference
 * cache, the jobs and the GPU's tools, above it, start their runners through it. */
#ifndef WB_SPAWN_H
#define WB_SPAWN_H
#include <stddef.h>

#include "gpu_job.h"
#include "isolate.h"

/* Builds a side's runner command into argv (NULL-terminated; plain: the GPU runner's mode for
 * the tools, where side may be SIDE_STUDENT with the baseline's role too; njobs > 1: a batch;
 * turn: its fd 3 + njobs is the socket of its turn with the GPU alone, gpu_turn.h). Returns argv. */
char **runner_argv(int side, int plain, int njobs, int turn, char **argv);
/* One side's runner: started on its own copies of the jobs (limits and sandbox for the
 * emulator's), then finished, after which the caller reads back from each copy what the side
 * may write and then unmaps them; started apart, two sides can run at once. */
struct launch {
    char **argv;
    const int *job_fds;
    int njobs;
    int turn_fd; /* -1, or the socket of its turn with the GPU alone (gpu_turn.h): its fd 3 + njobs */
    double cpu_s; /* emulator: the CPU-time limit; 0 for the GPU's runner */
    const char *folder;
};
struct side_run {
    int n;
    struct gpu_job *copy[MAX_BATCH];
    size_t bytes[MAX_BATCH];
    int fd[MAX_BATCH];
    char folder[32];
    char *argv[12];
    struct launch launch;
    struct isolate_child child;
};
int side_start(struct gpu_job *const *jobs, int n, int side, double cpu_s, int turn_fd, struct side_run *s,
               struct isolate_result *r);
/* The side's copies of the jobs alone, no runner started (side_start's first step). */
int side_copies(struct gpu_job *const *jobs, int n, int side, struct side_run *s);
void side_finish(struct side_run *s, double wall_s, struct isolate_result *r);
void side_abandon(struct side_run *s);

#endif
