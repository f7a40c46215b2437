/* The PTX reader's tokenizer and its names of types (ptx_read.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_read.h"

/* ---- types ---- */
static const struct {
    const char *name;
    enum ptx_type t;
    int bytes, is_signed, is_float;
} types[] = {
    {"pred", T_PRED, 1, 0, 0}, {"b8", T_B8, 1, 0, 0},   {"b16", T_B16, 2, 0, 0},  {"b32", T_B32, 4, 0, 0},
    {"b64", T_B64, 8, 0, 0},   {"u8", T_U8, 1, 0, 0},   {"u16", T_U16, 2, 0, 0},  {"u32", T_U32, 4, 0, 0},
    {"u64", T_U64, 8, 0, 0},   {"s8", T_S8, 1, 1, 0},   {"s16", T_S16, 2, 1, 0},  {"s32", T_S32, 4, 1, 0},
    {"s64", T_S64, 8, 1, 0},   {"f16", T_F16, 2, 0, 1}, {"f16x2", T_F16X2, 4, 0, 1}, {"bf16", T_BF16, 2, 0, 1},
    {"f32", T_F32, 4, 0, 1},   {"f64", T_F64, 8, 0, 1},
};
#define NTYPES (sizeof types / sizeof types[0])

int ptx_type_named(const char *s)
{
    for (size_t i = 0; i < NTYPES; i++)
        if (strcmp(types[i].name, s) == 0)
            return types[i].t;
    return T_NONE;
}
/* ---- the tokenizer ---- */

int lex_fail(struct lexer *lx, const char *fmt, ...)
{
    if (lx->failed++)
        return -1;
    int n = snprintf(lx->m->error, sizeof lx->m->error, "line %d of the PTX: ", lx->line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lx->m->error + n, sizeof lx->m->error - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int ident_char(int c)
{
    return isalnum(c) || c == '_' || c == '$' || c == '.' || c == '%' || c == ':';
}

void lex_next(struct lexer *lx)
{
    for (;;) {
        while (*lx->p && isspace((unsigned char)*lx->p))
            lx->line += *lx->p++ == '\n';
        if (lx->p[0] == '/' && lx->p[1] == '/') {
            while (*lx->p && *lx->p != '\n')
                lx->p++;
        } else if (lx->p[0] == '/' && lx->p[1] == '*') {
            const char *e = strstr(lx->p + 2, "*/");
            for (const char *q = lx->p; q < (e ? e : lx->p + strlen(lx->p)); q++)
                lx->line += *q == '\n';
            lx->p = e ? e + 2 : lx->p + strlen(lx->p);
        } else
            break;
    }
    const char *s = lx->p;
    size_t n = 0;
    if (!*s) {
        lx->kind = TK_END;
        lx->text[0] = '\0';
        return;
    }
    if (*s == '"') {
        s++;
        while (*s && *s != '"' && *s != '\n' && n < sizeof lx->text - 1)
            lx->text[n++] = *s++;
        lx->kind = TK_STR;
        lx->p = *s == '"' ? s + 1 : s;
    } else if (isdigit((unsigned char)*s) || (*s == '-' && isdigit((unsigned char)s[1]))) {
        if (*s == '-')
            lx->text[n++] = *s++;
        while ((isalnum((unsigned char)*s) || *s == '.') && n < sizeof lx->text - 1)
            lx->text[n++] = *s++;
        lx->kind = TK_NUM;
        lx->p = s;
    } else if (ident_char((unsigned char)*s) && *s != ':') {
        /* `::` belongs to modifiers (shared::cta); a label's `:` ends it. */
        while (*s && n < sizeof lx->text - 1 && (ident_char((unsigned char)*s) && (*s != ':' || s[1] == ':' ||
                                                                                       (s > lx->p && s[-1] == ':'))))
            lx->text[n++] = *s++;
        lx->kind = TK_IDENT;
        lx->p = s;
    } else {
        lx->text[n++] = *s;
        lx->kind = TK_PUNCT;
        lx->p = s + 1;
    }
    lx->text[n] = '\0';
    if (n >= PTX_NAME_MAX)
        lex_fail(lx, "a name or number of more than %d characters", PTX_NAME_MAX - 1);
}

int lex_is(struct lexer *lx, const char *t)
{
    return lx->kind != TK_END && lx->kind != TK_STR && strcmp(lx->text, t) == 0;
}
int lex_accept(struct lexer *lx, const char *t)
{
    if (!lex_is(lx, t))
        return 0;
    lex_next(lx);
    return 1;
}
int lex_expect(struct lexer *lx, const char *t)
{
    if (lex_accept(lx, t))
        return 0;
    return lex_fail(lx, "expected '%s' but found '%s'", t, lx->text);
}

/* A number: decimal, 0x hex, 0f/0d float bits, a decimal float; into bits (floats as doubles
 * unless the 0f form, which keeps a float's bits and sets *is_f32). */
int lex_number(struct lexer *lx, int64_t *v, int *is_float, int *is_f32)
{
    const char *t = lx->text;
    int neg = *t == '-';
    const char *d = t + neg;
    *is_float = *is_f32 = 0;
    char *end;
    if ((d[0] == '0') && (d[1] == 'f' || d[1] == 'F') && strlen(d) == 10) {
        *v = (int64_t)strtoull(d + 2, &end, 16);
        *is_float = *is_f32 = 1;
    } else if ((d[0] == '0') && (d[1] == 'd' || d[1] == 'D') && strlen(d) == 18) {
        *v = (int64_t)strtoull(d + 2, &end, 16);
        *is_float = 1;
    } else if (strpbrk(d, ".eE") && !(d[0] == '0' && (d[1] == 'x' || d[1] == 'X'))) {
        double x = strtod(d, &end);
        if (neg)
            x = -x;
        memcpy(v, &x, sizeof x);
        *is_float = 1;
        neg = 0;
    } else if (d[0] == '0' && (d[1] == 'b' || d[1] == 'B') && d[2]) { /* PTX's binary integers: 0b101 */
        *v = (int64_t)strtoull(d + 2, &end, 2);
        if (*end == 'U' || *end == 'u')
            end++;
    } else {
        *v = (int64_t)strtoull(d, &end, 0);
        if (*end == 'U' || *end == 'u')
            end++;
    }
    if (*end)
        return lex_fail(lx, "cannot read the number '%s'", t);
    if (neg && *is_float) {
        *v ^= *is_f32 ? (int64_t)0x80000000 : INT64_MIN;
    } else if (neg)
        *v = -*v;
    lex_next(lx);
    return 0;
}

/* An .align's value: a power of two up to 4096 (a larger or odd one would lay variables out
 * where no GPU puts them, and its arithmetic past what the windows hold). */
int lex_alignment(struct lexer *lx, int *align)
{
    int64_t a;
    int f, f32;
    if (lx->kind != TK_NUM || lex_number(lx, &a, &f, &f32) || f || a < 1 || a > 4096 || (a & (a - 1)))
        return lex_fail(lx, ".align needs a power of two from 1 to 4096");
    *align = (int)a;
    return 0;
}
