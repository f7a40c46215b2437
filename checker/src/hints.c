#include "hints.h"

#include <stdio.h>
#include <string.h>

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
