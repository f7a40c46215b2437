/* The lesson files' rules (lint.h): a small C++ tokenizer that skips comments and literals,
 * follows brace depth, and looks at what stands at file scope. It reads what a compiler reads:
 * backslash-newlines spliced first, raw strings, digit separators and digraphs for what they are
 * (a tokenizer that mistook them could be walked past). */
#include "lint.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MACROS 64
#define NAME_MAX_LEN 64

enum tok_kind { TOK_END, TOK_IDENT, TOK_NUMBER, TOK_PUNCT, TOK_LITERAL };

struct token {
    enum tok_kind kind;
    char text[NAME_MAX_LEN]; /* identifiers and punctuation; literals and numbers are not kept */
    int line;
    int line_start; /* the first token on its line: where a directive may begin */
    const char *start, *end; /* where it stands in the text */
};

struct lexer {
    const char *p;
    int line;
    int at_line_start;
    const char *base; /* the spliced text, and each of its characters' line in the file */
    const int *line_at;
    int unclosed_comment; /* the line of a comment that is never closed, if any */
};

/* Translation phase 2: every backslash-newline removed, each remaining character remembering
 * the line it stood on. Returns the text (malloc'd, with *lines), or NULL. */
static char *splice(const char *text, int **lines)
{
    size_t n = strlen(text);
    char *out = malloc(n + 1);
    int *at = malloc((n + 1) * sizeof *at);
    if (!out || !at) {
        free(out);
        free(at);
        return NULL;
    }
    size_t k = 0;
    int line = 1;
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '\\' && (text[i + 1] == '\n' || (text[i + 1] == '\r' && text[i + 2] == '\n'))) {
            i += text[i + 1] == '\r' ? 2 : 1;
            line++;
            continue;
        }
        at[k] = line;
        out[k++] = text[i];
        if (text[i] == '\n')
            line++;
    }
    at[k] = line;
    out[k] = '\0';
    *lines = at;
    return out;
}

/* Skips blanks, comments and backslash-newlines; counts lines. */
static void skip_space(struct lexer *lx)
{
    for (;;) {
        const char *p = lx->p;
        if (*p == '\n') {
            lx->line++;
            lx->at_line_start = 1;
            lx->p++;
        } else if (isspace((unsigned char)*p)) {
            lx->p++;
        } else if (p[0] == '/' && p[1] == '/') {
            while (*lx->p && *lx->p != '\n')
                lx->p++;
        } else if (p[0] == '/' && p[1] == '*') {
            int opened = lx->line_at ? lx->line_at[p - lx->base] : lx->line;
            lx->p += 2;
            while (*lx->p && !(lx->p[0] == '*' && lx->p[1] == '/')) {
                if (*lx->p == '\n')
                    lx->line++;
                lx->p++;
            }
            if (*lx->p)
                lx->p += 2;
            else
                lx->unclosed_comment = opened;
        } else {
            return;
        }
    }
}

static void scan_token(struct lexer *lx, struct token *t)
{
    skip_space(lx);
    memset(t, 0, sizeof *t);
    t->start = lx->p;
    t->line = lx->line_at ? lx->line_at[lx->p - lx->base] : lx->line;
    t->line_start = lx->at_line_start;
    lx->at_line_start = 0;
    const char *p = lx->p;
    if (*p == '\0') {
        t->kind = TOK_END;
        return;
    }
    if (isalpha((unsigned char)*p) || *p == '_') {
        size_t n = 0;
        while (isalnum((unsigned char)p[n]) || p[n] == '_')
            n++;
        /* A raw string, R"delim( ... )delim", with any encoding prefix: nothing inside counts. */
        if (p[n] == '"' && p[n - 1] == 'R' && (n == 1 || (n == 2 && strchr("uUL", p[0])) || (n == 3 && strncmp(p, "u8", 2) == 0))) {
            const char *open = strchr(p + n + 1, '(');
            char close[24];
            int dlen = open ? (int)(open - (p + n + 1)) : -1;
            const char *end = NULL;
            if (dlen >= 0 && dlen <= 16) {
                snprintf(close, sizeof close, ")%.*s\"", dlen, p + n + 1);
                end = strstr(open, close);
            }
            lx->p = end ? end + strlen(close) : p + strlen(p);
            for (const char *q = p; q < lx->p; q++)
                lx->line += *q == '\n';
            t->kind = TOK_LITERAL;
            return;
        }
        t->kind = TOK_IDENT;
        snprintf(t->text, sizeof t->text, "%.*s", (int)(n < NAME_MAX_LEN - 1 ? n : NAME_MAX_LEN - 1), p);
        lx->p += n;
        return;
    }
    if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
        /* A pp-number, digit separators (1'000) included. */
        while (isalnum((unsigned char)*lx->p) || *lx->p == '.' || *lx->p == '_' ||
               (*lx->p == '\'' && isalnum((unsigned char)lx->p[1])) ||
               ((*lx->p == '+' || *lx->p == '-') && strchr("eEpP", lx->p[-1])))
            lx->p++;
        t->kind = TOK_NUMBER;
        return;
    }
    if (*p == '"' || *p == '\'') {
        char quote = *p++;
        while (*p && *p != quote && *p != '\n')
            p += (*p == '\\' && p[1]) ? 2 : 1;
        lx->p = *p == quote ? p + 1 : p;
        t->kind = TOK_LITERAL;
        return;
    }
    /* Digraphs are the punctuators they stand for (<:: before anything but : and > is < ::). */
    static const char *const digraphs[][2] = {{"%:%:", "##"}, {"%:", "#"}, {"<%", "{"}, {"%>", "}"}, {":>", "]"}};
    t->kind = TOK_PUNCT;
    for (size_t i = 0; i < sizeof digraphs / sizeof digraphs[0]; i++)
        if (strncmp(p, digraphs[i][0], strlen(digraphs[i][0])) == 0) {
            strcpy(t->text, digraphs[i][1]);
            lx->p += strlen(digraphs[i][0]);
            return;
        }
    if (p[0] == '<' && p[1] == ':' && !(p[2] == ':' && p[3] != ':' && p[3] != '>')) {
        strcpy(t->text, "[");
        lx->p += 2;
        return;
    }
    static const char *multi[] = {"<<<", ">>>", "##", "::", "->", NULL};
    for (int i = 0; multi[i]; i++)
        if (strncmp(p, multi[i], strlen(multi[i])) == 0) {
            strcpy(t->text, multi[i]);
            lx->p += strlen(multi[i]);
            return;
        }
    t->text[0] = *p;
    lx->p++;
}

static void next_token(struct lexer *lx, struct token *t)
{
    scan_token(lx, t);
    t->end = lx->p;
}

static int is(const struct token *t, const char *s) { return t->kind != TOK_END && strcmp(t->text, s) == 0; }

static int problem(struct lint_problem *p, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    p->line = line;
    vsnprintf(p->message, sizeof p->message, fmt, ap);
    va_end(ap);
    return 1;
}

/* Inline assembly is PTX put into the device code (lesson 10's ldmatrix, mma.sync and cp.async),
 * judged as every other instruction by the interpreter and the cubin gate; outside a function's
 * body (at file scope, in a #define) it could make module-level directives. */
#define ASM_WHERE "inline assembly is allowed only in the body of a __device__ or __global__ function"
static int is_asm(const char *s) { return strcmp(s, "asm") == 0 || strcmp(s, "__asm") == 0 || strcmp(s, "__asm__") == 0; }

/* Clocks, timers and the ids of the SM or warp slot a kernel runs on: its result must depend on
 * its inputs alone, and a kernel must not tell one judge from the other by them. The friendly
 * first word; the sealed compile refuses the same reads in the PTX, and the interpreter too. */
#define TIMER_RULE                                                                                                \
    "lesson files may not read clocks or SM ids: a kernel's result must not depend on when or where it runs"

/* The first special register of that kind that a literal (inline assembly's text) names between
 * start and end, as `%name`, or NULL. */
static const char *timer_in(const char *start, const char *end)
{
    static const char *const names[] = {"%clock64", "%clock_hi", "%clock", "%globaltimer_lo", "%globaltimer_hi",
                                        "%globaltimer", "%smid", "%nwarpid", "%warpid", "%gridid"};
    for (const char *c = start; c < end; c++)
        for (size_t i = 0; *c == '%' && i < sizeof names / sizeof names[0]; i++) {
            size_t n = strlen(names[i]);
            if ((size_t)(end - c) >= n && strncmp(c, names[i], n) == 0 &&
                (c + n == end || !(isalnum((unsigned char)c[n]) || c[n] == '_' || c[n] == '$')))
                return names[i];
        }
    return NULL;
}

/* Names no lesson file may use: the reason, or NULL. */
static const char *banned_name(const char *s)
{
    static const struct {
        const char *name;
        const char *why;
    } exact[] = {
        {"asm", ASM_WHERE},
        {"__asm", ASM_WHERE},
        {"__asm__", ASM_WHERE},
        {"__host__", "host code is not allowed: lesson files hold kernels only"},
        {"__attribute__", "attributes are not allowed (one can run code when the checker starts)"},
        {"__declspec", "attributes are not allowed"},
        {"extern", "extern declarations are not allowed"},
        {"main", "a main function is not allowed: the checker is the program"},
        {"_Pragma", "_Pragma is not allowed"},
        {"std", "library calls are not allowed: the kernel must be your own code"},
        {"thrust", "library calls are not allowed: the kernel must be your own code"},
        {"cub", "library calls are not allowed: the kernel must be your own code"},
        {"cutlass", "library calls are not allowed: the kernel must be your own code"},
        {"cute", "library calls are not allowed: the kernel must be your own code"},
        {"nvcuda", "library calls (WMMA) are not allowed: the kernel must be your own code"},
        /* A type with a constructor, or an inline static member, is host code that runs at start-up. */
        {"struct", "struct, class and union types are not allowed (a constructor is host code): use separate variables"},
        {"class", "struct, class and union types are not allowed (a constructor is host code): use separate variables"},
        {"union", "struct, class and union types are not allowed (a constructor is host code): use separate variables"},
        {"wmma", "library calls (WMMA) are not allowed: the kernel must be your own code"},
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(s, exact[i].name) == 0)
            return exact[i].why;
    static const char *library_prefixes[] = {"cublas", "cufft", "cusparse", "cusolver", "curand", "cudnn"};
    for (size_t i = 0; i < sizeof library_prefixes / sizeof library_prefixes[0]; i++)
        if (strncmp(s, library_prefixes[i], strlen(library_prefixes[i])) == 0)
            return "library calls are not allowed: the kernel must be your own code";
    if (strncmp(s, "cuda", 4) == 0 && isupper((unsigned char)s[4]))
        return "CUDA runtime calls are not allowed: the harness allocates, copies and launches";
    return NULL;
}

struct macros {
    int count;
    char name[MAX_MACROS][NAME_MAX_LEN];
    char first[MAX_MACROS][NAME_MAX_LEN]; /* the first token of its body ("" if none) */
};

/* Checks one directive; `t` is its '#'. Leaves `t` on the first token after the directive. */
static int directive(struct lexer *lx, struct token *t, struct macros *m, struct lint_problem *p)
{
    int line = t->line;
    next_token(lx, t);
    if (t->kind == TOK_END || t->line != line)
        return 0; /* the null directive */
    char name[NAME_MAX_LEN];
    snprintf(name, sizeof name, "%s", t->text);
    static const char *allowed[] = {"define", "undef", "if", "ifdef", "ifndef", "elif", "else", "endif", "pragma", NULL};
    int ok = 0;
    for (int i = 0; allowed[i]; i++)
        ok |= strcmp(name, allowed[i]) == 0;
    if (strcmp(name, "include") == 0)
        return problem(p, line, "#include is not allowed: a lesson file uses no headers and no libraries; "
                                "the checker provides everything a kernel needs");
    if (!ok)
        return problem(p, line, "#%s is not allowed in a lesson file (only #define, #undef, #if and "
                                "#pragma unroll)", name);
    next_token(lx, t);
    if (strcmp(name, "pragma") == 0 && !(t->line == line && is(t, "unroll")))
        return problem(p, line, "only #pragma unroll is allowed in a lesson file");
    int define = strcmp(name, "define") == 0 && t->line == line && t->kind == TOK_IDENT && m->count < MAX_MACROS;
    if (define) {
        snprintf(m->name[m->count], NAME_MAX_LEN, "%s", t->text);
        m->first[m->count][0] = '\0';
    }
    /* The rest of the directive (continuations were joined by skip_space). */
    int body = 0;
    for (next_token(lx, t); t->kind != TOK_END && !t->line_start; next_token(lx, t)) {
        if (is(t, "##"))
            return problem(p, t->line, "token pasting (##) is not allowed in a lesson file");
        const char *why = t->kind == TOK_IDENT ? banned_name(t->text) : NULL;
        if (why)
            return problem(p, t->line, "`%s`: %s", t->text, why);
        if (define && body++ == 0 && t->kind == TOK_IDENT && !is(t, "(")) /* "(" of a macro's parameters */
            snprintf(m->first[m->count], NAME_MAX_LEN, "%s", t->text);
    }
    if (define)
        m->count++;
    return 0;
}

/* A macro's first body token, followed a few times, so `#define DEV __device__` still counts. */
static const char *resolve(const struct macros *m, const char *s)
{
    for (int depth = 0; depth < 4; depth++) {
        int found = -1;
        for (int i = m->count - 1; i >= 0 && found < 0; i--)
            if (strcmp(m->name[i], s) == 0)
                found = i;
        if (found < 0 || !m->first[found][0])
            return s;
        s = m->first[found];
    }
    return s;
}

/* What one file-scope statement may be. `words` are its leading identifiers up to the first
 * '(', '=', '{' or ';' (macros resolved); `calls` says whether it calls anything. */
struct statement {
    int line;
    int nwords;
    char words[8][NAME_MAX_LEN];
    int calls;
    char first_call[NAME_MAX_LEN];
    int braces; /* a '{' or '[' after the header: an initialiser list, or a lambda */
    int header_done; /* reached the first '(', '=', '{' or ';' */
};

static int has_word(const struct statement *s, const char *w)
{
    for (int i = 0; i < s->nwords; i++)
        if (strcmp(s->words[i], w) == 0)
            return 1;
    return 0;
}

static int judge_statement(const struct statement *s, struct lint_problem *p)
{
    if (s->nwords == 0)
        return 0;
    if (has_word(s, "__global__") || has_word(s, "__device__") || has_word(s, "__constant__") ||
        has_word(s, "constexpr"))
        return 0;
    const char *first = s->words[0];
    static const char *types[] = {"enum", "typedef", "using", NULL};
    for (int i = 0; types[i]; i++)
        if (strcmp(first, types[i]) == 0)
            return 0;
    if (has_word(s, "const") && !s->calls && !s->braces)
        return 0; /* a constant with a plain initialiser: nothing that could run code */
    if (s->calls)
        return problem(p, s->line, "host code at file scope (`%s ... %s(...)`): a lesson file may hold, outside its "
                                   "functions, only __device__/__constant__ variables, constexpr constants, types and "
                                   "#defines; host code would run inside the checker",
                       first, s->first_call);
    return problem(p, s->line, "`%s ...` at file scope is host code: a lesson file may hold, outside its functions, "
                               "only __global__/__device__ functions, __device__/__constant__ variables, constexpr "
                               "constants, types and #defines",
                   first);
}

/* The name a __global__ declaration gives: the identifier before its first '(' (after any
 * __launch_bounds__(...)). */
static void kernel_name(struct lexer *lx, struct token *t, char *name, size_t len)
{
    char last[NAME_MAX_LEN] = "";
    for (next_token(lx, t); t->kind != TOK_END && !is(t, ";") && !is(t, "{"); next_token(lx, t)) {
        if (is(t, "__launch_bounds__")) {
            int depth = 0;
            do {
                next_token(lx, t);
                depth += is(t, "(") - is(t, ")");
            } while (t->kind != TOK_END && depth > 0);
            continue;
        }
        if (is(t, "(")) {
            snprintf(name, len, "%s", last);
            return;
        }
        if (t->kind == TOK_IDENT)
            snprintf(last, sizeof last, "%s", t->text);
    }
    snprintf(name, len, "%s", last);
}

static int lint_spliced(const char *text, const int *lines, const char *kernel, struct lint_problem *p);

int lint_kernel_source(const char *text, const char *kernel, struct lint_problem *p)
{
    int *lines = NULL;
    char *spliced = splice(text, &lines);
    if (!spliced)
        return problem(p, 1, "out of memory");
    int rc = lint_spliced(spliced, lines, kernel, p);
    free(spliced);
    free(lines);
    return rc;
}

static int lint_spliced(const char *text, const int *lines, const char *kernel, struct lint_problem *p)
{
    static struct macros m;
    memset(&m, 0, sizeof m);
    memset(p, 0, sizeof *p);
    struct lexer lx = {text, 1, 1, text, lines, 0};
    struct token t, prev = {0};
    struct statement s = {0};
    int depth = 0, kernels = 0, found_line = 1;
    char found[NAME_MAX_LEN] = "";
    next_token(&lx, &t);
    while (t.kind != TOK_END) {
        if (t.line_start && is(&t, "#")) {
            if (directive(&lx, &t, &m, p))
                return 1;
            continue;
        }
        if (is(&t, "<<<") || is(&t, ">>>"))
            return problem(p, t.line, "kernel launches (<<< >>>) are not allowed: the harness launches your kernel");
        if (is(&t, "##"))
            return problem(p, t.line, "token pasting (##) is not allowed in a lesson file");
        if (is(&t, "[") && is(&prev, "[") && prev.end == t.start)
            return problem(p, t.line, "attributes ([[...]]) are not allowed (one can run code when the checker starts)");
        const char *why = t.kind == TOK_IDENT ? banned_name(t.text) : NULL;
        int in_function = depth > 0 && (has_word(&s, "__device__") || has_word(&s, "__global__"));
        if (why && is(&t, "extern") && in_function) { /* `extern __shared__`: the launch's dynamic shared
                                                         memory (lesson 11), no declaration of anything */
            struct lexer ahead = lx;
            struct token n;
            next_token(&ahead, &n);
            if (is(&n, "__shared__"))
                why = NULL;
        }
        if (why && !(is_asm(t.text) && in_function))
            return problem(p, t.line, "`%s`: %s", t.text, why);
        if (is(&t, "(") && prev.kind == TOK_IDENT &&
            (strcmp(resolve(&m, prev.text), "clock") == 0 || strcmp(resolve(&m, prev.text), "clock64") == 0))
            return problem(p, t.line, "`%s()`: " TIMER_RULE, resolve(&m, prev.text));
        const char *timer = t.kind == TOK_LITERAL ? timer_in(t.start, t.end) : NULL;
        if (timer)
            return problem(p, t.line, "`%s` in inline assembly: " TIMER_RULE, timer);
        if (is(&t, "__global__")) {
            kernels++;
            if (depth == 0 && s.nwords == 0)
                s.line = t.line;
            if (s.nwords < 8)
                strcpy(s.words[s.nwords++], "__global__");
            char name[NAME_MAX_LEN] = "";
            kernel_name(&lx, &t, name, sizeof name);
            if (kernels == 1) {
                snprintf(found, sizeof found, "%s", name);
                found_line = t.line;
            }
            s.header_done = 1;
            continue; /* t is the token after the name's '(' or the declaration's end */
        }
        if (depth == 0) {
            if (s.nwords == 0 && !s.header_done && t.kind == TOK_IDENT)
                s.line = t.line;
            if (!s.header_done && t.kind == TOK_IDENT && s.nwords < 8)
                snprintf(s.words[s.nwords++], NAME_MAX_LEN, "%s", resolve(&m, t.text));
            if (is(&t, "(") || is(&t, "=") || is(&t, "{") || is(&t, ";"))
                s.header_done = 1;
        }
        /* A call at file scope, or in a file-scope initialiser: name followed by '('. */
        if (depth == 0 && s.header_done && is(&t, "(") && prev.kind == TOK_IDENT && !is(&prev, "sizeof") &&
            !is(&prev, "alignof") && !is(&prev, "decltype") && !s.calls) {
            s.calls = 1;
            snprintf(s.first_call, sizeof s.first_call, "%s", prev.text);
        }
        if (depth == 0 && s.header_done && (is(&t, "{") || is(&t, "[")))
            s.braces = 1;
        if (is(&t, "{"))
            depth++;
        if (is(&t, "}") && depth > 0)
            depth--;
        int ends = (depth == 0 && is(&t, ";")) || (depth == 0 && is(&t, "}"));
        if (ends) {
            if (judge_statement(&s, p))
                return 1;
            memset(&s, 0, sizeof s);
        }
        prev = t;
        next_token(&lx, &t);
    }
    if (lx.unclosed_comment)
        return problem(p, lx.unclosed_comment, "this comment (/*) is never closed: everything after it, to the end "
                                               "of the file, is part of it (a missing */?)");
    if (judge_statement(&s, p))
        return 1;
    if (kernels == 0)
        return problem(p, 1, "no __global__ kernel: the file must define __global__ void %s(...)", kernel);
    if (kernels > 1)
        return problem(p, 1, "%d __global__ functions: a lesson file defines exactly one kernel, %s", kernels, kernel);
    if (strcmp(found, kernel) != 0)
        return problem(p, found_line, "the kernel is named %s; this lesson's must be named %s (the harness launches %s)",
                       found[0] ? found : "(nothing)", kernel, kernel);
    return 0;
}
