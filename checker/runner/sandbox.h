/* The sandbox a runner shuts itself into before it runs a lesson file's code as host code (the
 * emulator): a seccomp filter (libseccomp) that allows only what running kernels needs, once
 * the job is mapped and the buffers are allocated. The judge adds the rest before starting it:
 * rlimits, an empty working folder, an empty environment and, where it works, bubblewrap's
 * namespaces (checker/judge/spawn.c; docs/security.md). */
#ifndef WB_SANDBOX_H
#define WB_SANDBOX_H
#include <stddef.h>

/* Allows from now on: writing to stdout and stderr, memory that cannot become code, the clock,
 * signals to itself, and exit. Any other system call ends the process with exit code
 * JOB_FORBIDDEN after storing its number in *forbidden. Returns 0, or -1 with the reason. */
int sandbox_enter(int *forbidden, char *why, size_t len);

#endif
