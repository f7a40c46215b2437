#include "results.h"

#include <stdint.h>
#include <string.h>

#include "quote.h"

/* The text may hold anything a kernel, a compiler or a tool printed: a byte that is not UTF-8
 * is written as the visible text \xNN (a backslash and its hex digits), so that the file stays
 * UTF-8 that every reader accepts. */
void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (size_t n = strlen(s); *s;) {
        uint32_t c;
        int len = utf8_char((const unsigned char *)s, n, &c);
        if (len == 0)
            fprintf(f, "\\\\x%02x", (unsigned char)*s);
        else if (c == '"' || c == '\\')
            fprintf(f, "\\%c", (int)c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (is_control_char(c)) /* JSON needs only C0's escaped; the others are a terminal's danger */
            fprintf(f, "\\u%04x", (unsigned)c);
        else
            fwrite(s, 1, (size_t)len, f);
        len = len ? len : 1;
        s += len, n -= (size_t)len;
    }
    fputc('"', f);
}

/* What XML 1.0 forbids (C0 controls but tab, newline and carriage return; U+FFFE, U+FFFF), and
 * what it allows that would act on a terminal showing the file (a carriage return, DEL, C1, the
 * marks that reorder text): written as the visible text \xNN or \uNNNN. */
static int xml_escaped(uint32_t c)
{
    return (is_control_char(c) && c != '\t' && c != '\n') || c == 0xfffe || c == 0xffff;
}

/* Writes n bytes of XML as they are but for xml_escaped's characters and bytes that are not
 * UTF-8; with markup 0 the text's own & < > " are escaped too. */
static void xml_write(FILE *f, const char *s, size_t n, int markup)
{
    while (n > 0) {
        uint32_t c;
        int len = utf8_char((const unsigned char *)s, n, &c);
        if (len == 0)
            fprintf(f, "\\x%02x", (unsigned char)*s);
        else if (xml_escaped(c))
            fprintf(f, c < 0x80 ? "\\x%02x" : "\\u%04x", (unsigned)c);
        else if (!markup && c < 0x80 && strchr("&<>\"", (int)c))
            fputs(c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : "&quot;", f);
        else
            fwrite(s, 1, (size_t)len, f);
        len = len ? len : 1;
        s += len, n -= (size_t)len;
    }
}

void xml_text(FILE *f, const char *s)
{
    xml_write(f, s, strlen(s), 0);
}

int junit_copy_suites(FILE *out, const char *xml)
{
    const char *from = xml ? strstr(xml, "<testsuite ") : NULL;
    const char *to = from ? strstr(from, "</testsuites>") : NULL;
    if (!from || !to)
        return 0;
    xml_write(out, from, (size_t)(to - from), 1);
    int n = 0;
    for (const char *p = from; (p = strstr(p, "<testsuite ")) && p < to; p++)
        n++;
    return n;
}
