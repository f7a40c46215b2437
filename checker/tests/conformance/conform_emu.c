/* The conformance suite's interpreter side (checker/tests/conformance/README.md): every form that
 * forms.py wrote, read and run by the PTX interpreter as the emulator's runner runs a student's
 * kernel (every access traced and bounds-checked), its outputs written where conform_gpu.cu
 * writes the GPU's, for conform.py to compare bit for bit.
 *
 * Usage: conform-emu DIR     (DIR: forms.py's folder; writes DIR/emu.bin and DIR/emu.tsv, a line
 *                             a form: id, "ran", "refused" or "failed", and the interpreter's
 *                             sentence) */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform_forms.h"
#include "emu.h"
#include "ptx.h"
#include "ptx_exec.h"

#define GUARD 4096  /* bytes of guard zone on each side of a buffer */

static sigjmp_buf leave;
static char fatal[512];

static void stop_run(const char *sentence)
{
    snprintf(fatal, sizeof fatal, "%s", sentence);
    siglongjmp(leave, 1);
}

/* One buffer between guard zones, 256-byte aligned as cudaMalloc's. */
static unsigned char *guarded(size_t bytes)
{
    unsigned char *base = aligned_alloc(256, (bytes + 2 * GUARD + 255) / 256 * 256);
    if (!base) {
        fprintf(stderr, "conform-emu: out of memory\n");
        exit(2);
    }
    memset(base, 0, bytes + 2 * GUARD);
    return base + GUARD;
}

/* Runs one form: 0 ran, 1 refused by the reader, 2 failed while it ran; why, into why. */
static int run_form(const char *ptx, const unsigned char *in, size_t in_bytes, unsigned char *out, size_t out_bytes,
                    unsigned cases, char *why, size_t len)
{
    static struct ptx_module m;
    volatile int result = 0;
    if (ptx_parse(ptx, &m) != 0) {
        snprintf(why, len, "%s", m.error);
        ptx_free(&m);
        return 1;
    }
    unsigned char *gin = guarded(in_bytes), *gout = guarded(out_bytes);
    memcpy(gin, in, in_bytes);
    struct emu_buffer given[2] = {
        {.begin = (const char *)gin, .end = (const char *)gin + in_bytes, .guard = GUARD, .name = "in", .read_only = 1,
         .elem_bytes = 8},
        {.begin = (const char *)gout, .end = (const char *)gout + out_bytes, .guard = GUARD, .name = "out",
         .elem_bytes = 8}};
    emu_set_buffers(given, 2);
    unsigned char params[20];
    uint64_t pin = (uint64_t)(uintptr_t)gin, pout = (uint64_t)(uintptr_t)gout;
    uint32_t n = cases;
    memcpy(params, &pin, 8), memcpy(params + 8, &pout, 8), memcpy(params + 16, &n, 4);
    struct ptx_launch L = {.m = &m, .k = &m.kernels[0], .grid = {(cases + CONFORM_THREADS - 1) / CONFORM_THREADS, 1, 1},
                           .block = {CONFORM_THREADS, 1, 1}, .params = params, .source = "conform.ptx"};
    fatal[0] = '\0';
    if (sigsetjmp(leave, 1) == 0) {
        int rc = ptx_run(&L);
        if (rc != 0) {
            snprintf(why, len, "%s", emu_error());
            result = 2;
        }
    } else {
        snprintf(why, len, "%s", fatal);
        result = 2;
    }
    memcpy(out, gout, out_bytes);
    free(gin - GUARD), free(gout - GUARD);
    ptx_free(&m);
    return result;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: conform-emu DIR (forms.py's folder)\n");
        return 2;
    }
    if (!freopen("/dev/null", "w", stdout)) /* a kernel's printf: none here, but never into the table */
        return 2;
    emu_set_fatal_handler(stop_run);
    int counts[3] = {0, 0, 0};
    if (conform_each(argv[1], "emu", run_form, counts))
        return 2;
    fprintf(stderr, "conform-emu: %d forms: %d ran, %d refused when read, %d failed while running\n",
            counts[0] + counts[1] + counts[2], counts[0], counts[1], counts[2]);
    return 0;
}
