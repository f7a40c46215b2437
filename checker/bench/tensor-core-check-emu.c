/* The PTX interpreter's half of checker/bench/tensor-core-check.sh: runs the cases it reads on
 * stdin in the interpreter (checker/runner/ptx/), as test_ptx_run.c launches them, on the PTX
 * file named first (build/tests/ptx_kernels.ptx). A case is a line
 *   kernel case mangled-name words arg...
 * with `in` (128 floats, in[k] = k + 1), `out` (192 words, each 0xcdcdcdcd first) or a 32-bit
 * integer for each argument, launched on one block of 32 threads. Prints each case's first
 * `words` words of out as "kernel case index hex", and writes to the file named second one
 * line of counts a case: its result, ldmatrix's own shared-load requests, wavefronts and
 * ideal wavefronts (the instructions that are ldmatrix, by the interpreter's per-instruction
 * counts), and the whole kernel's shared loads and stores.
 *   Usage: tensor-core-check-emu PTX COUNTS < cases > dump */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"
#include "ptx.h"
#include "ptx_exec.h"
#include "tensor-core-cases.h"

#define GUARD 64 /* words of guard zone on each side of a buffer */

static float in_arena[GUARD + IN_WORDS + GUARD];
static uint32_t out_arena[GUARD + OUT_WORDS + GUARD];

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s PTX COUNTS < cases > dump\n", argv[0]);
        return 2;
    }
    char *text = ptx_read_file(argv[1], 16 << 20);
    struct ptx_module module;
    memset(&module, 0, sizeof module);
    if (!text || ptx_parse(text, &module)) {
        fprintf(stderr, "%s: %s\n", argv[1], text ? module.error : "cannot read it");
        return 1;
    }
    free(text);
    FILE *counts = fopen(argv[2], "w");
    if (!counts) {
        perror(argv[2]);
        return 1;
    }
    fprintf(counts, "# kernel case rc ldsm_requests ldsm_wavefronts ldsm_ideal shared_ld_requests "
                    "shared_ld_wavefronts shared_st_requests shared_st_wavefronts\n");
    float *in = in_arena + GUARD;
    uint32_t *out = out_arena + GUARD;
    const struct emu_buffer buffers[] = {
        {(const char *)in, (const char *)(in + IN_WORDS), GUARD * 4, "in", 1, 4},
        {(const char *)out, (const char *)(out + OUT_WORDS), GUARD * 4, "out", 0, 4},
    };
    int failed = 0;
    struct tc_case tc;
    int got;
    while ((got = tc_next_case(stdin, &tc)) > 0) {
        const struct ptx_kernel *k = ptx_find_kernel(&module, tc.mangled);
        if (!k) {
            fprintf(stderr, "%s %s: no such kernel in the PTX\n", tc.kernel, tc.name);
            return 1;
        }
        /* The arguments into the parameter block, where the kernel's .param list puts them. */
        unsigned char params[256] = {0};
        int n = 0;
        char arg[64];
        for (const char *p = tc.args; tc_next_arg(&p, arg); n++) {
            uint64_t v = !strcmp(arg, "in") ? (uint64_t)(uintptr_t)in
                         : !strcmp(arg, "out") ? (uint64_t)(uintptr_t)out
                                               : (uint64_t)(uint32_t)strtol(arg, NULL, 0);
            int bytes = strcmp(arg, "in") && strcmp(arg, "out") ? 4 : 8;
            if (n >= k->nparams || k->params[n].bytes != bytes || k->param_bytes > (int)sizeof params) {
                fprintf(stderr, "%s %s: argument %d (%s) does not fit %s's parameters\n", tc.kernel, tc.name, n + 1,
                        arg, tc.mangled);
                return 1;
            }
            memcpy(params + k->params[n].offset, &v, (size_t)bytes); /* little-endian */
        }
        if (n != k->nparams) {
            fprintf(stderr, "%s %s: %d arguments for %d parameters\n", tc.kernel, tc.name, n, k->nparams);
            return 1;
        }
        tc_fill(in, out);
        emu_set_buffers(buffers, 2);
        struct ptx_launch L = {&module, k, {1, 1, 1}, {32, 1, 1}, params, "checker/tests/ptx/kernels.cu", 0};
        struct mem_counts c;
        static struct emu_line_counts lines[EMU_MAX_LINES];
        int nlines;
        emu_trace_start();
        int rc = ptx_run(&L);
        emu_trace_stop(&c, lines, &nlines);
        if (rc) {
            fprintf(stderr, "%s %s: the interpreter returned %d: %s\n", tc.kernel, tc.name, rc, emu_error());
            failed = 1;
        }
        /* ldmatrix's own: the counts of the instructions (pc: index + 1) that are ldmatrix. */
        struct op_counts ldsm = {0, 0, 0, 0};
        for (int i = 0; i < nlines; i++) {
            uintptr_t pc = lines[i].pc;
            if (pc >= 1 && pc <= (uintptr_t)k->ninsns && k->insns[pc - 1].op == OP_LDMATRIX) {
                ldsm.requests += lines[i].op[SHARED_LD].requests;
                ldsm.wavefronts += lines[i].op[SHARED_LD].wavefronts;
                ldsm.ideal += lines[i].op[SHARED_LD].ideal;
            }
        }
        fprintf(counts, "%s %s %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                tc.kernel, tc.name, rc, ldsm.requests, ldsm.wavefronts, ldsm.ideal, c.op[SHARED_LD].requests,
                c.op[SHARED_LD].wavefronts, c.op[SHARED_ST].requests, c.op[SHARED_ST].wavefronts);
        tc_print(&tc, out);
    }
    fclose(counts);
    ptx_free(&module);
    return got < 0 || failed;
}
