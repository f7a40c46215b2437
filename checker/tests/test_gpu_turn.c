/* Unit tests for checker/src/processes/gpu_turn.c, a runner's turn with the GPU alone: both ends of the
 * protocol against each other, over a socket (a timed job's runners) and over FIFOs (a runner
 * under Nsight Compute). The runner's end runs in a child started as the judge starts runners
 * (isolate_start). What must hold: the runner says it is ready and does not go on before the
 * judge's word; the judge's wait takes only the word it waits for; a runner that ends, or
 * closes its end, without its word is seen at once, not at its time limit; a runner that says
 * nothing is given up at its limit, and time the judge paused it for is not counted; a runner
 * whose judge is gone, or whose FIFOs are not there, is told so instead of going on or waiting
 * for ever; a runner's word that its GPU work is over (TURN_DONE) reaches the judge before its
 * end, and only a runner that had its turn says it. Waits end on events; the few clocks read
 * here give bounds a busy machine cannot break. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gpu_turn.h"
#include "isolate.h"
#include "unit.h"

/* Generous: every wait here ends on an event long before it; only a broken end would reach it. */
#define LIMIT_S 60.0

enum runner_kind { FOLLOWS, NOISY, ENDS_AT_ONCE, SAYS_NOTHING, CLOSES_ITS_END, DONE_THEN_LINGERS, DONE_WITHOUT_TURN };

struct runner {
    enum runner_kind kind;
    int fd;    /* the socket's runner end, or -1 for the FIFOs */
    int judge; /* the judge's end, which a runner started by exec would not have: closed */
};

/* The runner's end: its exit code says how its turn went (0: went, 7: told the judge is gone). */
static int runner(void *arg)
{
    const struct runner *r = arg;
    if (r->judge >= 0)
        close(r->judge);
    switch (r->kind) {
    case ENDS_AT_ONCE:
        return 3;
    case SAYS_NOTHING:
        pause();
        return 4;
    case CLOSES_ITS_END:
        close(r->fd);
        pause();
        return 5;
    case NOISY: /* a byte before its word, which the judge's wait must pass over */
        if (write(r->fd, "z", 1) != 1)
            return 6;
        break;
    case DONE_WITHOUT_TURN: /* never waited for its turn: its word would let a turn go it never had */
        turn_attach(r->fd);
        turn_done();
        return 0;
    case FOLLOWS:
    case DONE_THEN_LINGERS:
        break;
    }
    if (turn_attach(r->fd) != 0 && turn_wait() == 0)
        return 8; /* FIFOs asked for and missing, and it went on */
    if (turn_wait() != 0)
        return 7;
    turn_done();
    if (r->kind == DONE_THEN_LINGERS) /* a process's exit (or a tool's report) long after its word */
        pause();
    return 0;
}

static double clock_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* After its TURN_READY, the runner waits: no further byte, and it has not ended, a while later
 * (a runner that went on would have ended by then; one that is merely slow passes either way). */
static void waits_for_go(int fd, const struct isolate_child *c)
{
    struct pollfd p = {fd, POLLIN, 0};
    assert_int_equal(poll(&p, 1, 200), 0);
    assert_false(isolate_ended(c));
}

/* A runner the judge started: the child, its result, and the judge's end of the socket (-1 over
 * FIFOs). */
struct started {
    struct isolate_child c;
    struct isolate_result res;
    int judge;
};

static void start(struct runner *r, struct started *s)
{
    assert_int_equal(isolate_start(runner, r, &s->c, &s->res), 0);
    s->judge = -1;
}

/* A runner of this kind on a socket. */
static void start_on_socket(enum runner_kind kind, struct started *s)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    struct runner r = {kind, sv[1], sv[0]}; /* the child has its own copy from the fork */
    start(&r, s);
    close(sv[1]);
    s->judge = sv[0];
}

/* The runner's TURN_READY, read from fd. */
static void says_ready(int fd, struct started *s)
{
    assert_int_equal(turn_await(fd, &s->c, LIMIT_S, TURN_READY), 1);
}

/* Given its turn at go, the runner goes on and ends well. */
static void goes_on(int go, struct started *s)
{
    turn_give(go);
    isolate_wait(&s->c, LIMIT_S, &s->res);
    assert_int_equal(s->res.outcome, ISOLATE_EXITED);
    assert_int_equal(s->res.status, 0);
}

static void words_in_order_over_a_socket(void **state)
{
    (void)state;
    struct started s;
    start_on_socket(FOLLOWS, &s);
    says_ready(s.judge, &s);
    waits_for_go(s.judge, &s.c);
    goes_on(s.judge, &s);
    close(s.judge);
}

static void the_wait_takes_only_its_word(void **state)
{
    (void)state;
    struct started s;
    start_on_socket(NOISY, &s);
    says_ready(s.judge, &s);
    /* Its TURN_READY was taken, not left behind the noise: a second wait finds nothing. */
    assert_int_equal(turn_await(s.judge, &s.c, isolate_elapsed(&s.c) + 0.2, TURN_READY), 0);
    goes_on(s.judge, &s);
    close(s.judge);
}

static void words_in_order_over_fifos(void **state)
{
    (void)state;
    struct turn_fifos t;
    assert_int_equal(turn_fifos_open(&t), 0);
    assert_int_equal(setenv(TURN_ENV, t.dir, 1), 0);
    struct runner r = {FOLLOWS, -1, -1};
    struct started s;
    start(&r, &s);
    unsetenv(TURN_ENV);
    says_ready(t.ready, &s);
    waits_for_go(t.ready, &s.c);
    goes_on(t.go, &s);
    char dir[sizeof t.dir];
    memcpy(dir, t.dir, sizeof dir);
    turn_fifos_close(&t);
    assert_int_equal(access(dir, F_OK), -1); /* nothing left in /tmp */
}

/* The end seen by the child's exit (the FIFOs, which the judge holds open both ways, never read
 * an end) and by the socket's end closing; either long before the limit. */
static void a_runner_that_ends_is_not_waited_for(void **state)
{
    (void)state;
    struct turn_fifos t;
    assert_int_equal(turn_fifos_open(&t), 0);
    struct runner r = {ENDS_AT_ONCE, -1, -1};
    struct started s;
    start(&r, &s);
    assert_int_equal(turn_await(t.ready, &s.c, LIMIT_S, TURN_READY), 0);
    assert_true(isolate_elapsed(&s.c) < LIMIT_S / 2);
    isolate_wait(&s.c, LIMIT_S, &s.res);
    assert_int_equal(s.res.status, 3); /* still the caller's to collect */
    turn_fifos_close(&t);

    start_on_socket(CLOSES_ITS_END, &s);
    assert_int_equal(turn_await(s.judge, &s.c, LIMIT_S, TURN_READY), 0);
    assert_true(isolate_elapsed(&s.c) < LIMIT_S / 2);
    isolate_wait(&s.c, 0, &s.res); /* past its limit: killed */
    assert_int_equal(s.res.outcome, ISOLATE_TIMED_OUT);
    close(s.judge);
}

static void a_silent_runner_is_given_up_at_its_limit(void **state)
{
    (void)state;
    struct started s;
    start_on_socket(SAYS_NOTHING, &s);
    assert_int_equal(turn_await(s.judge, &s.c, 0.2, TURN_READY), 0);
    assert_true(isolate_elapsed(&s.c) >= 0.2);
    /* The judge's own wait (for the lock) paused it: its limit, 0.2 s from now, counts from 1 s
     * later. */
    double t0 = clock_s(), limit = isolate_elapsed(&s.c) + 0.2;
    isolate_pause(&s.c, 1.0);
    isolate_wait(&s.c, limit, &s.res);
    assert_int_equal(s.res.outcome, ISOLATE_TIMED_OUT);
    assert_true(clock_s() - t0 >= 1.2);
    close(s.judge);
}

/* A DONE_THEN_LINGERS runner's turn: its TURN_DONE read while it still runs; then it is stopped. */
static void done_before_its_end(int ready, int go, struct started *s)
{
    says_ready(ready, s);
    turn_give(go);
    assert_int_equal(turn_await(ready, &s->c, LIMIT_S, TURN_DONE), 1);
    assert_false(isolate_ended(&s->c));
    isolate_wait(&s->c, 0, &s->res);
}

/* TURN_DONE read while the runner still runs, over a socket and over FIFOs; after the turn only. */
static void the_done_word_comes_before_the_end(void **state)
{
    (void)state;
    struct started s;
    start_on_socket(DONE_THEN_LINGERS, &s);
    done_before_its_end(s.judge, s.judge, &s);
    close(s.judge);

    struct turn_fifos t;
    assert_int_equal(turn_fifos_open(&t), 0);
    assert_int_equal(setenv(TURN_ENV, t.dir, 1), 0);
    struct runner r = {DONE_THEN_LINGERS, -1, -1};
    start(&r, &s);
    unsetenv(TURN_ENV);
    done_before_its_end(t.ready, t.go, &s);
    turn_fifos_close(&t);

    /* A runner that followed and ended: its word is read after its end all the same. */
    start_on_socket(FOLLOWS, &s);
    says_ready(s.judge, &s);
    goes_on(s.judge, &s);
    assert_int_equal(turn_await(s.judge, &s.c, LIMIT_S, TURN_DONE), 1);
    close(s.judge);

    start_on_socket(DONE_WITHOUT_TURN, &s);
    assert_int_equal(turn_await(s.judge, &s.c, LIMIT_S, TURN_DONE), 0);
    isolate_wait(&s.c, LIMIT_S, &s.res);
    assert_int_equal(s.res.status, 0);
    close(s.judge);
}

static void missing_fifos_stop_the_runner(void **state)
{
    (void)state;
    assert_int_equal(setenv(TURN_ENV, "/nonexistent/wb-turn", 1), 0);
    struct runner r = {FOLLOWS, -1, -1};
    struct started s;
    start(&r, &s);
    unsetenv(TURN_ENV);
    isolate_wait(&s.c, LIMIT_S, &s.res);
    assert_int_equal(s.res.outcome, ISOLATE_EXITED);
    assert_int_equal(s.res.status, 7); /* refused to go on, and did not wait for a judge */
}

static void a_runner_whose_judge_is_gone_is_told(void **state)
{
    (void)state;
    struct started s;
    start_on_socket(FOLLOWS, &s);
    says_ready(s.judge, &s);
    close(s.judge); /* no TURN_GO: the judge gave up on the job */
    isolate_wait(&s.c, LIMIT_S, &s.res);
    assert_int_equal(s.res.outcome, ISOLATE_EXITED);
    assert_int_equal(s.res.status, 7);
    turn_give(-1); /* and a word to no one is nothing */

    /* A word to a runner that is gone: no SIGPIPE ends the judge. */
    start_on_socket(ENDS_AT_ONCE, &s);
    isolate_wait(&s.c, LIMIT_S, &s.res);
    turn_give(s.judge);
    turn_give(s.judge);
    close(s.judge);
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(words_in_order_over_a_socket),
    cmocka_unit_test(the_wait_takes_only_its_word),
    cmocka_unit_test(words_in_order_over_fifos),
    cmocka_unit_test(a_runner_that_ends_is_not_waited_for),
    cmocka_unit_test(a_silent_runner_is_given_up_at_its_limit),
    cmocka_unit_test(a_runner_whose_judge_is_gone_is_told),
    cmocka_unit_test(the_done_word_comes_before_the_end),
    cmocka_unit_test(missing_fifos_stop_the_runner))
