/* Starting a runner (spawn.h): one side of a job, as a program of its own on its own copy
 * of the job (a memfd, its fd 3). The emulator's runners run lesson files as host code, so
 * before they start they get: a CPU-time limit (a budget that does not depend on how busy the
 * machine is), limits on memory and file size, an empty working folder, an empty environment
 * and, where bubblewrap works, namespaces of their own (no network, a read-only file system, a
 * process tree that dies with them); the runner then shuts itself into its seccomp filter
 * (checker/runner/sandbox.c). Where bubblewrap is missing or not permitted the report says so
 * once, and the rest still holds. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check_run.h"
#include "gates.h"
#include "objgate.h"
#include "spawn.h"

/* Each runner's program and the kernels' files it loads, [0] the GPU's (cubins) and [1] the
 * emulator's (PTX): the same roles, built from the same names. */
static char runner[2][1000], student_file[2][1000], solution_file[2][1000], baseline_file[2][1000];
static char baseline_kernel[128], solution_source[600];

/* Where the runners lie: build/SRC/NN (beside this program) and build/common/NN. */
static void find_runners(void)
{
    static const char *const program[2] = {"gpu-runner", "ptx-runner"}, *const ext[2] = {"cubin", "ptx"};
    if (runner[0][0])
        return;
    for (int e = 0; e < 2; e++) {
        snprintf(runner[e], sizeof runner[e], "%s/../%s", checking.common, program[e]);
        snprintf(student_file[e], sizeof student_file[e], "%s/student.%s", checking.here, ext[e]);
        snprintf(solution_file[e], sizeof solution_file[e], "%s/solution.%s", checking.common, ext[e]);
        snprintf(baseline_file[e], sizeof baseline_file[e], "%s/baseline.%s", checking.common, ext[e]);
    }
    snprintf(solution_source, sizeof solution_source, "solutions/%s/%s.cu", checking.lesson->folder,
             checking.lesson->kernel);
    char base[256];
    snprintf(base, sizeof base, "%s", checking.lesson->baseline);
    snprintf(baseline_kernel, sizeof baseline_kernel, "%s", basename(base));
    baseline_kernel[strcspn(baseline_kernel, ".")] = '\0';
}

/* One kernel on a runner's command line at argv[n]: its file, its name and, for the emulator (whose
 * messages name the file a kernel came from), its source. Returns the next n. */
static int add_kernel(char **argv, int n, const char *file, const char *name, const char *source)
{
    argv[n++] = (char *)file;
    argv[n++] = (char *)name;
    if (checking.emulator)
        argv[n++] = (char *)source;
    return n;
}

char **runner_argv(int side, int plain, int njobs, int turn, char **argv)
{
    static char batch[16], registers[16];
    find_runners();
    int emu = checking.emulator, n = 0;
    const char *kernel = checking.lesson->kernel;
    snprintf(batch, sizeof batch, "--jobs=%d", njobs);
    argv[n++] = runner[emu];
    if (plain && !emu) /* the tools' mode and the turn with the GPU are the GPU runner's alone */
        argv[n++] = "--plain";
    if (njobs > 1)
        argv[n++] = batch;
    if (turn && !emu)
        argv[n++] = "--turn";
    if (side & SIDE_STUDENT) {
        argv[n++] = "student";
        n = add_kernel(argv, n, student_file[emu], kernel, checking.source);
        /* The emulator's launch needs the registers ptxas gave the kernel for the GPU: the cubin
         * the emulator's build makes beside the PTX (make's check-emu). */
        int regs;
        size_t shared;
        if (emu && cubin_resources(student_file[0], kernel, checking.lesson->family, &regs, &shared) == 0 && regs > 0) {
            snprintf(registers, sizeof registers, "%d", regs);
            argv[n++] = registers;
        }
        if (plain && !emu && side >> ROLE_BASELINE & 1) /* for Nsight Compute: the baseline first, in one process */
            n = add_kernel(argv, n, baseline_file[emu], baseline_kernel, checking.lesson->baseline);
    } else {
        argv[n++] = "reference";
        n = add_kernel(argv, n, solution_present() ? solution_file[emu] : "-", kernel, solution_source);
        n = add_kernel(argv, n, baseline_file[emu], baseline_kernel, checking.lesson->baseline);
    }
    argv[n] = NULL;
    return argv;
}

/* bubblewrap, if it is here and may make namespaces (tried once). */
static const char *bubblewrap(void)
{
    static int tried;
    static char path[1024];
    if (tried++)
        return path[0] ? path : NULL;
    if (getenv("WB_NO_BWRAP") || !find_tool("WB_BWRAP", "bwrap", path, sizeof path)) {
        path[0] = '\0';
        return NULL;
    }
    char *const argv[] = {path, "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/",
                          "--dev", "/dev", "/bin/true", NULL};
    struct isolate_result r;
    run_tool(argv, 10, &r);
    if (!(r.outcome == ISOLATE_EXITED && r.status == 0))
        path[0] = '\0';
    return path[0] ? path : NULL;
}

static int exec_runner(void *arg)
{
    const struct launch *l = arg;
    /* The jobs on fds 3, 4, ..., then the turn's socket: first out of the way of those numbers
     * (to the lowest free ones past them: a fixed 1000 was past the 1,024 files an ordinary
     * user's shell allows a process, with a batch of 24 jobs or more), then down to them. */
    int high[MAX_BATCH + 1], nfds = l->njobs + (l->turn_fd >= 0);
    for (int k = 0; k < nfds; k++)
        if ((high[k] = fcntl(k < l->njobs ? l->job_fds[k] : l->turn_fd, F_DUPFD, 3 + nfds)) < 0)
            return 127;
    for (int k = 0; k < nfds; k++) {
        if (dup2(high[k], 3 + k) < 0)
            return 127;
        fcntl(3 + k, F_SETFD, 0);
    }
    /* Nothing else of the judge's passes to a runner: not its result file, not its report. */
    isolate_close_from(3 + nfds);
    if (l->cpu_s > 0) {
        /* The emulator's runner: a lesson file's code is host code there. */
        rlim_t cpu = (rlim_t)(l->cpu_s + 0.999);
        const struct {
            int resource;
            struct rlimit limit;
        } limits[] = {{RLIMIT_CPU, {cpu, cpu + 1}},            /* SIGXCPU at the budget */
                      {RLIMIT_AS, {(rlim_t)4 << 30, (rlim_t)4 << 30}},
                      {RLIMIT_FSIZE, {1 << 20, 1 << 20}},      /* the captured printf */
                      {RLIMIT_CORE, {0, 0}},
                      {RLIMIT_NOFILE, {16 + MAX_BATCH, 16 + MAX_BATCH}}};
        for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
            setrlimit(limits[i].resource, &limits[i].limit);
        if (chdir(l->folder) != 0)
            return 127;
        char *env[] = {NULL};
        const char *bw = bubblewrap();
        if (bw) {
            /* The whole file system read-only (the runner may lie anywhere, /tmp too), the empty
             * folder as the working one. */
            char *argv[32] = {(char *)bw, "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/",
                              "--dev", "/dev", "--chdir", (char *)l->folder, "--clearenv", "--"};
            int n = 13;
            for (int i = 0; l->argv[i] && n < 31; i++) /* the runner and its arguments */
                argv[n++] = l->argv[i];
            argv[n] = NULL;
            execve(bw, argv, env);
        } else
            execve(l->argv[0], l->argv, env);
    } else
        execv(l->argv[0], l->argv);
    fprintf(stderr, "cannot start %s: %s\n", l->argv[0], strerror(errno));
    return 127;
}

/* A side's own copy of a job, in a memfd: the inputs, and nothing another side wrote. */
static int side_copy(const struct gpu_job *job, int side, struct side_run *s, int k)
{
    s->bytes[k] = job->bytes;
    /* Sealed at its size: a runner that shrank it would crash the judge reading it (SIGBUS). */
    s->fd[k] = memfd_create("wb-job", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (s->fd[k] < 0 || ftruncate(s->fd[k], (off_t)s->bytes[k]) != 0 ||
        fcntl(s->fd[k], F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0 ||
        (s->copy[k] = mmap(NULL, s->bytes[k], PROT_READ | PROT_WRITE, MAP_SHARED, s->fd[k], 0)) == MAP_FAILED) {
        s->copy[k] = NULL;
        return -1;
    }
    struct gpu_job *c = s->copy[k];
    memcpy(c, job, sizeof *job);
    memset(&c->rep, 0, sizeof c->rep);
    for (int i = 0; i < 2 && !job->lazy_inputs; i++)
        if (job->in_offset[i] + job->in_elems[i] * sizeof(float) <= job->bytes) /* never past the job */
            memcpy(job_in(c, i), job_in((struct gpu_job *)job, i), job->in_elems[i] * sizeof(float));
    c->roles = side;
    c->have_solution = solution_present();
    return 0;
}

int side_copies(struct gpu_job *const *jobs, int n, int side, struct side_run *s)
{
    memset(s, 0, sizeof *s);
    for (int k = 0; k < MAX_BATCH; k++)
        s->fd[k] = -1;
    s->n = n;
    for (int k = 0; k < n; k++)
        if (side_copy(jobs[k], side, s, k) != 0) {
            int e = errno;
            side_abandon(s);
            errno = e;
            return -1;
        }
    return 0;
}

int side_start(struct gpu_job *const *jobs, int n, int side, double cpu_s, int turn_fd, struct side_run *s,
               struct isolate_result *r)
{
    memset(r, 0, sizeof *r);
    r->outcome = ISOLATE_NOT_STARTED;
    if (side_copies(jobs, n, side, s) != 0) {
        r->start_errno = errno;
        return -1;
    }
    snprintf(s->folder, sizeof s->folder, "/tmp/wb-runner-XXXXXX");
    s->launch = (struct launch){runner_argv(side, 0, n, turn_fd >= 0, s->argv), s->fd, n, turn_fd,
                                checking.emulator ? cpu_s : 0, s->folder};
    if (checking.emulator && !mkdtemp(s->folder)) {
        r->start_errno = errno;
        s->folder[0] = '\0';
        return side_abandon(s), -1;
    }
    if (checking.emulator && !bubblewrap() && !checking.sandbox_warned++)
        say("  (bubblewrap is missing or not permitted here: your kernel runs under the seccomp filter and "
            "limits alone; `apt-get install bubblewrap` adds namespaces)\n");
    if (isolate_start(exec_runner, &s->launch, &s->child, r) != 0)
        return side_abandon(s), -1;
    return 0;
}

void side_finish(struct side_run *s, double wall_s, struct isolate_result *r)
{
    isolate_wait(&s->child, wall_s, r);
    if (checking.emulator && s->folder[0])
        rmdir(s->folder);
    s->folder[0] = '\0';
    /* bubblewrap passes a signal on as 128 + its number. */
    if (r->outcome == ISOLATE_EXITED && r->status > 128 && r->status < 128 + 65 && checking.emulator && bubblewrap()) {
        r->outcome = ISOLATE_SIGNALED;
        r->status -= 128;
    }
    for (int k = 0; k < s->n; k++) {
        if (s->fd[k] >= 0)
            close(s->fd[k]);
        s->fd[k] = -1;
    } /* the caller reads back from the copies what this side may write, then abandons them */
}

void side_abandon(struct side_run *s)
{
    for (int k = 0; k < s->n; k++) {
        if (s->copy[k])
            munmap(s->copy[k], s->bytes[k]);
        if (s->fd[k] >= 0)
            close(s->fd[k]);
        s->copy[k] = NULL;
        s->fd[k] = -1;
    }
    if (s->folder[0] && checking.emulator)
        rmdir(s->folder);
    s->folder[0] = '\0';
}
