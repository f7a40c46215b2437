/* Byte strings, argument vectors and lines: what the shell's variables, arrays and pipes were. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "intake.h"
#include "sealed.h"

/* Out of memory: the grader's problem (exit 4), with the usual cleanup. */
static void no_memory(void)
{
    static const char msg[] = "sealed-compile: out of memory\n";
    write_all(2, msg, sizeof msg - 1);
    sealed_exit(NULL, EXIT_GRADER);
}

static void *grow(void *p, size_t size)
{
    void *q = realloc(p, size);
    if (!q)
        no_memory();
    return q;
}

void buf_add(struct buf *b, const void *p, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1)
            cap *= 2;
        b->p = grow(b->p, cap);
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, p, n);
    b->n += n;
    b->p[b->n] = '\0';
}

void buf_str(struct buf *b, const char *str)
{
    buf_add(b, str, strlen(str));
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, again);
    va_end(again);
    if (n < 0)
        no_memory();
    buf_add(b, NULL, 0);
    if (b->n + (size_t)n + 1 > b->cap) {
        b->cap = b->n + (size_t)n + 1;
        b->p = grow(b->p, b->cap);
    }
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
    b->n += (size_t)n;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void buf_set(struct buf *b, const struct buf *from)
{
    b->n = 0;
    buf_add(b, from->p, from->n);
}

void buf_free(struct buf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

void argv_add(struct argv *a, const char *arg)
{
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? 2 * a->cap : 32;
        a->v = grow(a->v, (size_t)a->cap * sizeof *a->v);
    }
    a->v[a->n++] = xstrdup(arg);
    a->v[a->n] = NULL;
}

void argv_addf(struct argv *a, const char *fmt, ...)
{
    struct buf b = {0};
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    argv_add(a, b.p);
    buf_free(&b);
}

char *xstrdup(const char *str)
{
    char *p = strdup(str);
    if (!p)
        no_memory();
    return p;
}

char *xprintf(const char *fmt, ...)
{
    struct buf b = {0};
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    return b.p;
}

/* The next line of b from *pos (without its \n; the last one may have none): 0 at the end. */
int next_line(const struct buf *b, size_t *pos, const char **line, size_t *len)
{
    if (*pos >= b->n)
        return 0;
    const char *start = b->p + *pos, *nl = memchr(start, '\n', b->n - *pos);
    *line = start;
    *len = nl ? (size_t)(nl - start) : b->n - *pos;
    *pos += *len + (nl != NULL);
    return 1;
}

int starts_with(const char *p, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(p, prefix, k) == 0;
}

/* The first occurrence of what in the n bytes at p, or NULL. */
const char *find_in(const char *p, size_t n, const char *what)
{
    size_t k = strlen(what);
    if (k == 0)
        return p;
    for (size_t i = 0; i + k <= n; i++)
        if (p[i] == what[0] && memcmp(p + i, what, k) == 0)
            return p + i;
    return NULL;
}

/* A log as the shell's $(cat log) held it: no NUL bytes, no newline at its end. */
void trimmed(const struct buf *log, struct buf *out)
{
    out->n = 0;
    buf_add(out, NULL, 0);
    for (size_t i = 0; i < log->n; i++)
        if (log->p[i] != '\0')
            buf_add(out, log->p + i, 1);
    while (out->n > 0 && out->p[out->n - 1] == '\n')
        out->p[--out->n] = '\0';
}

/* Everything, or as much as the reader takes (a closed pipe is no reason to stop the grader). */
void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return;
        p += k;
        n -= (size_t)k;
    }
}

void sha256_buf(const struct buf *b, char hex[65])
{
    sha256_hex(b->n ? b->p : "", b->n, hex);
}
