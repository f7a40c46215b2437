/* The gate on what the compiler made of a lesson file: the barrier behind the friendly rules
 * of lint.h, since it reads the object itself (ELF), whatever the source's spelling.
 *
 *   cubin (the GPU): device code alone; exactly one __global__ kernel, named and typed as the
 *     contract says; no writable __device__ variables (state kept between launches); calls to
 *     nothing but device printf and assert.
 *   emu (the emulator's kernel_file.o, host code): no static constructors or destructors but the
 *     tracer's own (tsan.module_ctor); no writable globals besides __shared__ memory (at most
 *     48 KB of it, as on a GPU); every defined symbol in the role's namespace; calls to nothing
 *     but the tracer, the emulator's CUDA, device printf and libm. */
#ifndef WB_OBJGATE_H
#define WB_OBJGATE_H
#include <stddef.h>

#include "family.h"

/* 0 if the object at path passes; otherwise -1 and a sentence naming what was refused. kind:
 * "cubin" or "emu"; role: the emulator's namespace (student, solution, baseline). */
int gate_object(const char *path, const char *kind, const char *role, const char *kernel, const struct family *family,
                char *msg, size_t len);

#endif
