/* The families (family.h): every checker/families/NAME.c registers its descriptor in the
 * wb_families section, and this finds them by name. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "family.h"

extern const struct family *const __start_wb_families[] __attribute__((weak));
extern const struct family *const __stop_wb_families[] __attribute__((weak));

const struct family *family_named(const char *name)
{
    for (const struct family *const *f = __start_wb_families; f < __stop_wb_families; f++)
        if (strcmp((*f)->name, name) == 0)
            return *f;
    return NULL;
}

const char *family_names(void)
{
    static char names[256];
    size_t n = 0;
    names[0] = '\0';
    for (const struct family *const *f = __start_wb_families; f < __stop_wb_families; f++)
        n += (size_t)snprintf(names + n, n < sizeof names ? sizeof names - n : 0, "%s%s", n ? ", " : "", (*f)->name);
    return names;
}

/* ---- the kernel's symbol, from its parameters ---------------------------------------------- */

/* The Itanium ABI's code of the arithmetic type these words spell (in any order, as C allows
 * "unsigned short int"; base "" where only the modifiers are written), or NULL. */
static const char *builtin_code(const char *base, int is_unsigned, int is_signed, int shorts, int longs)
{
    static const struct {
        const char *base;
        int is_unsigned, shorts, longs;
        const char *code;
    } types[] = {
        {"float", 0, 0, 0, "f"}, {"double", 0, 0, 0, "d"}, {"bool", 0, 0, 0, "b"}, {"char", 0, 0, 0, "c"},
        {"char", 1, 0, 0, "h"},  {"int", 0, 0, 0, "i"},    {"int", 1, 0, 0, "j"},   {"int", 0, 1, 0, "s"},
        {"int", 1, 1, 0, "t"},   {"int", 0, 0, 1, "l"},    {"int", 1, 0, 1, "m"},   {"int", 0, 0, 2, "x"},
        {"int", 1, 0, 2, "y"},
    };
    if (!*base)
        base = "int"; /* "unsigned", "short", "long long": int is implied */
    if (is_unsigned && is_signed)
        return NULL;
    if (is_signed && strcmp(base, "char") == 0)
        return shorts || longs ? NULL : "a";
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(types[i].base, base) == 0 && types[i].is_unsigned == is_unsigned && types[i].shorts == shorts &&
            types[i].longs == longs)
            return types[i].code;
    return NULL;
}

/* One parameter ("const float *A") as its type's parts: the arithmetic type's code, whether it is
 * a pointer, and whether what it points to is const (a const of the parameter itself is no part
 * of a function's type). Returns 0, or -1 for anything else. */
static int read_param(const char *p, size_t n, const char **code, int *pointer, int *pointee_const)
{
    static const char *const bases[] = {"float", "double", "int", "char", "bool"};
    int is_unsigned = 0, is_signed = 0, shorts = 0, longs = 0, is_const = 0, named = 0, words = 0, map = 0;
    const char *base = "";
    *pointer = *pointee_const = 0;
    for (size_t i = 0; i < n;) {
        size_t w = 0;
        while (i + w < n && (isalnum((unsigned char)p[i + w]) || p[i + w] == '_'))
            w++;
        if (!w) {
            if (p[i] == '*' && !*pointer && !named && words) /* one level of pointer, before the name */
                *pointer = 1, *pointee_const = is_const, is_const = 0;
            else if (p[i] != ' ' && p[i] != '\t')
                return -1;
            i++;
            continue;
        }
        if (named)
            return -1;
        char word[32];
        snprintf(word, sizeof word, "%.*s", (int)w, p + i);
        i += w;
        int k = 0;
        while (k < 5 && strcmp(word, bases[k]) != 0)
            k++;
        if (strcmp(word, "const") == 0)
            is_const = 1;
        else if (strcmp(word, "__restrict__") == 0 || strcmp(word, "restrict") == 0)
            ; /* (a qualifier of the parameter itself) */
        else if (strcmp(word, "unsigned") == 0 || strcmp(word, "signed") == 0 || strcmp(word, "short") == 0 ||
                 strcmp(word, "long") == 0) {
            is_unsigned |= word[0] == 'u', is_signed |= word[1] == 'i', shorts += word[1] == 'h', longs += word[0] == 'l';
            words++;
        } else if (k < 5 && !*base)
            base = bases[k], words++;
        else if (strcmp(word, "CUtensorMap") == 0 && !words)
            map = 1, words++; /* the driver's typedef of struct CUtensorMap_st, by value (lesson 11's maps) */
        else if (words)
            named = 1; /* the parameter's name */
        else
            return -1; /* a type this does not know (a struct, a typedef, __half) */
    }
    if (map)
        *code = *pointer || words > 1 ? NULL : "14CUtensorMap_st";
    else
        *code = words ? builtin_code(base, is_unsigned, is_signed, shorts, longs) : NULL;
    return *code ? 0 : -1;
}

/* The substitution S_, S0_, S1_, ... of the ABI's k-th candidate (k from 0). */
static void back_reference(char *out, size_t len, int k)
{
    const char *digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    if (k == 0)
        snprintf(out, len, "S_");
    else if (k - 1 < 36)
        snprintf(out, len, "S%c_", digits[k - 1]);
    else
        snprintf(out, len, "S%c%c_", digits[(k - 1) / 36], digits[(k - 1) % 36]);
}

int family_kernel_symbol(const struct family *f, const char *kernel, char *buf, size_t len)
{
    /* The candidates for back-references, each as its type's full mangling: a pointer's, a
     * qualified type's and a class's are, an arithmetic type's is not. */
    char seen[16][24];
    int nseen = 0;
    size_t at = (size_t)snprintf(buf, len, "_Z%zu%s", strlen(kernel), kernel);
    for (const char *p = f->params; at < len;) {
        size_t n = strcspn(p, ",");
        const char *code;
        int pointer, pointee_const;
        if (read_param(p, n, &code, &pointer, &pointee_const) != 0 || nseen > 14) {
            snprintf(buf, len, "%.*s", (int)n, p);
            return -1;
        }
        char full_k[4], full_p[8], part[24], inner[8];
        snprintf(full_k, sizeof full_k, "K%.1s", code);
        snprintf(full_p, sizeof full_p, "P%.2s", pointee_const ? full_k : code);
        int kp = 0, kk = 0;
        while (kp < nseen && strcmp(seen[kp], full_p) != 0)
            kp++;
        while (kk < nseen && strcmp(seen[kk], full_k) != 0)
            kk++;
        if (!pointer && strlen(code) > 1) { /* a class: itself the first time, a back-reference after */
            int kc = 0;
            while (kc < nseen && strcmp(seen[kc], code) != 0)
                kc++;
            if (kc < nseen)
                back_reference(part, sizeof part, kc);
            else
                snprintf(part, sizeof part, "%s", code), snprintf(seen[nseen++], sizeof seen[0], "%s", code);
        } else if (!pointer)
            snprintf(part, sizeof part, "%s", code);
        else if (kp < nseen)
            back_reference(part, sizeof part, kp);
        else {
            if (!pointee_const)
                snprintf(inner, sizeof inner, "%s", code);
            else if (kk < nseen)
                back_reference(inner, sizeof inner, kk);
            else
                snprintf(inner, sizeof inner, "%s", full_k), snprintf(seen[nseen++], sizeof seen[0], "%s", full_k);
            snprintf(part, sizeof part, "P%.6s", inner);
            snprintf(seen[nseen++], sizeof seen[0], "%s", full_p);
        }
        at += (size_t)snprintf(buf + at, len - at, "%s", part);
        if (!p[n])
            break;
        p += n + 1;
    }
    return at < len ? 0 : -1;
}
