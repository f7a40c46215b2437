/* What the two halves of checker/bench/tensor-core-check.sh share (tensor-core-check-emu.c, the
 * interpreter's; tensor-core-check-gpu.cu, the GPU's): the buffers, their starting values, and
 * the case lines both read on stdin,
 *   kernel case mangled-name words arg...
 * each arg `in`, `out` or a 32-bit integer. */
#ifndef WB_TENSOR_CORE_CASES_H
#define WB_TENSOR_CORE_CASES_H
#include <stdint.h>
#include <stdio.h>

#define IN_WORDS 128
#define OUT_WORDS 192

struct tc_case {
    char line[512];
    char kernel[64], name[64], mangled[128];
    int words;         /* how many words of out to print */
    const char *args;  /* the rest of the line */
};

/* The next case from in: 1; 0 at its end; -1 (said on stderr) for one that asks for more words
 * than out holds. Comments (#) and lines that are no case are passed over. */
static inline int tc_next_case(FILE *in, struct tc_case *c)
{
    int used;
    while (fgets(c->line, sizeof c->line, in)) {
        if (c->line[0] == '#' ||
            sscanf(c->line, "%63s %63s %127s %d%n", c->kernel, c->name, c->mangled, &c->words, &used) != 4)
            continue;
        if (c->words > OUT_WORDS) {
            fprintf(stderr, "%s %s: too many words\n", c->kernel, c->name);
            return -1;
        }
        c->args = c->line + used;
        return 1;
    }
    return 0;
}

/* The case's next argument into arg (64 bytes), *p moved past it: 0 when there is none left. */
static inline int tc_next_arg(const char **p, char *arg)
{
    int used;
    if (sscanf(*p, "%63s%n", arg, &used) != 1)
        return 0;
    *p += used;
    return 1;
}

/* Every case starts from in[k] = k + 1 as floats and out 0xcdcdcdcd a word. */
static inline void tc_fill(float *in, uint32_t *out)
{
    for (int i = 0; i < IN_WORDS; i++)
        in[i] = (float)(i + 1);
    for (int i = 0; i < OUT_WORDS; i++)
        out[i] = 0xcdcdcdcdu;
}

/* The words of out a case prints: "kernel case index hex" a line. */
static inline void tc_print(const struct tc_case *c, const uint32_t *out)
{
    for (int i = 0; i < c->words; i++)
        printf("%s %s %d %08x\n", c->kernel, c->name, i, out[i]);
}

#endif
