/* The gate on what the compiler made of a lesson file: the barrier behind the friendly rules
 * of lint.h, since it reads the object itself (ELF), whatever the source's spelling.
 *
 * The GPU's cubin, device code alone: exactly one __global__ kernel, named and typed as the
 * contract says; no writable __device__ variables (state kept between launches); calls to
 * nothing but device printf and assert. (The emulator's PTX has its gate in the interpreter,
 * which refuses what it does not know.) */
#ifndef WB_OBJGATE_H
#define WB_OBJGATE_H
#include <stddef.h>

#include "family.h"

/* 0 if the cubin at path passes; otherwise -1 and a sentence naming what was refused. */
int gate_object(const char *path, const char *kernel, const struct family *family, char *msg, size_t len);
/* What ptxas gave the contract's kernel in the cubin at path: registers per thread (what a block's
 * launch needs of the SM's register file: the emulator refuses a launch the GPU would) and static
 * shared memory. 0, or -1 where the cubin or its record cannot be read. */
int cubin_resources(const char *path, const char *kernel, const struct family *family, int *registers, size_t *shared);

#endif
