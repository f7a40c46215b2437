/* Unit tests for checker/src/processes/gpu_lock.c, the lock judges share a GPU by (make gpu-test): without
 * WB_GPU_LOCK nothing waits; shared holders hold it together; one who asks to be alone waits for
 * them, and while it waits no newcomer gets in (the door), so timed work cannot starve; once it
 * has the lock, nobody else does; those who asked to be alone while the sharers drained all go
 * before the next sharer. Each party is a process of its own (flock(2) locks belong to
 * open files). The test waits for events, never for a time: a check of "not yet" is a
 * non-blocking probe of the lock files themselves. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_lock.h"
#include "unit.h"

static char lock_path[64], door_path[80];

/* A party: a child that takes the lock as `how`, writes one byte to `said`, and lets the lock go
 * (by exiting) when it reads a byte from `go`. */
struct party {
    pid_t pid;
    int said, go;
};

static struct party start(enum gpu_use how)
{
    int up[2], down[2];
    assert_int_equal(pipe(up), 0);
    assert_int_equal(pipe(down), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a test that failed leaves no party waiting */
        close(up[0]), close(down[1]);
        char c = 'x';
        if (gpu_lock_take(how) != 0 || write(up[1], &c, 1) != 1 || read(down[0], &c, 1) != 1)
            _exit(1);
        _exit(0);
    }
    close(up[1]), close(down[0]);
    return (struct party){pid, up[0], down[1]};
}

/* Blocks until the party says it holds the lock. */
static void holds(struct party p)
{
    char c;
    assert_int_equal(read(p.said, &c, 1), 1);
}

/* A party that takes the lock as `how` and holds it (nobody else is in its way). */
static struct party holding(enum gpu_use how)
{
    struct party p = start(how);
    holds(p);
    return p;
}

static void finish(struct party p)
{
    int status;
    assert_int_equal(write(p.go, "g", 1), 1);
    assert_int_equal(waitpid(p.pid, &status, 0), p.pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(p.said), close(p.go);
}

/* Whether someone holds `path` so that we could not take it as `how` right now. */
static int taken(const char *path, int how)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    assert_true(fd >= 0);
    int busy = flock(fd, how | LOCK_NB) != 0;
    assert_true(!busy || errno == EWOULDBLOCK);
    close(fd);
    return busy;
}

/* Waits (for an event, not a time) until party p waits at the door; p saying it holds the lock
 * first is a failure: someone else holds it. */
static void until_waiting(struct party p)
{
    while (!taken(door_path, LOCK_EX)) {
        struct pollfd said = {p.said, POLLIN, 0};
        if (poll(&said, 1, 1) > 0)
            fail_msg("a process asking to be alone got the lock while another held it");
    }
}

/* How many wait for the lock or the door, from /proc/locks (the kernel's own account of blocked
 * flock(2) requests: an event to wait for, not a time). */
static int waiters(void)
{
    char line[256], ino[2][64];
    const char *paths[2] = {lock_path, door_path};
    for (int i = 0; i < 2; i++) {
        struct stat st;
        assert_int_equal(stat(paths[i], &st), 0);
        snprintf(ino[i], sizeof ino[i], ":%lu ", (unsigned long)st.st_ino);
    }
    FILE *f = fopen("/proc/locks", "r");
    assert_non_null(f);
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, "->") && strstr(line, "FLOCK") && (strstr(line, ino[0]) || strstr(line, ino[1]));
    fclose(f);
    return n;
}

static void until_waiters(int n)
{
    while (waiters() != n) {
        struct timespec tick = {0, 1000000};
        nanosleep(&tick, NULL);
    }
}

static int setup(void **state)
{
    (void)state;
    snprintf(lock_path, sizeof lock_path, "/tmp/wb-gpu-lock-test-%d", (int)getpid());
    snprintf(door_path, sizeof door_path, "%s.turn", lock_path);
    setenv("WB_GPU_LOCK", lock_path, 1);
    alarm(60); /* only a broken lock gets here: a deadlock fails instead of hanging the tests */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(lock_path);
    unlink(door_path);
    alarm(0);
    return 0;
}

static void test_without_a_lock_file_nothing_waits(void **state)
{
    (void)state;
    unsetenv("WB_GPU_LOCK");
    struct party a = start(GPU_ALONE), b = start(GPU_ALONE);
    holds(a), holds(b); /* two "alone" at once: there is no lock to wait for */
    finish(a), finish(b);
    assert_int_equal(access(lock_path, F_OK), -1);
}

static void test_shared_holders_hold_it_together(void **state)
{
    (void)state;
    struct party a = start(GPU_SHARED), b = start(GPU_SHARED);
    holds(a), holds(b);
    assert_true(taken(lock_path, LOCK_EX));
    finish(a), finish(b);
    assert_false(taken(lock_path, LOCK_EX));
}

static void test_alone_waits_for_the_shared_and_keeps_newcomers_out(void **state)
{
    (void)state;
    struct party a = holding(GPU_SHARED);
    struct party b = start(GPU_ALONE);
    until_waiting(b);                        /* b waits for a, at the door */
    assert_false(taken(lock_path, LOCK_SH)); /* and has not got the lock: a's share is all there is */
    struct party c = start(GPU_SHARED);      /* a newcomer, behind b */
    finish(a);
    holds(b);
    assert_true(taken(lock_path, LOCK_SH)); /* b alone: no one may share */
    finish(b);
    holds(c); /* only now */
    finish(c);
}

static void test_alone_after_alone(void **state)
{
    (void)state;
    struct party a = holding(GPU_ALONE);
    struct party b = start(GPU_ALONE);
    until_waiting(b);
    assert_true(taken(lock_path, LOCK_SH));
    finish(a);
    holds(b);
    finish(b);
    assert_false(taken(lock_path, LOCK_EX));
}

static void test_those_waiting_to_be_alone_go_before_the_next_sharer(void **state)
{
    (void)state;
    struct party a = holding(GPU_SHARED);
    struct party b = start(GPU_ALONE);
    until_waiters(1);                   /* b waits for a's share to end */
    struct party c = start(GPU_SHARED); /* a sharer who comes next */
    until_waiters(2);
    struct party d = start(GPU_ALONE); /* one more who asks to be alone, behind c */
    until_waiters(3);
    finish(a);
    /* b and d, one after the other, in either order; had c got in between, the second could never
     * have the lock while c holds it (c lets go only when told): the alarm would end the test. */
    struct pollfd said[2] = {{b.said, POLLIN, 0}, {d.said, POLLIN, 0}};
    assert_true(poll(said, 2, -1) > 0);
    struct party first = said[0].revents ? b : d, second = said[0].revents ? d : b;
    holds(first);
    finish(first);
    holds(second);
    assert_true(taken(lock_path, LOCK_SH));
    finish(second);
    holds(c);
    finish(c);
}

UNIT_TESTS_MAIN(
    cmocka_unit_test_setup_teardown(test_without_a_lock_file_nothing_waits, setup, teardown),
    cmocka_unit_test_setup_teardown(test_shared_holders_hold_it_together, setup, teardown),
    cmocka_unit_test_setup_teardown(test_alone_waits_for_the_shared_and_keeps_newcomers_out, setup, teardown),
    cmocka_unit_test_setup_teardown(test_alone_after_alone, setup, teardown),
    cmocka_unit_test_setup_teardown(test_those_waiting_to_be_alone_go_before_the_next_sharer, setup, teardown))
