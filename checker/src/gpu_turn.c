/* Both ends of a runner's turn with the GPU alone (gpu_turn.h). */
#define _GNU_SOURCE
#include "gpu_turn.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the runner's end ---- */

static int turn_in = -1, turn_out = -1;
int turn_wait(void)
{
    char c = TURN_READY;
    if (turn_in < 0)
        return 0;
    return write(turn_out, &c, 1) == 1 && read(turn_in, &c, 1) == 1 && c == TURN_GO ? 0 : -1;
}

void turn_done(void)
{
    char c = TURN_DONE;
    if (turn_out >= 0 && write(turn_out, &c, 1) != 1)
        turn_out = -1;
}

void turn_attach(int fd)
{
    const char *dir = getenv(TURN_ENV);
    char path[4096];
    if (fd >= 0) {
        turn_in = turn_out = fd;
        return;
    }
    if (!dir || !*dir)
        return;
    snprintf(path, sizeof path, "%s/ready", dir);
    turn_out = open(path, O_WRONLY | O_CLOEXEC);
    snprintf(path, sizeof path, "%s/go", dir);
    turn_in = turn_out >= 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (turn_in < 0 && turn_out >= 0)
        close(turn_out), turn_out = -1;
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
            if (read(fd, &got, 1) != 1)
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
    char go = TURN_GO;
    sigaction(SIGPIPE, &ignore, &was);
    ssize_t sent = fd >= 0 ? write(fd, &go, 1) : 0; /* a runner that ended before it read says so itself */
    (void)sent;
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
