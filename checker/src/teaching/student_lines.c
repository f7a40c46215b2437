/* What a stub leaves to the student: its TODO regions against the solution (student_lines.h). */
#include "student_lines.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A file cut into lines of code: line[i] is code line i without its comments, spaces made one,
 * from the file's line no[i] (1-based); lines of punctuation alone are left out. */
struct code {
    int n;
    char **line;
    int *no;
};

/* Marks of a stub's regions: positions in its code lines where each opens and closes (a code line
 * i is inside when open <= i < close). */
struct region {
    int open, close, todo_line;
};

static void code_free(struct code *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->line[i]);
    free(c->line);
    free(c->no);
}

/* A line of code that counts, not punctuation alone (braces, parentheses, semicolons, commas):
 * a lone `}` is no line the student writes, and no anchor for the alignment either. */
static int substantive(const char *s)
{
    return s[strspn(s, "{}();, ")] != '\0';
}

/* Whether s starts with word, a whole word. */
static int starts_with_word(const char *s, const char *word)
{
    size_t n = strlen(word);
    return strncmp(s, word, n) == 0 && !isalnum((unsigned char)s[n]) && s[n] != '_';
}

/* The code of the line from p to end into buf, its comments left out (*in_block: inside a block
 * comment, carried from line to line; a block comment's end leaves a space) and each whitespace
 * character a space; *slashes: where its `//` comment's text begins, if it has one. Returns the
 * bytes written. */
static size_t code_of_line(const char *p, const char *end, int *in_block, char *buf, const char **slashes)
{
    size_t b = 0;
    for (const char *q = p; q < end; q++) {
        if (*in_block) {
            if (q[0] == '*' && q + 1 < end && q[1] == '/') {
                *in_block = 0;
                q++;
                buf[b++] = ' ';
            }
            continue;
        }
        if (q[0] == '/' && q + 1 < end && q[1] == '*') {
            *in_block = 1;
            q++;
            continue;
        }
        if (q[0] == '/' && q + 1 < end && q[1] == '/') {
            *slashes = q + 2;
            break;
        }
        if (*q == '"' || *q == '\'') { /* a literal, kept whole: no comment starts in it */
            char quote = *q;
            buf[b++] = *q++;
            while (q < end && *q != quote) {
                if (*q == '\\' && q + 1 < end)
                    buf[b++] = *q++;
                buf[b++] = *q++;
            }
            if (q < end)
                buf[b++] = *q;
            else
                q--;
            continue;
        }
        buf[b++] = isspace((unsigned char)*q) ? ' ' : *q;
    }
    return b;
}

/* Cuts text into code lines. Where regions is not NULL, also finds the TODO regions (room for
 * max, their number in *nregions). Returns 0, or -1 with a sentence in err. */
static int cut(const char *text, struct code *c, struct region *regions, int max, int *nregions, char *err,
               size_t errlen)
{
    size_t len = strlen(text);
    c->n = 0;
    c->line = calloc(len + 2, sizeof *c->line);
    c->no = calloc(len + 2, sizeof *c->no);
    char *buf = malloc(len + 2);
    if (!c->line || !c->no || !buf) {
        free(buf);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int in_block = 0, lineno = 1, open = -1, count = 0;
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, '\n');
        if (!end)
            end = p + strlen(p);
        const char *slashes = NULL; /* this line's `//` comment, where it has one */
        size_t b = code_of_line(p, end, &in_block, buf, &slashes);
        /* Spaces made one, none at the ends. */
        size_t w = 0;
        for (size_t r = 0; r < b; r++)
            if (buf[r] != ' ' || (w > 0 && buf[w - 1] != ' '))
                buf[w++] = buf[r];
        while (w > 0 && buf[w - 1] == ' ')
            w--;
        buf[w] = '\0';
        if (regions && slashes) {
            const char *s = slashes + strspn(slashes, " \t");
            if (starts_with_word(s, "END") && starts_with_word(s + 3 + strspn(s + 3, " \t"), "TODO")) {
                if (open < 0) {
                    snprintf(err, errlen, "line %d: an END TODO with no TODO open above it", lineno);
                    goto fail;
                }
                regions[open].close = c->n;
                open = -1;
            } else if (starts_with_word(s, "TODO") && open < 0) {
                if (count == max) {
                    snprintf(err, errlen, "line %d: more than %d TODO regions", lineno, max);
                    goto fail;
                }
                regions[count] = (struct region){c->n, -1, lineno};
                open = count++;
            }
        }
        if (substantive(buf)) {
            c->line[c->n] = strdup(buf);
            c->no[c->n++] = lineno;
        }
        lineno++;
        p = *end ? end + 1 : end;
    }
    free(buf);
    if (regions && open >= 0) {
        snprintf(err, errlen, "line %d: this TODO's region is never closed (a `// END TODO` line ends it)",
                 regions[open].todo_line);
        code_free(c);
        return -1;
    }
    if (nregions)
        *nregions = count;
    return 0;
fail:
    free(buf);
    code_free(c);
    return -1;
}

int student_lines_measure(const char *stub, const char *solution, struct student_lines *m, char *err,
                          size_t errlen)
{
    enum { MAX_REGIONS = 64 };
    struct region regions[MAX_REGIONS];
    struct code s, t;
    int nregions = 0;
    memset(m, 0, sizeof *m);
    if (cut(stub, &s, regions, MAX_REGIONS, &nregions, err, errlen) != 0)
        return -1;
    if (nregions == 0) {
        snprintf(err, errlen, "no TODO region: a `// TODO: ...` line opens one, a `// END TODO` line closes it");
        code_free(&s);
        return -1;
    }
    if (cut(solution, &t, NULL, 0, NULL, err, errlen) != 0) {
        code_free(&s);
        return -1;
    }
    m->regions = nregions;
    /* The longest common subsequence of the two files' code lines: L[i][j] for s from i, t from j. */
    int n = s.n, k = t.n;
    int *L = calloc((size_t)(n + 1) * (size_t)(k + 1), sizeof *L);
    int *match = malloc(((size_t)k + 1) * sizeof *match); /* t's line j: s's line it matches, or -1 */
    if (!L || !match) {
        free(L);
        free(match);
        code_free(&s);
        code_free(&t);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
#define LCS(i, j) L[(size_t)(i) * (size_t)(k + 1) + (size_t)(j)]
    for (int i = n - 1; i >= 0; i--)
        for (int j = k - 1; j >= 0; j--)
            LCS(i, j) = strcmp(s.line[i], t.line[j]) == 0 ? LCS(i + 1, j + 1) + 1
                        : LCS(i + 1, j) >= LCS(i, j + 1) ? LCS(i + 1, j)
                                                         : LCS(i, j + 1);
    for (int i = 0, j = 0; j < k;) {
        if (i < n && strcmp(s.line[i], t.line[j]) == 0 && LCS(i, j) == LCS(i + 1, j + 1) + 1)
            match[j++] = i++;
        else if (i < n && LCS(i + 1, j) >= LCS(i, j + 1))
            i++;
        else
            match[j++] = -1;
    }
#undef LCS
    /* An unmatched line of t stands in the gap of s between the matched lines around it: it may
     * replace s's lines before+1 .. after-1, so it is written at a position from before+1 to after.
     * It is inside a region that reaches any of those positions. */
    int before = -1;
    for (int j = 0; j < k; j++) {
        if (match[j] >= 0) {
            before = match[j];
            continue;
        }
        int after = n;
        for (int q = j + 1; q < k; q++)
            if (match[q] >= 0) {
                after = match[q];
                break;
            }
        int inside = 0;
        for (int r = 0; r < nregions && !inside; r++)
            inside = before + 1 <= regions[r].close && regions[r].open <= after;
        if (inside)
            m->inside++;
        else if (m->outside++ == 0)
            m->first_outside = t.no[j];
    }
    free(L);
    free(match);
    code_free(&s);
    code_free(&t);
    return 0;
}
