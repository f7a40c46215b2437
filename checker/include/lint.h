/* The lesson files' rules, checked on the source before it is compiled: kernels only.
 *
 * The friendly first word, not the barrier: the gate on the compiled object (objgate.h), the
 * emulator's tracer and its sandbox stop what gets past it (docs/security.md). Host code (a
 * static constructor, a file-scope variable initialised by a call) and library calls are
 * refused here with the line and a sentence that says which rule was broken:
 *   - preprocessor: only #define, #undef, #if/#ifdef/#ifndef/#elif/#else/#endif, #pragma unroll;
 *     no token pasting (##), no _Pragma;
 *   - asm only in the body of a __device__ or __global__ function (PTX, judged as the rest);
 *   - no __host__, __attribute__, extern, main, <<< >>>, and no library names (cuda*
 *     runtime calls, cuBLAS, Thrust, CUB, CUTLASS, std::, WMMA);
 *   - at file scope only __global__/__device__/__constant__ declarations, constexpr (or
 *     plain const) constants, enums and typedefs; no struct, class or union (constructors);
 *   - exactly one __global__ function, and it is the lesson's kernel. */
#ifndef WB_LINT_H
#define WB_LINT_H
#include <stddef.h>

struct lint_problem {
    int line;          /* 1-based line of the source */
    char message[400]; /* one sentence, for the student */
};

/* Checks `text` (a lesson file) against the rules for a file that must define __global__
 * `kernel`. Returns 0 if it follows them, else 1 with the first broken rule in *p. */
int lint_kernel_source(const char *text, const char *kernel, struct lint_problem *p);

#endif
