/* What the conformance suite's two sides share (conform_emu.c, conform_gpu.cu): reading forms.py's
 * folder, a form a line of forms.tsv, and writing each form's outputs and status the same way. */
#ifndef WB_CONFORM_FORMS_H
#define WB_CONFORM_FORMS_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONFORM_THREADS 128 /* a block's, in every launch of the suite on either side */

struct conform_form {
    char id[16], group[64], name[512];
    unsigned cases, ins, outs; /* cases, and the bytes of each one's input and output slot */
    unsigned long in_off, out_off;
};

/* A whole file, with a '\0' after it (NULL: it cannot be read). */
static char *conform_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n + 65536 + 1 > cap) {
            char *grown = (char *)realloc(buf, cap = 2 * cap + 65536 + 1);
            if (!grown) {
                free(buf), fclose(f);
                return NULL;
            }
            buf = grown;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* How a side runs one form: 0 ran, 1 refused (the reader, the assembler), 2 failed while it ran;
 * why, into why. */
typedef int (*conform_run)(const char *ptx, const unsigned char *in, size_t in_bytes, unsigned char *out,
                           size_t out_bytes, unsigned cases, char *why, size_t len);

/* Runs each form of DIR with run, writing DIR/SIDE.bin (the outputs, form after form) and
 * DIR/SIDE.tsv (id, status, why); the count of each status into counts[3]. -1 (said on stderr)
 * when DIR cannot be read. */
static int conform_each(const char *dir, const char *side, conform_run run, int counts[3])
{
    char path[4096], line[1024];
    size_t in_total;
    snprintf(path, sizeof path, "%s/inputs.bin", dir);
    unsigned char *inputs = (unsigned char *)conform_slurp(path, &in_total);
    snprintf(path, sizeof path, "%s/forms.tsv", dir);
    FILE *tsv = fopen(path, "r");
    snprintf(path, sizeof path, "%s/%s.bin", dir, side);
    FILE *bin = fopen(path, "wb");
    snprintf(path, sizeof path, "%s/%s.tsv", dir, side);
    FILE *status = fopen(path, "w");
    if (!inputs || !tsv || !bin || !status) {
        fprintf(stderr, "conform-%s: %s: cannot read forms.py's files or write the outputs\n", side, dir);
        return -1;
    }
    while (fgets(line, sizeof line, tsv)) {
        struct conform_form f;
        if (line[0] == '#')
            continue;
        if (sscanf(line, "%15[^\t]\t%63[^\t]\t%511[^\t]\t%u\t%u\t%u\t%lu\t%lu", f.id, f.group, f.name, &f.cases,
                   &f.ins, &f.outs, &f.in_off, &f.out_off) != 8 ||
            f.in_off + (size_t)f.cases * f.ins > in_total) {
            fprintf(stderr, "conform-%s: forms.tsv: a line that does not read: %s", side, line);
            return -1;
        }
        snprintf(path, sizeof path, "%s/ptx/%s.ptx", dir, f.id);
        char *ptx = conform_slurp(path, NULL);
        size_t out_bytes = (size_t)f.cases * f.outs;
        unsigned char *out = (unsigned char *)calloc(1, out_bytes ? out_bytes : 1);
        if (!ptx || !out) {
            fprintf(stderr, "conform-%s: %s: missing\n", side, path);
            return -1;
        }
        char why[2048] = "";
        int r = run(ptx, inputs + f.in_off, (size_t)f.cases * f.ins, out, out_bytes, f.cases, why, sizeof why);
        for (char *c = why; *c; c++)
            if (*c == '\t' || *c == '\n')
                *c = ' ';
        fwrite(out, 1, out_bytes, bin);
        fprintf(status, "%s\t%s\t%s\n", f.id, r == 0 ? "ran" : r == 1 ? "refused" : "failed", why);
        counts[r]++;
        free(out), free(ptx);
    }
    fclose(tsv), fclose(bin), fclose(status);
    free(inputs);
    return 0;
}
#endif
