/* cmocka ends every failed test with "[   LINE   ] --- checker/judge/main.c:138: error:
 * Failure!": a line of the checker, which the student is told never to read, after the report
 * has already said what failed and why. stderr is replaced by a stream that passes everything
 * else on and drops those lines (cmocka writes through libc's stderr, so it writes here too). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "quiet_cmocka.h"

static char pending[4096];
static size_t npending;

static void emit(const char *line, size_t n)
{
    /* "[   LINE   ] --- file:line: error: Failure!", alone or after "[  ERROR   ] --- ", or after a
     * failure's sentence that cmocka cut at its buffer's size (about a thousand characters) before
     * its line break: that sentence is kept. */
    const char *at = memmem(line, n, "[   LINE   ] --- ", 17);
    if (at && memmem(line, n, "error: Failure!", 15)) {
        size_t before = (size_t)(at - line);
        if (before >= 17 && memmem(line, before, "[  ERROR   ] --- ", 17) == at - 17)
            before -= 17;
        if (before == 0)
            return;
        emit(line, before);
        line = "\n", n = 1;
    }
    while (n > 0) {
        ssize_t w = write(2, line, n);
        if (w <= 0)
            return;
        line += w, n -= (size_t)w;
    }
}

static ssize_t filter_write(void *cookie, const char *buf, size_t n)
{
    (void)cookie;
    for (size_t i = 0; i < n; i++) {
        if (npending == sizeof pending) { /* a line longer than the buffer: passed on in pieces */
            emit(pending, npending);
            npending = 0;
        }
        pending[npending++] = buf[i];
        if (buf[i] == '\n') {
            emit(pending, npending);
            npending = 0;
        }
    }
    return (ssize_t)n;
}

static int filter_close(void *cookie)
{
    (void)cookie;
    emit(pending, npending);
    npending = 0;
    return 0;
}

void quiet_cmocka_locations(void)
{
    cookie_io_functions_t io = {NULL, filter_write, NULL, filter_close};
    FILE *f = fopencookie(NULL, "w", io);
    if (!f)
        return;
    setvbuf(f, NULL, _IONBF, 0);
    stderr = f;
}
