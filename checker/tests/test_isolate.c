/* Unit tests for checker/src/processes/isolate.c: run_isolated on a child that exits with a code, dies
 * of a signal, hangs past its limit (killed, with anything it started), prints to stdout and
 * stderr (captured, never on the checker's own output) or prints too much (cut); and the
 * sentences of isolate_describe. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "isolate.h"
#include "text.h"
#include "unit.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- what the children do ---- */

static int return_seven(void *arg)
{
    (void)arg;
    return 7;
}

static int return_arg(void *arg)
{
    return *(int *)arg;
}

/* cmocka catches SIGSEGV (and SIGFPE, SIGILL, SIGBUS) in the test process, and a forked child
 * inherits its handler: run_isolated must restore the default action, or the crash would
 * jump back into the child's copy of the test loop and look like an exit. */
static int raise_segv(void *arg)
{
    (void)arg;
    raise(SIGSEGV);
    return 0;
}

static int call_abort(void *arg)
{
    (void)arg;
    abort();
}

static int kill_self_term(void *arg)
{
    (void)arg;
    kill(getpid(), SIGTERM);
    pause();
    return 0;
}

/* Writes its pid into the shared page, then never ends. */
static int loop_forever(void *arg)
{
    volatile pid_t *pid = arg;
    *pid = getpid();
    for (;;)
        pause();
    return 0;
}

/* Starts a grandchild that records its pid and never ends, then never ends itself. */
static int loop_with_grandchild(void *arg)
{
    volatile pid_t *pids = arg;
    pids[0] = getpid();
    pid_t g = fork();
    if (g == 0) {
        pids[1] = getpid();
        for (;;)
            pause();
    }
    for (;;)
        pause();
    return 0;
}

static int print_both(void *arg)
{
    (void)arg;
    printf("hello on stdout %d\n", 42);
    fprintf(stderr, "complaint on stderr\n");
    return 0;
}

static int print_a_lot(void *arg)
{
    size_t n = *(size_t *)arg;
    for (size_t i = 0; i < n; i++)
        putchar('a' + (int)(i % 26));
    return 3;
}

static volatile pid_t *shared_pids(void)
{
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    memset(p, 0, 4096);
    return p;
}

/* True once pid names no process, or only a zombie nobody reaps (it runs nothing). */
static int gone(pid_t pid)
{
    for (int i = 0; i < 200; i++) {
        if (kill(pid, 0) != 0 && errno == ESRCH)
            return 1;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (f) {
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            buf[n] = '\0';
            const char *paren = strrchr(buf, ')');
            if (paren && (paren[2] == 'Z' || paren[2] == 'X'))
                return 1;
        }
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    return 0;
}

/* ---- tests ---- */

static void exit_code_is_returned(void **state)
{
    (void)state;
    struct isolate_result r;
    run_isolated(return_seven, NULL, 5.0, &r);
    assert_int_equal(r.outcome, ISOLATE_EXITED);
    assert_int_equal(r.status, 7);
    assert_int_equal(r.output_len, 0);
    assert_int_equal(r.output_cut, 0);
    assert_string_equal(r.output, "");
    assert_true(r.seconds >= 0.0 && r.seconds < 5.0);
}

static void argument_reaches_child(void **state)
{
    (void)state;
    struct isolate_result r;
    int codes[] = {0, 1, 42, 255};
    for (size_t i = 0; i < 4; i++) {
        run_isolated(return_arg, &codes[i], 5.0, &r);
        assert_int_equal(r.outcome, ISOLATE_EXITED);
        assert_int_equal(r.status, codes[i]);
    }
}

/* A child killed by a signal it raised itself: that signal, said as such. */
static void signals_are_reported(void **state)
{
    (void)state;
    const struct {
        int (*child)(void *);
        int signal;
    } cases[] = {{raise_segv, SIGSEGV}, {call_abort, SIGABRT}, {kill_self_term, SIGTERM}};
    assert_int_equal(SIGSEGV, 11); /* the number the reports quote */
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct isolate_result r;
        run_isolated(cases[k].child, NULL, 5.0, &r);
        if (r.outcome != ISOLATE_SIGNALED || r.status != cases[k].signal)
            fail_msg("%s: outcome %d, status %d", strsignal(cases[k].signal), (int)r.outcome, r.status);
    }
}

static void hang_times_out_and_is_killed(void **state)
{
    (void)state;
    volatile pid_t *pid = shared_pids();
    struct isolate_result r;
    double t0 = now();
    run_isolated(loop_forever, (void *)pid, 0.5, &r);
    double took = now() - t0;
    assert_int_equal(r.outcome, ISOLATE_TIMED_OUT);
    assert_true(r.seconds >= 0.5);
    assert_true(r.seconds < 0.9); /* polled every few ms: killed soon after the limit */
    assert_true(took < 1.0);
    /* The child was killed and reaped: its pid names no process any more. */
    assert_true(*pid > 0);
    assert_int_equal(kill(*pid, 0), -1);
    assert_int_equal(errno, ESRCH);
    munmap((void *)pid, 4096);
}

static void hang_kill_reaches_grandchild(void **state)
{
    (void)state;
    volatile pid_t *pids = shared_pids();
    struct isolate_result r;
    run_isolated(loop_with_grandchild, (void *)pids, 0.5, &r);
    assert_int_equal(r.outcome, ISOLATE_TIMED_OUT);
    assert_true(pids[0] > 0);
    assert_true(pids[1] > 0);
    assert_true(gone(pids[0]));
    if (!gone(pids[1])) {
        kill(pids[1], SIGKILL); /* do not leave it behind */
        fail_msg("the grandchild %d survived the time-out", (int)pids[1]);
    }
    munmap((void *)pids, 4096);
}

static void output_is_captured_not_shown(void **state)
{
    (void)state;
    /* Point the test's own stdout and stderr at a file while the child runs. */
    FILE *mine = tmpfile();
    assert_non_null(mine);
    fflush(NULL);
    int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
    assert_true(saved_out >= 0 && saved_err >= 0);
    dup2(fileno(mine), STDOUT_FILENO);
    dup2(fileno(mine), STDERR_FILENO);

    struct isolate_result r;
    run_isolated(print_both, NULL, 5.0, &r);

    fflush(NULL);
    dup2(saved_out, STDOUT_FILENO);
    dup2(saved_err, STDERR_FILENO);
    close(saved_out);
    close(saved_err);
    fseek(mine, 0, SEEK_END);
    long leaked = ftell(mine);
    fclose(mine);

    assert_int_equal(r.outcome, ISOLATE_EXITED);
    assert_int_equal(r.status, 0);
    assert_contains(r.output, "hello on stdout 42\n");
    assert_contains(r.output, "complaint on stderr\n");
    assert_int_equal(r.output_len, strlen("hello on stdout 42\n") + strlen("complaint on stderr\n"));
    assert_int_equal(strlen(r.output), r.output_len);
    assert_int_equal(r.output_cut, 0);
    assert_int_equal(r.output_bytes, r.output_len);
    assert_int_equal(r.output_lines, 2);
    assert_int_equal(leaked, 0);
}

static void output_fitting_exactly_is_not_cut(void **state)
{
    (void)state;
    size_t n = sizeof(((struct isolate_result *)0)->output) - 1;
    struct isolate_result r;
    run_isolated(print_a_lot, &n, 5.0, &r);
    assert_int_equal(r.outcome, ISOLATE_EXITED);
    assert_int_equal(r.status, 3);
    assert_int_equal(r.output_len, n);
    assert_int_equal(r.output_cut, 0);
}

static void too_much_output_is_cut(void **state)
{
    (void)state;
    size_t n = 100000;
    struct isolate_result r;
    run_isolated(print_a_lot, &n, 5.0, &r);
    assert_int_equal(r.outcome, ISOLATE_EXITED);
    assert_int_equal(r.status, 3);
    assert_int_equal(r.output_cut, 1);
    assert_int_equal(r.output_len, sizeof r.output - 1);
    assert_int_equal(r.output[r.output_len], '\0');
    assert_memory_equal(r.output, "abcdefghijklmnopqrstuvwxyzabc", 29); /* the start is kept */
    assert_int_equal(r.output_bytes, n); /* and the whole counted: one line without a newline */
    assert_int_equal(r.output_lines, 1);
}

/* What isolate_describe says of each outcome, into the buffer it is given. */
static void describes_each_outcome(void **state)
{
    (void)state;
    const struct {
        const char *what;
        enum isolate_outcome outcome;
        int status;
        double seconds;
        const char *says[2]; /* the second may be NULL */
    } cases[] = {
        {"a timeout", ISOLATE_TIMED_OUT, 0, 10.02, {"no answer in 10 s", "__syncthreads()"}},
        {"a signal", ISOLATE_SIGNALED, SIGSEGV, 0, {"signal 11", strsignal(SIGSEGV)}},
        {"an exit code", ISOLATE_EXITED, 7, 0, {"exit code 7", NULL}},
        {"no start", ISOLATE_NOT_STARTED, 7, 0, {"could not be started", NULL}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct isolate_result r;
        memset(&r, 0, sizeof r);
        r.outcome = cases[k].outcome;
        r.status = cases[k].status;
        r.seconds = cases[k].seconds;
        char buf[512];
        const char *s = isolate_describe(&r, buf, sizeof buf);
        assert_ptr_equal(s, buf);
        for (int i = 0; i < 2 && cases[k].says[i]; i++)
            if (!strstr(s, cases[k].says[i]))
                fail_msg("%s: expected \"%s\" in \"%s\"", cases[k].what, cases[k].says[i], s);
    }
}

static void describe_fits_small_buffer(void **state)
{
    (void)state;
    struct isolate_result r;
    memset(&r, 0, sizeof r);
    r.outcome = ISOLATE_TIMED_OUT;
    r.seconds = 3;
    char buf[16];
    memset(buf, 'x', sizeof buf);
    isolate_describe(&r, buf, 12);
    assert_int_equal(strlen(buf), 11);
    assert_int_equal(buf[12], 'x');
    assert_string_equal(buf, "no answer i");
}

static void describe_real_timeout(void **state)
{
    (void)state;
    volatile pid_t *pid = shared_pids();
    struct isolate_result r;
    run_isolated(loop_forever, (void *)pid, 0.3, &r);
    char buf[512];
    assert_contains(isolate_describe(&r, buf, sizeof buf), "no answer in");
    run_isolated(raise_segv, NULL, 5.0, &r);
    assert_contains(isolate_describe(&r, buf, sizeof buf), "killed by signal 11");
    munmap((void *)pid, 4096);
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(exit_code_is_returned),
    cmocka_unit_test(argument_reaches_child),
    cmocka_unit_test(signals_are_reported),
    cmocka_unit_test(hang_times_out_and_is_killed),
    cmocka_unit_test(hang_kill_reaches_grandchild),
    cmocka_unit_test(output_is_captured_not_shown),
    cmocka_unit_test(output_fitting_exactly_is_not_cut),
    cmocka_unit_test(too_much_output_is_cut),
    cmocka_unit_test(describes_each_outcome),
    cmocka_unit_test(describe_fits_small_buffer),
    cmocka_unit_test(describe_real_timeout))
