/* Quoting text that is not the checker's own (quote.h). */
#define _GNU_SOURCE
#include "quote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int utf8_char(const unsigned char *s, size_t n, uint32_t *cp)
{
    /* The least code point each length may encode: a smaller one is overlong (C0 AF for '/'). */
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (n == 0)
        return 0;
    unsigned char b = s[0];
    int len = b < 0x80 ? 1 : (b & 0xe0) == 0xc0 ? 2 : (b & 0xf0) == 0xe0 ? 3 : (b & 0xf8) == 0xf0 ? 4 : 0;
    if (len == 0 || (size_t)len > n)
        return 0;
    uint32_t c = len == 1 ? b : b & (0x7fu >> len);
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3fu);
    }
    if (c < least[len] || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
        return 0;
    *cp = c;
    return len;
}

int is_control_char(uint32_t c)
{
    return c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
           (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029;
}

/* One character of s (n bytes there) as it is shown, into buf (at least 8 bytes). Returns the
 * bytes of s it stands for. */
static size_t shown_char(const char *s, size_t n, char *buf)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t c;
    int len = utf8_char(u, n, &c);
    if (len == 0) /* not UTF-8: the byte alone */
        snprintf(buf, 8, "\\x%02x", u[0]);
    else if (c == '\\')
        strcpy(buf, "\\\\"); /* so that an escape shown is never the kernel's own text */
    else if (c == '\t' || c == '\r')
        strcpy(buf, c == '\t' ? "\\t" : "\\r");
    else if (is_control_char(c))
        snprintf(buf, 8, c < 0x80 ? "\\x%02x" : "\\u%04x", (unsigned)c);
    else {
        memcpy(buf, s, (size_t)len);
        buf[len] = '\0';
    }
    return len ? (size_t)len : 1;
}

/* A line of s (n bytes, no newline) to f as shown, while what is shown in all (*shown) stays
 * within QUOTE_MAX_BYTES. Returns the bytes of s written. */
static size_t write_line(FILE *f, const char *s, size_t n, size_t *shown)
{
    size_t at = 0;
    while (at < n) {
        char buf[8];
        size_t used = shown_char(s + at, n - at, buf), w = strlen(buf);
        if (*shown + w > QUOTE_MAX_BYTES)
            break;
        fputs(buf, f);
        *shown += w;
        at += used;
    }
    return at;
}

static size_t count_lines(const char *text, size_t len)
{
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    return lines + (len > 0 && text[len - 1] != '\n');
}

char *quote_fenced(const char *who, const char *text, size_t len, size_t printed_bytes, size_t printed_lines)
{
    if (len == 0)
        return NULL;
    size_t own = count_lines(text, len), bytes = printed_bytes > len ? printed_bytes : len;
    size_t lines = printed_lines > own ? printed_lines : own;
    char *out = NULL;
    size_t outlen = 0;
    FILE *f = open_memstream(&out, &outlen);
    if (!f)
        return NULL;
    fprintf(f, "  %s printed (%zu line%s, shown as printed, unprintable bytes escaped; not the checker's words):\n",
            who, lines, lines == 1 ? "" : "s");
    size_t at = 0, shown = 0, started = 0;
    while (at < len && started < QUOTE_MAX_LINES && shown < QUOTE_MAX_BYTES) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        fputs(QUOTE_FENCE, f);
        size_t written = write_line(f, text + at, n, &shown);
        fputc('\n', f);
        started++;
        at += written;
        if (written < n) /* the bytes' cap, within this line */
            break;
        at += nl != NULL;
    }
    if (at < bytes) {
        size_t more_lines = lines - started;
        fprintf(f, "  (cut: %zu more byte%s", bytes - at, bytes - at == 1 ? "" : "s");
        if (more_lines)
            fprintf(f, " in %zu more line%s", more_lines, more_lines == 1 ? "" : "s");
        fprintf(f, " not shown; a report quotes at most %d lines and %d bytes)\n", QUOTE_MAX_LINES, QUOTE_MAX_BYTES);
    }
    fclose(f);
    return out;
}
