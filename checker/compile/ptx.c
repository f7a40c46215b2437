/* What the PTX a compile made says: reads of clocks and SM ids (refused), and its .file (made to
 * name SRC where it lies). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sealed.h"

/* The whitespace-separated fields of copy (awk's $1, $2, ...), at most max of them, cut out of it. */
static int fields(char *copy, char *field[], int max)
{
    int n = 0;
    for (char *p = copy; *p && n < max;) {
        p += strspn(p, " \t");
        if (!*p)
            break;
        field[n++] = p;
        p += strcspn(p, " \t");
        if (*p)
            *p++ = '\0';
    }
    return n;
}

/* The line of SRC a PTX line's .loc puts in force (or the line that inlined a header's code),
 * else *line unchanged. */
static void loc_line(const char *text, long *line)
{
    char copy[256], *f[3]; /* (the first three fields of a .loc line are short) */
    snprintf(copy, sizeof copy, "%s", text);
    int n = fields(copy, f, 3);
    if (n < 2 || strcmp(f[0], ".loc") != 0)
        return;
    char *end;
    double file = strtod(f[1], &end);
    int first_file = *end == '\0' && end != f[1] ? file == 1 : !strcmp(f[1], "1");
    if (first_file) {
        *line = n > 2 ? strtol(f[2], NULL, 10) : 0;
        return;
    }
    const char *at = strstr(text, "inlined_at 1 ");
    for (; at; at = strstr(at + 1, "inlined_at 1 "))
        if (at[13] >= '0' && at[13] <= '9') {
            *line = strtol(at + 13, NULL, 10);
            return;
        }
}

/* A read of a clock, a timer, or the id of the SM or warp slot it runs on (clock64(), an asm of
 * %globaltimer or %smid): a kernel's result would depend on when or where it runs, and a kernel
 * could tell the emulator from a GPU by it. Refused in both judges from the PTX (ptxas assembles
 * this very text), on the line its .loc names (a comment is no read): the first such read as
 * `SRC(LINE): error: ...` appended to the log, and true; else false. The interpreter refuses the
 * same names (checker/runner/ptx/ptx_decode.c). */
int timer_reads(struct sealed *s, const struct buf *ptx)
{
    regex_t timers;
    if (regcomp(&timers,
                "%(clock|clock_hi|clock64|globaltimer|globaltimer_lo|globaltimer_hi|smid|warpid|nwarpid|gridid)"
                "([^A-Za-z0-9_$]|$)",
                REG_EXTENDED) != 0)
        return 0;
    long line = 0;
    size_t pos = 0, len;
    const char *l;
    int found = 0;
    while (!found && next_line(ptx, &pos, &l, &len)) {
        char *text = xprintf("%.*s", (int)len, l), *comment = strstr(text, "//");
        loc_line(text, &line);
        if (comment)
            *comment = '\0';
        regmatch_t m;
        if (regexec(&timers, text, 1, &m, 0) == 0) {
            int n = (int)(m.rm_eo - m.rm_so);
            char last = text[m.rm_eo - 1];
            if (!((last >= 'A' && last <= 'Z') || (last >= 'a' && last <= 'z') || (last >= '0' && last <= '9') ||
                  last == '_' || last == '%'))
                n--;
            if (s->log.n && s->log.p[s->log.n - 1] != '\n')
                buf_add(&s->log, "\n", 1);
            buf_printf(&s->log,
                       "%s(%ld): error: reads %.*s: lesson files may not read clocks or SM ids: a kernel's result "
                       "must not depend on when or where it runs\n",
                       s->in_src, line, n, text + m.rm_so);
            found = 1;
        }
        free(text);
    }
    regfree(&timers);
    return found;
}

/* The .file of a PTX made in the box, made to name SRC where it lies: the product a ptx compile
 * gives, and what a cubin's line table is made from. */
void src_named(const struct sealed *s, const struct buf *ptx, struct buf *out)
{
    char *from = xprintf("\"%s\"", s->in_src), *to = xprintf("\"%s\"", s->abs_src);
    size_t pos = 0, len;
    const char *line;
    out->n = 0;
    buf_add(out, NULL, 0);
    while (next_line(ptx, &pos, &line, &len)) {
        const char *at = starts_with(line, len, "\t.file\t") ? find_in(line, len, from) : NULL;
        if (at) {
            buf_add(out, line, (size_t)(at - line));
            buf_str(out, to);
            buf_add(out, at + strlen(from), len - (size_t)(at - line) - strlen(from));
        } else {
            buf_add(out, line, len);
        }
        buf_add(out, "\n", 1);
    }
    free(from), free(to);
}
