/* The runner's seccomp filter (sandbox.h), built with libseccomp. */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "gpu_job.h"

static int *forbidden_out;

#ifdef WB_SANITIZED
/* The sanitized build alone (build/asan/, make sanitized-test), in the same filter as the normal
 * one: no leak check at exit (LeakSanitizer stops the process with ptrace, which the filter
 * refuses, and a leak is no breach), an exit code of its own for a report, and the stacks printed
 * unsymbolized (as module+offset: the symbolizer would open files) for the driver to name. */
#include <sanitizer/common_interface_defs.h>
const char *__asan_default_options(void);
const char *__ubsan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=0:exitcode=86:symbolize=0:color=never";
}
const char *__ubsan_default_options(void)
{
    return "exitcode=86:print_stacktrace=1:symbolize=0:color=never";
}
#endif

/* A system call the filter refused: its number for the report, then the end of the run. The
 * handler is installed before the filter, and the filter refuses rt_sigaction, so a kernel
 * cannot replace it. */
static void on_sigsys(int sig, siginfo_t *info, void *ctx)
{
    (void)sig, (void)ctx;
    if (forbidden_out)
        *forbidden_out = info->si_syscall;
    _exit(JOB_FORBIDDEN);
}

int sandbox_enter(int *forbidden, char *why, size_t len)
{
    forbidden_out = forbidden;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    if (sigaction(SIGSYS, &sa, NULL) != 0) {
        snprintf(why, len, "cannot install the SIGSYS handler: %s", strerror(errno));
        return -1;
    }
    /* stdio decides its buffers on first use with a system call the filter refuses: decide now. */
    static char out_buffer[8192];
    setvbuf(stdout, out_buffer, _IOFBF, sizeof out_buffer);
    setvbuf(stderr, NULL, _IONBF, 0);

    scmp_filter_ctx f = seccomp_init(SCMP_ACT_TRAP);
    if (!f) {
        snprintf(why, len, "libseccomp could not start a filter");
        return -1;
    }
    int rc = 0;
    /* Output: the kernel's printf, to stdout and stderr alone. */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, SCMP_A0(SCMP_CMP_EQ, 1));
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, SCMP_A0(SCMP_CMP_EQ, 2));
    /* Memory for the tracer's logs; never executable, so no code can be made at run time. */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(brk), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(munmap), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mremap), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(madvise), 0);
    /* The clock, and signals to itself (abort, the CPU limit's SIGXCPU). */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(clock_gettime), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(gettimeofday), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(getrusage), 0);
    /* Its own CPU-time limit, for each job of a batch (never above the hard limit the judge set). */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2, SCMP_A0(SCMP_CMP_EQ, 0),
                           SCMP_A1(SCMP_CMP_EQ, RLIMIT_CPU));
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(sysinfo), 0); /* glibc's qsort asks for the memory size */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigreturn), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigprocmask), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(getpid), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(gettid), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()));
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(futex), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(exit), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(exit_group), 0);
#ifdef WB_SANITIZED
    /* What a sanitizer's report needs beyond that: the program's name (readlink of
     * /proc/self/exe: a link read, no file opened), and the signal stack that ASan asks for before
     * any call that does not return (the SIGSYS handler's _exit among them). A file it would open
     * (/proc/self/cmdline), and the pipe through which UBSan tries whether memory can be read
     * before it shows it, are refused with an error it takes, not ended on. */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(readlink), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(sigaltstack), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(open), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(pipe2), 0);
    /* The memory map, which a report reads, read now (a file cannot be opened once the filter is
     * in place). */
    __sanitizer_sandbox_arguments sanitizer_args = {0};
    __sanitizer_sandbox_on_notify(&sanitizer_args);
#endif
    if (rc == 0)
        rc = seccomp_load(f);
    seccomp_release(f);
    if (rc != 0) {
        snprintf(why, len, "the seccomp filter could not be loaded: %s", strerror(-rc));
        return -1;
    }
    return 0;
}
