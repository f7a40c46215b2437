/* The sanitized runner's driver (make sanitized-test, checker/tests/steps/sanitized-test.py): the
 * PTX runner built with AddressSanitizer and UndefinedBehaviorSanitizer (build/asan/ptx-runner),
 * run as the judge runs it, a process of its own with the job on fd 3 and its seccomp filter on,
 * on each kernel of a list. Not the judge itself: ASan reserves terabytes of address space, which
 * the judge's 4 GiB RLIMIT_AS refuses, and a check runs every size where one run per kernel is
 * what a sanitizer needs.
 *
 * Each kernel runs at a size one past its family's tile in each dimension (a full tile and partial
 * ones, several blocks), once and again with the tracer counting, as the judge's counting jobs do;
 * a kernel marked `count` then the same at the family's counting size, and there, for a family the
 * judge samples at the speed case's size, a sample of its blocks with its inputs made page by page
 * and its output poisoned page by page (gpu_job.h's lazy_inputs). A kernel that fails the
 * interpreter's checks, that the interpreter refuses, or that reaches the CPU limit (a kernel that
 * never ends) is fine here: what fails is a sanitizer's report, a system call the sandbox stopped,
 * or any other end.
 *
 *   Usage: run-sanitized [--cpu=S] RUNNER < LIST     (S: CPU seconds a run may take, 2)
 *   LIST: a line per kernel, tab-separated: NAME PTX KERNEL FAMILY SOURCE [count]
 * Prints a line per run that went wrong and one that counts them; exit 0 when none did. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_job.h"
#include "rng.h"

/* What the sanitizers say when they stop a program (both end it: -fno-sanitize-recover=all). */
static const char *const reports[] = {"ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer",
                                      "SUMMARY: AddressSanitizer", "SUMMARY: UndefinedBehaviorSanitizer"};
/* The sanitized runner's exit code for a report (sandbox.c's default options). */
#define SANITIZER_EXIT 86

static size_t page_round(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (n + page - 1) / page * page;
}

/* A job as the judge lays one out (checker/judge/jobs.c): the header, each input and each output
 * slot on pages of their own, in a memfd the runner maps as its fd 3. */
static int make_job(const struct family *f, int rows, int cols, int sample, size_t *bytes_out)
{
    int orows, ocols;
    f->output_shape(rows, cols, &orows, &ocols);
    size_t elems = (size_t)rows * (size_t)cols, out_elems = (size_t)orows * (size_t)ocols;
    size_t off = page_round(sizeof(struct gpu_job)), in_off[2], out_off[OUT_COUNT];
    for (int i = 0; i < 2; i++) {
        in_off[i] = off;
        off += page_round(i < f->ninputs ? elems * sizeof(float) : 0);
    }
    for (int s = 0; s < OUT_COUNT; s++) {
        out_off[s] = off;
        off += page_round(out_elems * sizeof(float));
    }
    int fd = memfd_create("wb-sanitized-job", 0);
    if (fd < 0 || ftruncate(fd, (off_t)off) != 0)
        return -1;
    struct gpu_job *job = mmap(NULL, off, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (job == MAP_FAILED) {
        close(fd);
        return -1;
    }
    job->bytes = off;
    snprintf(job->family, sizeof job->family, "%s", f->name);
    snprintf(job->baseline_family, sizeof job->baseline_family, "%s", f->name);
    job->rows = rows;
    job->cols = cols;
    job->launch = 1;
    job->count = 1;
    job->roles = SIDE_STUDENT;
    job->have_solution = 1;
    job->in_elems[0] = elems;
    job->in_elems[1] = f->ninputs > 1 ? elems : 0;
    job->out_elems = out_elems;
    memcpy(job->in_offset, in_off, sizeof in_off);
    memcpy(job->out_offset, out_off, sizeof out_off);
    /* A sample of the blocks, the inputs made page by page as they are read (the judge's at the
     * speed case's size, gpu_job.h): the pages of the job's inputs stay as they are. */
    job->sample_blocks = sample;
    job->lazy_inputs = sample ? 45 : 0;
    struct rng r;
    for (int i = 0; i < f->ninputs && !sample; i++) {
        rng_seed(&r, 45, (uint64_t)i); /* any inputs will do: the sanitizers judge the interpreter */
        rng_fill_grid(&r, job_in(job, i), elems, f->input_bits ? f->input_bits : 24);
    }
    *bytes_out = off;
    munmap(job, off);
    return fd;
}

/* The sizes a kernel runs at: one past the tile in each dimension (a square family's rows are its
 * cols), and the counting size where asked; there too, for a family the judge samples at the
 * speed case's size, a sample of its blocks as the judge runs one (sample[s]: 0, or the blocks). */
static int sizes(const struct family *f, int count_size, int rows_cols[3][2], int sample[3])
{
    int square = f->nscalars == 1;
    rows_cols[0][1] = f->tile_x + 1;
    rows_cols[0][0] = square ? rows_cols[0][1] : f->tile_y + 1;
    rows_cols[1][0] = rows_cols[2][0] = f->count_rows;
    rows_cols[1][1] = rows_cols[2][1] = f->count_cols;
    sample[0] = sample[1] = 0, sample[2] = f->timed_sample;
    return count_size ? (f->timed_sample ? 3 : 2) : 1;
}

struct outcome {
    int status;      /* waitpid's */
    char stderr_text[16384];
    char failure[600];
    int forbidden;   /* the system call the sandbox stopped, -1: none */
    int finished;
    double cpu_seconds; /* the runner's, user and system */
};

/* Runs the sanitized runner on one job; -1 where it could not be started. */
static int run(const char *runner, const char *ptx, const char *kernel, const char *source, int job_fd,
               size_t job_bytes, double cpu_s, struct outcome *o)
{
    int err = memfd_create("wb-sanitized-stderr", 0);
    if (err < 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        /* The job on fd 3, as the judge hands it (spawn.c); the kernel's printf to nowhere. */
        if (dup2(job_fd, 3) < 0 || dup2(err, 2) < 0)
            _exit(127);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 1);
        rlim_t cpu = (rlim_t)(cpu_s + 0.999);
        struct rlimit limit = {cpu, cpu + 1}, none = {0, 0};
        setrlimit(RLIMIT_CPU, &limit); /* SIGXCPU, as the judge's budget */
        setrlimit(RLIMIT_CORE, &none);
        execl(runner, runner, "student", ptx, kernel, source, (char *)NULL);
        _exit(127);
    }
    struct rusage ru;
    while (wait4(pid, &o->status, 0, &ru) < 0 && errno == EINTR)
        ;
    o->cpu_seconds = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
                     1e-6 * (double)ru.ru_stime.tv_usec;
    ssize_t n = pread(err, o->stderr_text, sizeof o->stderr_text - 1, 0);
    o->stderr_text[n > 0 ? n : 0] = '\0';
    close(err);
    struct gpu_job *job = mmap(NULL, job_bytes, PROT_READ, MAP_SHARED, job_fd, 0);
    if (job == MAP_FAILED)
        return -1;
    snprintf(o->failure, sizeof o->failure, "%s", job->rep.failure);
    o->forbidden = WIFEXITED(o->status) && WEXITSTATUS(o->status) == JOB_FORBIDDEN ? job->rep.forbidden_syscall : -1;
    o->finished = job->rep.finished;
    munmap(job, job_bytes);
    return 0;
}

/* Why a run is wrong, or NULL: a report, a stopped system call, a death other than the CPU limit. */
static const char *wrong(const struct outcome *o, char *buf, size_t len)
{
    for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++)
        if (strstr(o->stderr_text, reports[i]))
            return "a sanitizer's report";
    if (WIFEXITED(o->status)) {
        int code = WEXITSTATUS(o->status);
        if (code == SANITIZER_EXIT)
            return "the sanitizers' exit code";
        if (code == JOB_FORBIDDEN) {
            snprintf(buf, len, "the sandbox stopped system call %d", o->forbidden);
            return buf;
        }
        if (code == JOB_OK || code == JOB_KERNEL_FAILED || code == JOB_SETUP_FAILED)
            return NULL;
        snprintf(buf, len, "exit code %d", code);
        return buf;
    }
    if (WIFSIGNALED(o->status) && WTERMSIG(o->status) == SIGXCPU)
        return NULL;
    snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(o->status), strsignal(WTERMSIG(o->status)));
    return buf;
}

int main(int argc, char **argv)
{
    /* Under the sanitizers the lessons' kernels take under a second at their counting sizes; the
     * limit ends the wrong kernels that never do. */
    double cpu_s = 2;
    int a = 1;
    if (a < argc && strncmp(argv[a], "--cpu=", 6) == 0 && atof(argv[a] + 6) >= 1)
        cpu_s = atof(argv[a++] + 6);
    if (a != argc - 1) {
        fprintf(stderr, "usage: run-sanitized [--cpu=S] RUNNER < LIST (NAME PTX KERNEL FAMILY SOURCE [count])\n");
        return 2;
    }
    const char *runner = argv[a];
    char line[4096];
    int runs = 0, bad = 0, refused = 0, failed = 0, at_limit = 0, kernels = 0;
    double seconds = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char *name = strtok(line, "\t"), *ptx = strtok(NULL, "\t"), *kernel = strtok(NULL, "\t"),
             *family_name = strtok(NULL, "\t"), *source = strtok(NULL, "\t"), *count = strtok(NULL, "\t");
        if (!name || *name == '#')
            continue;
        const struct family *f = source ? family_named(family_name) : NULL;
        if (!f) {
            printf("FAIL %s: a list line is NAME PTX KERNEL FAMILY SOURCE, with a family this program knows\n", name);
            bad++;
            continue;
        }
        kernels++;
        int size[3][2], sample[3], n = sizes(f, count && strcmp(count, "count") == 0, size, sample);
        for (int s = 0; s < n; s++) {
            size_t bytes;
            int fd = make_job(f, size[s][0], size[s][1], sample[s], &bytes);
            static struct outcome o;
            if (fd < 0 || run(runner, ptx, kernel, source, fd, bytes, cpu_s, &o) != 0) {
                printf("FAIL %s: cannot run %s: %s\n", name, runner, strerror(errno));
                bad++;
                if (fd >= 0)
                    close(fd);
                continue;
            }
            close(fd);
            runs++;
            seconds += o.cpu_seconds;
            char why[200];
            const char *w = wrong(&o, why, sizeof why);
            if (w) {
                printf("FAIL %s at %dx%d (%s): %s\n%s%s\n", name, size[s][0], size[s][1], ptx, w, o.stderr_text,
                       o.failure[0] ? o.failure : "");
                bad++;
            } else if (WIFSIGNALED(o.status)) {
                at_limit++;
            } else if (WEXITSTATUS(o.status) == JOB_SETUP_FAILED) {
                refused++;
            } else if (WEXITSTATUS(o.status) == JOB_KERNEL_FAILED) {
                failed++;
            }
            if (getenv("WB_SANITIZED_VERBOSE"))
                printf("  %-32s %5dx%-5d %6.2f s  exit %d%s%s\n", name, size[s][0], size[s][1], o.cpu_seconds,
                       WIFEXITED(o.status) ? WEXITSTATUS(o.status) : 128 + WTERMSIG(o.status),
                       o.failure[0] ? ": " : "", o.failure);
        }
    }
    printf("sanitized runner: %d kernels, %d runs in %.1f s of CPU (%d refused by the interpreter, %d failed its "
           "checks, %d stopped at the CPU limit), %d wrong\n",
           kernels, runs, seconds, refused, failed, at_limit, bad);
    return bad ? 1 : 0;
}
