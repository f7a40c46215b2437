#define _GNU_SOURCE /* memmem */
#include "hints.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mutant.h"
#include "registry.h"
#include "textfile.h"

/* The start of the line after p, or the end of the text. */
static const char *next_line(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl ? nl + 1 : p + strlen(p);
}

static int starts(const char *line, const char *prefix)
{
    return strncmp(line, prefix, strlen(prefix)) == 0;
}

int hints_find(const char *text, struct hints *h)
{
    memset(h, 0, sizeof *h);
    const char *p = text;
    while (*p && !starts(p, "## Hints"))
        p = next_line(p);
    if (!*p)
        return 0;
    for (p = next_line(p); *p && !(starts(p, "## ") || starts(p, "# ")); p = next_line(p)) {
        if (starts(p, "### Hint")) {
            if (h->count == MAX_HINTS)
                break; /* the rest are not shown, and not folded into the last one */
            h->start[h->count++] = p;
        }
        if (h->count > 0)
            h->len[h->count - 1] = (size_t)(next_line(p) - h->start[h->count - 1]);
    }
    /* Drop trailing blank lines. */
    for (int i = 0; i < h->count; i++)
        while (h->len[i] > 0 && (h->start[i][h->len[i] - 1] == '\n' || h->start[i][h->len[i] - 1] == ' '))
            h->len[i]--;
    return h->count;
}

const char *lesson_title(const char *text, char *buf, size_t len)
{
    buf[0] = '\0';
    for (const char *p = text; *p; p = next_line(p))
        if (starts(p, "# ")) {
            size_t n = strcspn(p + 2, "\n");
            snprintf(buf, len, "%.*s", (int)n, p + 2);
            break;
        }
    return buf;
}

const char *hints_misplaced(const char *readme, const char *hints_md)
{
    if (readme) /* a "## Hints" heading anywhere in the README, even one without hints yet */
        for (const char *p = readme; *p; p = next_line(p))
            if (starts(p, "## Hints") && strchr(" \t\r\n", p[8] ? p[8] : '\n'))
                return "still has a '## Hints' section: hints go in hints.md beside it, so that reading the lesson "
                       "does not read them all (make hint shows them one at a time)";
    if (!hints_md)
        return "has no hints.md beside it: the lesson's hints, under '## Hints', one '### Hint k: title' each";
    struct hints h;
    if (hints_find(hints_md, &h) == 0)
        return "has a hints.md without a '### Hint' under '## Hints'";
    return NULL;
}

void hint_markdown(const struct hints *h, int k, FILE *out)
{
    const char *p = h->start[k], *end = p + h->len[k];
    const char *title_end = memchr(p, '\n', h->len[k]);
    if (!title_end)
        title_end = end;
    /* "### Hint 2: What goes in an empty slot": the title is after the colon; the summary says
     * only "Hint 2", since a title can give away a hint by itself. */
    const char *colon = memchr(p, ':', (size_t)(title_end - p));
    const char *title = colon ? colon + 1 : p + 4;
    while (title < title_end && *title == ' ')
        title++;
    fprintf(out, "<details>\n<summary>Hint %d</summary>\n\n", k + 1);
    if (title < title_end)
        fprintf(out, "**%.*s**\n\n", (int)(title_end - title), title);
    const char *body = title_end;
    while (body < end && (*body == '\n' || *body == ' '))
        body++;
    if (body < end)
        fprintf(out, "%.*s\n", (int)(end - body), body);
    fprintf(out, "\n</details>\n\n");
}

/* ---- the answers to predictions ---- */

static int blank(const char *line)
{
    size_t len = strcspn(line, "\n");
    return strspn(line, " \t\r") == len;
}

static int is_line(const char *line, const char *want)
{
    size_t len = strcspn(line, "\n");
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\r'))
        len--;
    return len == strlen(want) && strncmp(line, want, len) == 0;
}

int predictions_folded_check(const char *text, const char *name, FILE *out)
{
    int bad = 0, at = 1, section = 0;
    for (const char *p = text; *p; p = next_line(p), at++) {
        if (starts(p, "## ") || starts(p, "# "))
            section = starts(p, "## What to measure");
        if (!section || !starts(p, "**Prediction"))
            continue;
        /* Past the question's paragraph and the blank lines after it. */
        const char *q = p;
        while (*q && !blank(q))
            q = next_line(q);
        while (*q && blank(q))
            q = next_line(q);
        if (!is_line(q, "<details>") || !is_line(next_line(q), "<summary>What we measured</summary>") ||
            !*next_line(next_line(q)) || !blank(next_line(next_line(q)))) {
            fprintf(out, "  %s:%d: the answer to this prediction must follow it folded: a line <details>, a line "
                    "<summary>What we measured</summary>, a blank line, the answer, a blank line, </details>\n",
                    name, at);
            bad++;
            continue;
        }
        /* Its end: the first </details> outside a code block, after a blank line, before the next
         * prediction or section. */
        int fenced = 0, closed = 0, was_blank = 0;
        for (q = next_line(next_line(q)); *q; q = next_line(q)) {
            if (starts(q + strspn(q, " "), "```"))
                fenced = !fenced;
            if (!fenced && is_line(q, "</details>")) {
                closed = was_blank ? 1 : -1;
                break;
            }
            if (!fenced && (starts(q, "## ") || starts(q, "# ") || starts(q, "**Prediction")))
                break;
            was_blank = blank(q);
        }
        if (closed <= 0) {
            fprintf(out, "  %s:%d: the answer to this prediction %s\n", name, at,
                    closed < 0 ? "needs a blank line before its </details> (else the Markdown inside is not parsed)"
                               : "has no </details> before the next prediction or section");
            bad++;
        }
    }
    return bad;
}

/* ---- quoted line numbers ---- */

static int is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* A quote of a line number at p ("x.cu:64", "line 64", "Line 64", "lines 64"): its number, and
 * in *len how far it reaches; 0 if p starts none. */
static long quote_at(const char *text, const char *p, size_t *len)
{
    const char *q = NULL;
    if (strncmp(p, ".cu:", 4) == 0 && p > text && is_word_char(p[-1]))
        q = p + 4;
    else if ((p == text || !is_word_char(p[-1])) && (*p == 'l' || *p == 'L') && strncmp(p + 1, "ine", 3) == 0) {
        q = p + 4;
        if (*q == 's')
            q++;
        q = *q == ' ' ? q + 1 : NULL;
    }
    if (!q || *q < '0' || *q > '9')
        return 0;
    char *e;
    long n = strtol(q, &e, 10);
    *len = (size_t)(e - p);
    return n;
}

/* Line n (1-based) of text, as a pointer and a length; NULL past the end. */
static const char *nth_line(const char *text, long n, size_t *len)
{
    const char *p = text;
    for (long i = 1; i < n && *p; i++)
        p = next_line(p);
    if (!*p)
        return NULL;
    *len = strcspn(p, "\n");
    return p;
}

/* The first line of text holding frag, or 0. */
static long line_holding(const char *text, const char *frag)
{
    long n = 1;
    for (const char *p = text; *p; p = next_line(p), n++) {
        size_t len = strcspn(p, "\n");
        if (memmem(p, len, frag, strlen(frag)))
            return n;
    }
    return 0;
}

/* Checks one marker, "<!-- line: PATH N FRAGMENT -->" without its delimiters in body, against the
 * quote before it (quoted: its number, or 0 if none). Returns the number of problems. */
static int check_marker(const char *body, long quoted, const char *name, int at, const struct line_source *src,
                        FILE *out)
{
    char path[512], frag[512];
    long n;
    int used = 0;
    if (sscanf(body, " line: %511s %ld %n", path, &n, &used) != 2 || used == 0) {
        fprintf(out, "  %s:%d: a line marker reads <!-- line: PATH N CODE -->, not <!--%s-->\n", name, at, body);
        return 1;
    }
    snprintf(frag, sizeof frag, "%s", body + used);
    for (size_t k = strlen(frag); k > 0 && frag[k - 1] == ' '; k--)
        frag[k - 1] = '\0';
    if (!frag[0]) {
        fprintf(out, "  %s:%d: the marker for %s line %ld names no code that the line must hold\n", name, at, path, n);
        return 1;
    }
    if (quoted == 0) {
        fprintf(out, "  %s:%d: a marker for %s line %ld, but no line number is quoted before it\n", name, at, path, n);
        return 1;
    }
    if (quoted != n) {
        fprintf(out, "  %s:%d: the text quotes line %ld, but its marker says %s line %ld\n", name, at, quoted, path, n);
        return 1;
    }
    int absent_ok = 0;
    char *code = src->read(path, &absent_ok, src->ctx);
    if (!code) {
        if (absent_ok)
            return 0;
        fprintf(out, "  %s:%d: the marker names %s, which is missing (or, a wrong kernel, no longer applies)\n", name,
                at, path);
        return 1;
    }
    size_t len = 0;
    const char *line = nth_line(code, n, &len);
    int bad = 0;
    if (!line || !memmem(line, len, frag, strlen(frag))) {
        long now = line_holding(code, frag);
        fprintf(out, "  %s:%d: quotes %s line %ld as the one with `%s`, but ", name, at, path, n, frag);
        if (now)
            fprintf(out, "that is line %ld now: change the number in the text and in its marker\n", now);
        else
            fprintf(out, "the file has no such line any more: say what the text should quote instead\n");
        bad = 1;
    }
    free(code);
    return bad;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

char *lesson_file_text(const char *path, int *absent_ok, void *ctx)
{
    const struct registry *reg = ctx;
    size_t n = strlen(path);
    if (n < 7 || strcmp(path + n - 7, ".mutant") != 0) {
        char *text = read_text_file(path);
        *absent_ok = !text && strncmp(path, "solutions/", 10) == 0 && !exists("solutions");
        return text;
    }
    *absent_ok = !exists(path) && !exists("checker/mutants");
    char err[512];
    struct mutant m;
    char *made = mutant_make(path, reg, &m, err, sizeof err);
    mutant_free(&m);
    return made;
}

/* A quote whose marker never came: said, and forgotten. */
static int unmarked(long *pending, int pending_at, const char *name, FILE *out)
{
    if (!*pending)
        return 0;
    fprintf(out, "  %s:%d: quotes line %ld with no marker after it (<!-- line: FILE %ld CODE -->, so that the author "
            "check can hold it to the code)\n", name, pending_at, *pending, *pending);
    *pending = 0;
    return 1;
}

int line_quotes_check(const char *text, const char *name, const struct line_source *src, FILE *out)
{
    int bad = 0, at = 1, fenced = 0, pending_at = 0;
    long pending = 0; /* the line number quoted and not yet followed by its marker */
    for (const char *l = text; *l; l = next_line(l), at++) {
        size_t len = strcspn(l, "\n");
        if (starts(l + strspn(l, " "), "```"))
            fenced = !fenced;
        if (strspn(l, " \t\r") == len) {
            /* A paragraph ends, and its quotes must have had their markers; a blank line inside a
             * code block does not end the block, whose marker can only follow it. */
            if (!fenced)
                bad += unmarked(&pending, pending_at, name, out);
            continue;
        }
        for (const char *p = l; p < l + len;) {
            if (strncmp(p, "<!--", 4) == 0) {
                const char *end = strstr(p + 4, "-->");
                int is_marker = strncmp(p + 4 + strspn(p + 4, " "), "line:", 5) == 0;
                if (!end || end > l + len) {
                    if (is_marker) {
                        fprintf(out, "  %s:%d: a line marker must end with --> on the same line\n", name, at);
                        bad++;
                    }
                    break;
                }
                if (is_marker) {
                    char body[1024];
                    snprintf(body, sizeof body, "%.*s", (int)(end - p - 4), p + 4);
                    bad += check_marker(body, pending, name, at, src, out);
                    pending = 0;
                }
                p = end + 3;
                continue;
            }
            size_t qlen;
            long n = quote_at(text, p, &qlen);
            if (n) {
                if (pending != n) /* the same line quoted again (a report's lines) shares the marker */
                    bad += unmarked(&pending, pending_at, name, out);
                pending = n;
                pending_at = at;
                p += qlen;
                continue;
            }
            p++;
        }
    }
    return bad + unmarked(&pending, pending_at, name, out);
}

/* The leading comment's length, through its first close, or 0 when the text does not open with a
 * comment that holds the word CONTRACT. */
static size_t contract_length(const char *text)
{
    const char *end = strncmp(text, "/*", 2) == 0 ? strstr(text + 2, "*/") : NULL;
    if (!end || !memmem(text, (size_t)(end - text), "CONTRACT", 8))
        return 0;
    return (size_t)(end - text) + 2;
}

int contract_mismatch(const char *stub, const char *solution)
{
    size_t a = contract_length(stub), b = contract_length(solution);
    if (!a || !b)
        return -1;
    int line = 1;
    for (size_t i = 0; i < a && i < b; i++) {
        if (stub[i] != solution[i])
            return line;
        line += stub[i] == '\n';
    }
    return a == b ? 0 : line;
}

/* A declaration in a comment made one line: the comment's " * " line starts dropped and runs of
 * spaces made one; with tight, a space is kept only between two words ("const float*in,int n"),
 * so that spellings C reads alike compare alike. Into out (len > 0). */
static void one_line(const char *from, size_t n, int tight, char *out, size_t len)
{
    size_t k = 0;
    int space = 0;
    for (size_t i = 0; i < n && k + 2 < len; i++) {
        char c = from[i];
        if (c == '\n') { /* a comment's next line: its " * " start (one star) is no part of the text */
            while (i + 1 < n && (from[i + 1] == ' ' || from[i + 1] == '\t'))
                i++;
            if (i + 1 < n && from[i + 1] == '*')
                i++;
        }
        if (isspace((unsigned char)c)) {
            space = k > 0;
            continue;
        }
        int words = k > 0 && (isalnum((unsigned char)out[k - 1]) || out[k - 1] == '_') &&
                    (isalnum((unsigned char)c) || c == '_');
        if (space && (!tight || words))
            out[k++] = ' ';
        space = 0;
        out[k++] = c;
    }
    out[k] = '\0';
}

int contract_signature_mismatch(const char *text, const char *kernel, const char *params, char *said, size_t len)
{
    size_t n = contract_length(text);
    const char *at = n ? memmem(text, n, "Signature", 9) : NULL;
    const char *end = at ? memchr(at, ';', n - (size_t)(at - text)) : NULL;
    if (!end)
        return -1;
    char wanted[512], want[512], got[512];
    at += 9;
    one_line(at, (size_t)(end - at), 0, said, len);
    one_line(at, (size_t)(end - at), 1, got, sizeof got);
    snprintf(wanted, sizeof wanted, "__global__ void %s(%s)", kernel, params);
    one_line(wanted, strlen(wanted), 1, want, sizeof want);
    /* `__grid_constant__` (lesson 11's tensor maps) says where a parameter lives, not its type: the
     * judges' symbol is the same with it or without. */
    for (char *q; (q = strstr(got, "__grid_constant__"));) {
        size_t drop = strlen("__grid_constant__") + (q[17] == ' ');
        memmove(q, q + drop, strlen(q + drop) + 1);
    }
    return strcmp(got, want) != 0;
}

/* Whether a figure (a plain decimal, not the tail of a longer number or of a negative one) starts at
 * p, in a text that starts at from. */
static int figure_at(const char *p, const char *from)
{
    return isdigit((unsigned char)*p) &&
           (p == from || !(isdigit((unsigned char)p[-1]) || p[-1] == '.' || p[-1] == '-'));
}

/* Whether a figure a text quotes is the value it stands for (both as decimals are read). */
static int same_figure(double v, double want)
{
    return (v > want ? v - want : want - v) <= 1e-9 * (1 + want);
}

/* Whether a bold span of the line shows value x scale followed by suffix ("**1.60x**"). */
static int bold_shows(const char *line, size_t len, const struct threshold_quote *q)
{
    const char *end = line + len, *open = line;
    while ((open = memmem(open, (size_t)(end - open), "**", 2))) {
        const char *close = memmem(open + 2, (size_t)(end - open - 2), "**", 2);
        if (!close)
            return 0;
        for (const char *p = open + 2; p < close; p++) {
            if (!figure_at(p, open + 2))
                continue;
            const char *after;
            double v = plain_decimal(p, &after);
            int suffixed = after <= close && strncmp(after, q->suffix, strlen(q->suffix)) == 0;
            if (suffixed && same_figure(v, q->value * q->scale))
                return 1;
        }
        open = close + 2;
    }
    return 0;
}

int threshold_quotes_check(const char *text, const char *name, const struct thresholds *t, const char *from,
                           FILE *out)
{
    struct threshold_quote q[16];
    int nq = thresholds_quoted(t, q, 16), bad = 0, at = 1, named[16] = {0};
    for (const char *l = text; *l; l = next_line(l), at++) {
        size_t len = strcspn(l, "\n");
        for (const char *p = l; (p = memchr(p, '`', (size_t)(l + len - p))); p++) {
            const char *close = memchr(p + 1, '`', (size_t)(l + len - p - 1));
            if (!close)
                break;
            char word[64];
            snprintf(word, sizeof word, "%.*s", (int)(close - p - 1), p + 1);
            p = close;
            int set;
            if (!threshold_named(word, t, &set))
                continue;
            if (!set) {
                fprintf(out, "  %s:%d: names `%s`, which %s does not set\n", name, at, word, from);
                bad++;
                continue;
            }
            for (int i = 0; i < nq; i++) {
                if (strcmp(q[i].name, word) != 0)
                    continue;
                named[i] = 1;
                if (!bold_shows(l, len, &q[i])) {
                    fprintf(out, "  %s:%d: names `%s` without its value in bold on the same line, as %s has it: "
                            "**%g%s**\n", name, at, word, from, q[i].value * q[i].scale, q[i].suffix);
                    bad++;
                }
            }
        }
    }
    for (int i = 0; i < nq; i++)
        if (!named[i]) {
            fprintf(out, "  %s never names `%s`: the text says what the check demands, each threshold %s sets "
                    "named in backticks with its value in bold (**%g%s**)\n", name, q[i].name, from,
                    q[i].value * q[i].scale, q[i].suffix);
            bad++;
        }
    return bad;
}

int threshold_row_check(const char *text, const char *name, int number, const char *folder,
                        const struct thresholds *t, const char *from, int row_required, FILE *out)
{
    char head[128];
    snprintf(head, sizeof head, "| %d `%s` |", number, folder);
    int at = 1;
    const char *l = text;
    while (*l && strncmp(l, head, strlen(head)) != 0)
        l = next_line(l), at++;
    if (!*l) {
        if (row_required)
            fprintf(out, "  %s has no row for lesson %d in its table of lessons (\"%s ...\")\n", name, number, head);
        return row_required;
    }
    size_t len = strcspn(l, "\n");
    while (len && (l[len - 1] == ' ' || l[len - 1] == '|' || l[len - 1] == '\r'))
        len--;
    const char *cell = l + len;
    while (cell > l && cell[-1] != '|')
        cell--;
    int bad = 0;
    for (const char *p = cell; p < l + len; p++) {
        if (!figure_at(p, cell))
            continue;
        const char *after;
        double v = plain_decimal(p, &after), want = *after == 'x' ? t->min_speedup : 100 * t->min_limit_share;
        int dimension = *after == 'x' && isdigit((unsigned char)after[1]); /* "32x8 threads" */
        if ((*after == 'x' || *after == '%') && !dimension && !same_figure(v, want)) {
            fprintf(out, "  %s:%d: lesson %d's row says %.*s where %s has %s %g\n", name, at, number,
                    (int)(after + 1 - p), p, from, *after == 'x' ? "min_speedup" : "min_limit_share (x 100)", want);
            bad++;
        }
    }
    return bad;
}

/* What is wrong with hint k (of h, from hints_find), as a sentence, or NULL. */
static const char *hint_problem(const struct hints *h, int k)
{
    char head[32], next[32];
    snprintf(head, sizeof head, "### Hint %d", k + 1);
    snprintf(next, sizeof next, "\n### Hint %d", k + 2);
    const char *start = h->start[k], *nl = memchr(start, '\n', h->len[k]);
    if (strncmp(start, head, strlen(head)) != 0)
        return "is out of order: hints are numbered 1, 2, 3, ... as they come";
    if (!nl || (size_t)(nl - start) + 1 >= h->len[k])
        return "has no body after its heading";
    if (start[h->len[k] - 1] == '\n')
        return "ends with a blank line";
    if (memmem(start, h->len[k], next, strlen(next)) || memmem(start, h->len[k], "\n## ", 4))
        return "runs into the next heading";
    return NULL;
}

int lesson_text_check(const char *readme, const char *readme_name, const char *hints_md, const char *hints_name,
                      FILE *out)
{
    int bad = 0, predictions = 0;
    char title[256];
    if (readme) {
        lesson_title(readme, title, sizeof title);
        if (strncmp(title, "Lesson", 6) != 0)
            fprintf(out, "  %s: its title \"%s\" does not start with \"Lesson\"\n", readme_name, title), bad++;
        for (const char *p = strstr(readme, "\n**Prediction"); p; p = strstr(p + 1, "\n**Prediction"))
            predictions++;
        if (predictions < MIN_PREDICTIONS)
            fprintf(out, "  %s: %d prediction%s, where a lesson asks at least %d (\"**Prediction k**\" paragraphs "
                    "under \"## What to measure\")\n", readme_name, predictions, predictions == 1 ? "" : "s",
                    MIN_PREDICTIONS), bad++;
    }
    if (hints_md) {
        struct hints h;
        int n = hints_find(hints_md, &h);
        if (n < MIN_HINTS)
            fprintf(out, "  %s: %d hint%s, where a lesson gives at least %d, from a question to the answer\n",
                    hints_name, n, n == 1 ? "" : "s", MIN_HINTS), bad++;
        for (int k = 0; k < n; k++) {
            const char *why = hint_problem(&h, k);
            if (why)
                fprintf(out, "  %s: hint %d %s\n", hints_name, k + 1, why), bad++;
        }
    }
    return bad;
}
