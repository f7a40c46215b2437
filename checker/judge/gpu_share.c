/* The judge's side of sharing one GPU with other judges (gpu_lock.h, WB_GPU_LOCK): it holds the
 * lock around each run it starts on the GPU, shared for an untimed job or compute-sanitizer's,
 * alone for a timed job or Nsight Compute's. It waits for the lock before it starts the runners,
 * so no wait is ever counted against a run's time limit: a kernel that hangs holds others back,
 * and fails no one else. (A runner taking the lock itself around its timed launches alone holds
 * the GPU for less, but then waits inside its own time limit, behind a kernel that hangs.) */
#include <errno.h>
#include <string.h>

#include "check_run.h"
#include "gpu_lock.h"

void gpu_use(int alone)
{
    static int warned;
    if (!checking.emulator && gpu_lock_take(alone ? GPU_ALONE : GPU_SHARED) != 0 && !warned++)
        say("  (WB_GPU_LOCK cannot be opened (%s): this judge uses the GPU without waiting for the others)\n",
            strerror(errno));
}

void gpu_done(void)
{
    gpu_lock_drop();
}
