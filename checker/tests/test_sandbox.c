/* Tests of the emulator runner's seccomp filter (checker/runner/sandbox.c): after
 * sandbox_enter, what a kernel may need still works (printing, memory, exit) and each way to act
 * on the machine ends the process with JOB_FORBIDDEN and the system call's number, before the
 * call takes effect (a sentinel file that must not exist, a process that must not start). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpu_job.h"
#include "sandbox.h"

static const char SENTINEL[] = "/tmp/wb-test-sandbox-sentinel";

/* Runs attempt() in a sandboxed child; returns its exit code, and in *nr the call it was stopped at. */
static int sandboxed(void (*attempt)(void), int *nr)
{
    int *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(shared != MAP_FAILED);
    *shared = -1;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char why[256];
        if (sandbox_enter(shared, why, sizeof why) != 0)
            _exit(99);
        attempt();
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    *nr = *shared;
    munmap(shared, sizeof *shared);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void prints_and_allocates(void)
{
    char *p = malloc(1 << 20);
    memset(p, 1, 1 << 20);
    printf("a kernel's printf\n");
    fflush(stdout);
    free(p);
}
static void starts_a_program(void)
{
    char *argv[] = {"/bin/sh", "-c", "touch /tmp/wb-test-sandbox-sentinel", NULL};
    execv(argv[0], argv);
}
static void makes_a_file(void) { open(SENTINEL, O_WRONLY | O_CREAT, 0644); }
static void forks(void)
{
    if (syscall(SYS_fork) == 0)
        _exit(0);
}
static void reaches_the_network(void) { socket(AF_INET, SOCK_STREAM, 0); }
static void leaves_its_session(void) { setsid(); }
static void signals_another_process(void) { kill(1, SIGKILL); }
static void replaces_the_trap(void) { signal(SIGSYS, SIG_IGN); }
static void maps_code(void) { mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); }

static void allows_what_kernels_need(void **state)
{
    (void)state;
    int nr;
    assert_int_equal(sandboxed(prints_and_allocates, &nr), 0);
    assert_int_equal(nr, -1);
}

static void stops_everything_else(void **state)
{
    (void)state;
    const struct {
        void (*attempt)(void);
        long nr;
    } attempts[] = {{starts_a_program, SYS_execve},   {makes_a_file, SYS_openat},   {forks, SYS_fork},
                    {reaches_the_network, SYS_socket}, {leaves_its_session, SYS_setsid}, {signals_another_process, SYS_kill},
                    {replaces_the_trap, SYS_rt_sigaction}, {maps_code, SYS_mmap}};
    for (size_t i = 0; i < sizeof attempts / sizeof attempts[0]; i++) {
        unlink(SENTINEL);
        int nr;
        assert_int_equal(sandboxed(attempts[i].attempt, &nr), JOB_FORBIDDEN);
        assert_int_equal(nr, attempts[i].nr);
        assert_int_equal(access(SENTINEL, F_OK), -1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(allows_what_kernels_need), cmocka_unit_test(stops_everything_else)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
