#define _GNU_SOURCE
#include "isolate.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void read_capture(FILE *f, struct isolate_result *r)
{
    rewind(f);
    r->output_len = fread(r->output, 1, sizeof r->output - 1, f);
    r->output[r->output_len] = '\0';
    r->output_cut = fgetc(f) != EOF;
    /* All of it counted (the rest is not kept): a report says how much it did not show. */
    char chunk[8192], last = '\n';
    size_t got;
    r->output_bytes = r->output_lines = 0;
    rewind(f);
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        for (size_t i = 0; i < got; i++)
            r->output_lines += chunk[i] == '\n';
        r->output_bytes += got;
        last = chunk[got - 1];
    }
    r->output_lines += last != '\n';
}

void isolate_close_from(int lowest)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)lowest, ~0u, 0u) == 0)
        return;
#endif
    long most = sysconf(_SC_OPEN_MAX); /* a kernel before 5.9: one at a time */
    for (long fd = lowest; fd < (most > 0 && most < 65536 ? most : 65536); fd++)
        close((int)fd);
}

int isolate_start(int (*fn)(void *), void *arg, struct isolate_child *c, struct isolate_result *r)
{
    memset(r, 0, sizeof *r);
    memset(c, 0, sizeof *c);
    r->outcome = ISOLATE_NOT_STARTED;
    c->capture = tmpfile();
    if (!c->capture) {
        r->start_errno = errno;
        return -1;
    }
    fflush(NULL);
    c->t0 = now();
    pid_t pid = fork();
    if (pid < 0) {
        r->start_errno = errno;
        fclose(c->capture);
        return -1;
    }
    if (pid == 0) {
        /* Own process group: a kill reaches anything the child started too. */
        setpgid(0, 0);
        /* The parent may be a cmocka runner whose crash handlers would jump back into its copy
         * of the test loop; a crash in the child must end the child and be seen as a signal. */
        const int crashes[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
        for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++)
            signal(crashes[i], SIG_DFL);
        dup2(fileno(c->capture), STDOUT_FILENO);
        dup2(fileno(c->capture), STDERR_FILENO);
        int rc = fn(arg);
        fflush(NULL);
        _exit(rc);
    }
    setpgid(pid, pid);
    c->pid = pid;
    return 0;
}

void isolate_wait(struct isolate_child *c, double timeout_s, struct isolate_result *r)
{
    pid_t pid = c->pid;
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    for (;;) {
        pid_t w = wait4(pid, &status, WNOHANG, &ru);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            break;
        if (now() - c->t0 > timeout_s) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            wait4(pid, &status, 0, &ru);
            r->outcome = ISOLATE_TIMED_OUT;
            break;
        }
        nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
    r->seconds = now() - c->t0;
    /* The process group is killed in every case: nothing the child started outlives it. */
    kill(-pid, SIGKILL);
    r->cpu_seconds = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
                     1e-6 * (double)ru.ru_stime.tv_usec;
    if (r->outcome != ISOLATE_TIMED_OUT) {
        if (WIFSIGNALED(status)) {
            r->outcome = ISOLATE_SIGNALED;
            r->status = WTERMSIG(status);
        } else {
            r->outcome = ISOLATE_EXITED;
            r->status = WEXITSTATUS(status);
        }
    }
    read_capture(c->capture, r);
    fclose(c->capture);
    c->capture = NULL;
}

double isolate_elapsed(const struct isolate_child *c)
{
    return now() - c->t0;
}

void isolate_pause(struct isolate_child *c, double seconds)
{
    c->t0 += seconds;
}

int isolate_ended(const struct isolate_child *c)
{
    siginfo_t info = {0};
    return waitid(P_PID, (id_t)c->pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0;
}

void run_isolated(int (*fn)(void *), void *arg, double timeout_s, struct isolate_result *r)
{
    struct isolate_child c;
    if (isolate_start(fn, arg, &c, r) == 0)
        isolate_wait(&c, timeout_s, r);
}

const char *isolate_describe(const struct isolate_result *r, char *buf, size_t len)
{
    switch (r->outcome) {
    case ISOLATE_EXITED:
        snprintf(buf, len, "the test process ended with exit code %d.", r->status);
        break;
    case ISOLATE_SIGNALED:
        snprintf(buf, len, "the test process was killed by signal %d (%s).", r->status, strsignal(r->status));
        break;
    case ISOLATE_TIMED_OUT:
        snprintf(buf, len,
                 "no answer in %.0f s: an infinite loop, or a __syncthreads() that not every thread "
                 "of the block reaches?",
                 r->seconds);
        break;
    case ISOLATE_OUT_OF_CPU:
        snprintf(buf, len,
                 "no answer within its CPU-time limit (%s): an endless loop in your kernel?", r->budget);
        break;
    case ISOLATE_NOT_STARTED:
        snprintf(buf, len, "the test process could not be started (%s).", strerror(r->start_errno));
        break;
    }
    return buf;
}
