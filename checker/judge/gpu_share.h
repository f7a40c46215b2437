/* The judge's side of sharing one GPU with other judges (gpu_share.c, over gpu_lock.h): held
 * around each run the judge starts on the GPU. It stands on the run's state alone
 * (check_run.h); jobs.c and tools.c, above it, hold it. */
#ifndef WB_GPU_SHARE_H
#define WB_GPU_SHARE_H

/* Where several judges share one GPU (WB_GPU_LOCK=file, make gpu-test): waits until this judge
 * may use it, beside the others (untimed work) or alone (alone=1: timing, Nsight Compute), until
 * gpu_done(); returns the seconds it waited; `what` names the hold in WB_GPU_LOCK_LOG. Without
 * WB_GPU_LOCK, and in the emulator, neither waits. */
double gpu_use(int alone, const char *what);
void gpu_done(void);

#endif
