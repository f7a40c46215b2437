/* One GPU shared by several judges at once (checker/src/processes/gpu_lock.c): make gpu-test grades
 * kernels side by side, every judge told the same lock file (WB_GPU_LOCK). Untimed work shares
 * the GPU; a timed job and Nsight Compute's counting have it alone. Without WB_GPU_LOCK nothing
 * waits: the GPU is the process's own (make check, a course's grading). */
#ifndef WB_GPU_LOCK_H
#define WB_GPU_LOCK_H

enum gpu_use { GPU_SHARED, GPU_ALONE };

/* Waits until this process may use the GPU as `how` says, until gpu_lock_drop() or its exit.
 * 0, or -1 with errno when WB_GPU_LOCK names a file that cannot be opened (then nothing waits). */
int gpu_lock_take(enum gpu_use how);
void gpu_lock_drop(void);

#endif
