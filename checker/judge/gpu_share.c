/* The judge's side of sharing one GPU with other judges (gpu_lock.h, WB_GPU_LOCK): it holds the
 * lock around each run it starts on the GPU, shared for untimed work and compute-sanitizer's,
 * alone for a timing or Nsight Compute's counting. For those the runner asks for its turn itself
 * (gpu_turn.h): the judge holds the lock shared while the runner starts CUDA and fills its
 * buffers, and alone from the runner's TURN_READY to its TURN_DONE (its context destroyed) or its
 * end. The judge, not the runner, waits for the lock, and the time it waited is taken off the
 * runner's clock (isolate_pause), so no wait is ever counted against a run's time limit: a
 * kernel that hangs holds others back, and fails no one else.
 *
 * WB_GPU_LOCK_LOG=file: each hold appended as a line "WHAT waited_s held_s since alone|shared"
 * (since: when it was taken, in seconds since the epoch, as checker/tools/run-cases.py stamps
 * each case: a run's holds and cases can be laid out in time; gpu-test's last lines say where
 * the GPU's time went from it). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check_run.h"
#include "gpu_lock.h"
#include "gpu_share.h"

static double clock_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static struct {
    const char *what; /* NULL: not held */
    int alone;
    double since, waited, since_epoch;
} hold;

static void log_hold(void)
{
    const char *path = getenv("WB_GPU_LOCK_LOG");
    if (!hold.what || !path || !*path)
        return;
    char line[160];
    int n = snprintf(line, sizeof line, "%s %.3f %.3f %.3f %s\n", hold.what, hold.waited, clock_s() - hold.since,
                     hold.since_epoch, hold.alone ? "alone" : "shared");
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ssize_t w = write(fd, line, (size_t)n); /* one write: whole lines among the judges' */
        (void)w;
        close(fd);
    }
}

double gpu_use(int alone, const char *what)
{
    static int warned;
    if (checking.emulator)
        return 0;
    log_hold();
    double t0 = clock_s();
    if (gpu_lock_take(alone ? GPU_ALONE : GPU_SHARED) != 0 && !warned++)
        say("  (WB_GPU_LOCK cannot be opened (%s): this judge uses the GPU without waiting for the others)\n",
            strerror(errno));
    hold.what = what;
    hold.alone = alone;
    hold.since = clock_s();
    hold.waited = hold.since - t0;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    hold.since_epoch = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
    return hold.waited;
}

void gpu_done(void)
{
    log_hold();
    hold.what = NULL;
    gpu_lock_drop();
}
