/* A runner's turn with the GPU alone (gpu_lock.h), asked for by the runner itself: a runner
 * whose work has a part that must have the GPU to itself (a timing; Nsight Compute's counted
 * launches) does everything before it first (its CUDA context, its buffers, their copies, its
 * untimed launches), then writes TURN_READY and waits for TURN_GO; the judge holds the lock
 * shared until then, and alone from then until the runner, its GPU work over and its CUDA
 * context destroyed, writes TURN_DONE (or ends without it). So the GPU is held alone for the
 * part and its context's end, not for the seconds of starting CUDA (or a tool) before it, nor
 * for the process's exit or a tool's report after it, while the judge, not the runner, waits
 * for the lock, outside every time limit (checker/judge/gpu_share.c).
 *
 * The channel: the runner's fd 3 + njobs, a socket both ways (`gpu-runner --turn`); or under a
 * tool, which may not pass descriptors on, the FIFOs TURN_ENV/ready (runner to judge) and
 * TURN_ENV/go (judge to runner). A runner given neither (an untimed batch, compute-sanitizer's
 * run) never waits. Without WB_GPU_LOCK (make check: the GPU is the judge's own) a turn asked for
 * is given at once, and the runner's context still ends before its TURN_DONE. */
#ifndef WB_GPU_TURN_H
#define WB_GPU_TURN_H

#define TURN_READY 'r'
#define TURN_GO 'g'
#define TURN_DONE 'd'
#define TURN_ENV "WB_TURN"

#include "isolate.h"

/* ---- the runner's end ---- */
/* fd >= 0: the turn's socket; else the FIFOs TURN_ENV names, if it does: -1 when it names
 * FIFOs that cannot be opened (then turn_wait refuses: no launch without the turn). */
int turn_attach(int fd);
/* TURN_READY, then waits for TURN_GO: 0 to go on (at once without a channel), -1 when the judge
 * is gone or the channel asked for is not there. */
int turn_wait(void);
/* Whether this runner has had its turn (turn_wait let it go on over a channel). */
int turn_taken(void);
/* TURN_DONE, once a runner that had its turn has no more to do on the GPU, has let go of what its
 * libraries hold there (limit_release) and has destroyed its context (cudaDeviceReset). Nothing
 * when it had no turn. */
void turn_done(void);

/* ---- the judge's end ---- */
/* Waits on fd for the runner's word `want`, within its time limit (timeout_s since its start, c):
 * 1 when it came; 0 when the runner ended, closed its end or ran out of time without it. */
int turn_await(int fd, const struct isolate_child *c, double timeout_s, char want);
void turn_give(int fd); /* TURN_GO; nothing when fd < 0 or the runner is gone */
/* A folder with the FIFOs, each opened both ways so that neither end's open waits: 0, or -1. */
struct turn_fifos {
    char dir[32];
    int ready, go;
};
int turn_fifos_open(struct turn_fifos *t);
void turn_fifos_close(struct turn_fifos *t);

#endif
