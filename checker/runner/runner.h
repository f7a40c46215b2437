/* A runner's own view (checker/runner/): the kernels of the roles it runs. A runner is a
 * program the judge starts for one side of a job (gpu_job.h); it only launches kernels and
 * writes what they did into the job, and decides nothing. */
#ifndef WB_RUNNER_H
#define WB_RUNNER_H
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "gpu_job.h"

/* The job's family, or NULL when the job names none that this program knows. */
static inline const struct family *job_family(const struct gpu_job *job)
{
    return family_named(job->family);
}
/* The family role's kernel is written for, whose launch it gets: the baseline's may differ. */
static inline const struct family *job_role_family(const struct gpu_job *job, int role)
{
    return family_named(role == ROLE_BASELINE ? job->baseline_family : job->family);
}
/* The element size of the inputs role's kernel takes: 2 for halves (family.h), else 4. */
static inline size_t role_input_size(const struct gpu_job *job, int role)
{
    const struct family *f = job_role_family(job, role);
    return f && f->input_half ? 2 : 4;
}

struct kernel_entry {
    const char *name;
    /* Launches as the job's family says (family.h: arguments, block and grid); returns the error
     * of the launch itself (a cudaError_t on the GPU, an EMU_* code in the emulator), not of the
     * kernel's execution. The inputs are of the element type the kernel's family takes. */
    int (*launch)(const struct kernel_entry *k, const struct gpu_job *job, const void *in0, const void *in1, float *out);
    /* Static shared bytes and registers per thread. */
    int (*attributes)(const struct kernel_entry *k, size_t *static_smem, int *regs);
    void *handle; /* the GPU's cudaKernel_t */
};

/* The kernel of each role this runner has, NULL for the others (the runner's main sets them). */
extern const struct kernel_entry *runner_kernels[ROLE_COUNT];

/* The element types the inputs of this runner's kernels take: types[0] floats, types[1] halves. */
static inline void runner_input_types(const struct gpu_job *job, int types[2])
{
    for (int r = 0; r < ROLE_COUNT; r++)
        if (runner_kernels[r])
            types[role_input_size(job, r) == 2] = 1;
}

/* The job the judge handed over as file descriptor fd, mapped shared; NULL if it is not one. */
static inline struct gpu_job *runner_map_job(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(struct gpu_job))
        return NULL;
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : (struct gpu_job *)p;
}

/* The size of a batch (gpu_job.h) from `--jobs=N` at argv[1] (taken off argv), else 1; 0 when N
 * is not one. */
static inline int runner_batch(int *argc, char ***argv)
{
    if (*argc < 2 || strncmp((*argv)[1], "--jobs=", 7) != 0)
        return 1;
    int n = atoi((*argv)[1] + 7);
    (*argv)[1] = (*argv)[0];
    (*argv)++;
    (*argc)--;
    return n >= 1 && n <= MAX_BATCH ? n : 0;
}

#endif
