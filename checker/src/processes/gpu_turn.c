/* Both ends of a runner's turn with the GPU alone (gpu_turn.h). */
#define _GNU_SOURCE
#include "gpu_turn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the runner's end ---- */

static int turn_in = -1, turn_out = -1, turn_broken, taken;

/* One byte, again where a signal interrupted it. */
static int put(int fd, char c)
{
    ssize_t n;
    while ((n = write(fd, &c, 1)) < 0 && errno == EINTR)
        ;
    return n == 1 ? 0 : -1;
}

static int get(int fd, char *c)
{
    ssize_t n;
    while ((n = read(fd, c, 1)) < 0 && errno == EINTR)
        ;
    return (int)n;
}

int turn_wait(void)
{
    char c;
    if (turn_broken)
        return -1;
    if (turn_in < 0)
        return 0;
    taken = put(turn_out, TURN_READY) == 0 && get(turn_in, &c) == 1 && c == TURN_GO;
    return taken ? 0 : -1;
}

int turn_taken(void) { return taken; }

void turn_done(void)
{
    if (taken)
        (void)put(turn_out, TURN_DONE); /* a judge gone: nothing to tell */
}

int turn_attach(int fd)
{
    const char *dir = getenv(TURN_ENV);
    char path[4096];
    if (fd >= 0) {
        turn_in = turn_out = fd;
        return 0;
    }
    if (!dir || !*dir)
        return 0;
    /* Asked for and not to be had: the launches must not go on without the GPU alone. */
    snprintf(path, sizeof path, "%s/ready", dir);
    turn_out = open(path, O_WRONLY | O_CLOEXEC);
    snprintf(path, sizeof path, "%s/go", dir);
    turn_in = turn_out >= 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    turn_broken = turn_in < 0;
    return turn_broken ? -1 : 0;
}

/* ---- the judge's end ---- */

int turn_await(int fd, const struct isolate_child *c, double timeout_s, char want)
{
    while (fd >= 0) {
        /* Ended first, then read: a word the runner wrote before it ended is still read. */
        int ended = isolate_ended(c);
        double left = timeout_s - isolate_elapsed(c);
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, ended || left <= 0 ? 0 : left < 0.05 ? (int)(left * 1000) + 1 : 50);
        char got;
        if (r > 0) {
            if (get(fd, &got) != 1)
                return 0; /* the runner's end closed */
            if (got == want)
                return 1;
            continue; /* a word of an earlier step */
        }
        if (ended || left <= 0)
            return 0;
    }
    return 0;
}

void turn_give(int fd)
{
    struct sigaction ignore = {.sa_handler = SIG_IGN}, was;
    sigaction(SIGPIPE, &ignore, &was);
    if (fd >= 0)
        (void)put(fd, TURN_GO); /* a runner that ended before it read says so itself */
    sigaction(SIGPIPE, &was, NULL);
}

int turn_fifos_open(struct turn_fifos *t)
{
    char path[64];
    t->ready = t->go = -1;
    snprintf(t->dir, sizeof t->dir, "/tmp/wb-turn-XXXXXX");
    if (!mkdtemp(t->dir))
        return t->dir[0] = '\0', -1;
    /* Opened both ways: neither the judge's open nor the runner's waits for the other end. */
    snprintf(path, sizeof path, "%s/ready", t->dir);
    if (mkfifo(path, 0600) == 0)
        t->ready = open(path, O_RDWR | O_CLOEXEC);
    snprintf(path, sizeof path, "%s/go", t->dir);
    if (t->ready >= 0 && mkfifo(path, 0600) == 0)
        t->go = open(path, O_RDWR | O_CLOEXEC);
    if (t->go < 0) {
        turn_fifos_close(t);
        return -1;
    }
    return 0;
}

void turn_fifos_close(struct turn_fifos *t)
{
    char path[64];
    if (t->ready >= 0)
        close(t->ready);
    if (t->go >= 0)
        close(t->go);
    t->ready = t->go = -1;
    if (!t->dir[0])
        return;
    snprintf(path, sizeof path, "%s/ready", t->dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/go", t->dir);
    unlink(path);
    rmdir(t->dir);
    t->dir[0] = '\0';
}
