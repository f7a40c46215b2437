/* The compiler's log: shown as the student's file:line, its words on a limit made one sentence,
 * and what it and the PTX say that the compile must refuse (a __constant__ store, a clock). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sealed.h"

/* line (len bytes) with every `from` made `to`; "to(N): " made "to:N: " at its start. */
static void src_line(const struct sealed *s, const char *line, size_t len, struct buf *out)
{
    struct buf l = {0};
    size_t from = strlen(s->in_src), to = strlen(s->shown);
    buf_add(&l, NULL, 0);
    for (const char *p = line, *end = line + len; p < end;) {
        const char *at = find_in(p, (size_t)(end - p), s->in_src);
        if (!at) {
            buf_add(&l, p, (size_t)(end - p));
            break;
        }
        buf_add(&l, p, (size_t)(at - p));
        buf_str(&l, s->shown);
        p = at + from;
    }
    size_t digits = 0;
    if (starts_with(l.p, l.n, s->shown) && l.n > to && l.p[to] == '(')
        while (to + 1 + digits < l.n && l.p[to + 1 + digits] >= '0' && l.p[to + 1 + digits] <= '9')
            digits++;
    if (digits && starts_with(l.p + to + 1 + digits, l.n - to - 1 - digits, "): ")) {
        buf_add(out, l.p, to);
        buf_printf(out, ":%.*s: ", (int)digits, l.p + to + 1);
        buf_add(out, l.p + to + digits + 4, l.n - to - digits - 4);
    } else {
        buf_add(out, l.p, l.n);
    }
    buf_add(out, "\n", 1);
    buf_free(&l);
}

/* ptxas's words for a build older than an instruction needs (lesson 10's mma.sync on a 7.5 GPU):
 * the newest compute capability it names, and the sentence that says what to do. */
static void needs_newer_gpu(const struct sealed *s, struct buf *out)
{
    static const char words[] = "requires .target sm_", *best = NULL;
    size_t best_len = 0, pos = 0, len;
    const char *line;
    while (next_line(&s->log, &pos, &line, &len)) {
        const char *digits = NULL, *end = NULL; /* the last "requires .target sm_N or higher" */
        for (const char *p = line; (p = find_in(p, (size_t)(line + len - p), words)); p++) {
            const char *d = p + sizeof words - 1, *e = d;
            while (e < line + len && *e >= '0' && *e <= '9')
                e++;
            if (e > d && starts_with(e, (size_t)(line + len - e), " or higher"))
                digits = d, end = e;
        }
        if (!digits)
            continue;
        while (digits + 1 < end && *digits == '0')
            digits++;
        size_t n = (size_t)(end - digits);
        if (!best || n > best_len || (n == best_len && memcmp(digits, best, n) >= 0))
            best = digits, best_len = n;
    }
    if (!best)
        return;
    const char *arch = "";
    for (int i = 0; i < s->flags.n; i++)
        if (!strncmp(s->flags.v[i], "-arch=", 6))
            arch = s->flags.v[i] + 6;
    buf_printf(out,
               "\n%s needs a GPU of compute capability %.*s.%c or newer for the instructions above, and this build "
               "is for %s (the GPU found here, or CUDA_ARCH): on an older GPU, make check EMU=1 grades it in the "
               "CPU emulator.\n",
               s->shown, (int)best_len - 1, best, best[best_len - 1], arch);
}

/* Lines of the compiler's output as the student's file:line, without nvcc's boilerplate and
 * control characters (tabs kept), one blank line between messages and none around them, at most
 * SHOWN_MAX bytes. */
void show_log(struct sealed *s)
{
    if (s->log.n == 0)
        return;
    struct buf clean = {0}, shown = {0};
    buf_add(&clean, NULL, 0);
    for (size_t i = 0; i < s->log.n; i++) {
        unsigned char c = (unsigned char)s->log.p[i];
        if (c == '\t' || c == '\n' || (c >= 040 && c != 0177))
            buf_add(&clean, &s->log.p[i], 1);
    }
    buf_add(&shown, NULL, 0);
    int blank = 0, any = 0;
    size_t pos = 0, len;
    const char *line;
    while (next_line(&clean, &pos, &line, &len)) {
        if (starts_with(line, len, "Remark: The warnings can be suppressed") ||
            find_in(line, len, " detected in the compilation of "))
            continue;
        if (len == strspn(line, " \t") || len == 0) {
            blank = 1;
            continue;
        }
        if (blank && any)
            buf_add(&shown, "\n", 1);
        blank = 0, any = 1;
        src_line(s, line, len, &shown);
    }
    write_all(1, shown.p, shown.n < SHOWN_MAX ? shown.n : SHOWN_MAX);
    struct buf tail = {0};
    if (shown.n > SHOWN_MAX)
        buf_printf(&tail, "\n(%zu more bytes of compiler output not shown)\n", shown.n - SHOWN_MAX);
    needs_newer_gpu(s, &tail);
    write_all(1, tail.p, tail.n);
    buf_free(&clean), buf_free(&shown), buf_free(&tail);
}

/* Whether a line of the log matches the extended regular expression re. */
static int log_says(const struct sealed *s, const char *re)
{
    regex_t r;
    if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB) != 0)
        return 0;
    size_t pos = 0, len;
    const char *line;
    int found = 0;
    while (!found && next_line(&s->log, &pos, &line, &len)) {
        char *text = malloc(len + 1);
        if (!text)
            break;
        memcpy(text, line, len), text[len] = '\0';
        found = regexec(&r, text, 0, NULL, 0) == 0;
        free(text);
    }
    regfree(&r);
    return found;
}

/* A breach of a limit, from the exit status (which nothing in a source file can choose) or from
 * the allocators' own words on lines that begin with a tool's name, not with the file's: named in
 * one sentence, exit 3. Nothing where the command succeeded or failed otherwise. */
void limit_breach(struct sealed *s, const char *what)
{
    const char *memory =
        "^(cc1(plus)?: (out of memory|virtual memory exhausted)|terminate called after throwing an instance of "
        "'std::bad_alloc'|ptxas.*([Mm]emory allocation fail|[Oo]ut of memory)|nvcc (error|fatal) *:.*([Oo]ut of "
        "memory|[Mm]emory allocation)|.*error while loading shared libraries: .*([Cc]annot allocate memory|failed to "
        "map))|^[^ ]*(\\([0-9]+\\))?: catastrophic error: out of memory$";
    const char *no_fork = "^(gcc|g\\+\\+|cc1plus|cicc|ptxas|nvcc|(/bin/)?sh)[^ ]*:.*(Cannot fork|Resource temporarily unavailable)";
    const struct limits *l = &s->lim;
    int rc = s->rc;
    if (rc == 0)
        return;
    if (rc == 124) {
        say(1, "%s: the compiler ran for %llu s of wall-clock time and was stopped with everything it started: code "
                  "that keeps the compiler busy for very long (a huge constexpr or template computation) on a badly "
                  "overloaded machine causes this.", s->shown, l->wall_s);
    } else if (rc == 152) {
        say(1, "%s: the compiler used up its %llu s of CPU time %s and was stopped: a constexpr computation, template "
                  "recursion or loop unrolling that never ends (or is enormous) causes this.", s->shown, l->cpu_s, what);
    } else if (rc == 137) {
        say(1, "%s: the compiler was killed %s, by the hard stop %llu s into its CPU time or by the machine's "
                  "out-of-memory killer: a computation that never ends or an enormous expansion causes this.",
            s->shown, what, l->cpu_s + 5);
    } else if (rc == 153) {
        say(1, "%s: the compiler tried to write a file over the %llu MiB limit %s and was stopped: a huge initialised "
                  "__device__ or __constant__ table, or macros that expand to an enormous amount of code, cause this.",
            s->shown, l->fsize_mb, what);
    } else if (log_says(s, memory) || rc == 139 || rc == 135) {
        /* An include of an endless file (/dev/zero) lands here too: say where it is. */
        long line = include_line(&s->copy, "");
        char hint[96] = "";
        if (line > 0)
            snprintf(hint, sizeof hint, " Line %ld has an #include, which lesson files may not have.", line);
        say(1, "%s: the compiler ran out of its %llu MiB of memory %s and was stopped: a macro or template that "
                  "expands exponentially, or a huge constexpr object, causes this.%s", s->shown, l->mem_mb, what, hint);
    } else if (log_says(s, no_fork)) {
        /* Exit 3, not 4: text the compiler prints can be forged by a static_assert message, and
         * nothing in a lesson file may pass itself off as a fault of the grader. */
        say(1, "%s: the compiler could not start a process %s (its box allows %llu processes and threads): no honest "
                  "lesson file causes this; if it happens again, raise WB_SEALED_NPROC.", s->shown, what, l->nproc);
    } else if (rc > 128 && rc <= 192) {
        say(1, "%s: the compiler was killed by signal %d %s: pathological code (very deep nesting or recursion) that "
                  "crashes it causes this.", s->shown, rc - 128, what);
    } else {
        return;
    }
    sealed_exit(s, EXIT_LIMIT);
}

/* A store to __constant__ memory: nvcc only warns and drops the store, so the kernel would run
 * without it in both judges (a GPU faults on such a store where a pointer hides the space).
 * Refused as an error on its line: true where the log said so (and now says it as an error). */
int constant_stores(struct sealed *s)
{
    static const char said[] = "Cannot store to pointer that points to constant memory space";
    if (!find_in(s->log.p, s->log.n, said))
        return 0;
    regex_t r;
    if (regcomp(&r, "^warning: (.*\\([0-9]+\\)): Warning: Cannot store to pointer that points to constant memory space",
                REG_EXTENDED) != 0)
        return 0;
    struct buf out = {0};
    size_t pos = 0, len;
    const char *line;
    buf_add(&out, NULL, 0);
    while (next_line(&s->log, &pos, &line, &len)) {
        char *text = xprintf("%.*s", (int)len, line);
        regmatch_t m[2];
        if (regexec(&r, text, 2, m, 0) == 0) {
            buf_add(&out, text + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
            buf_str(&out, ": error: this stores to __constant__ memory, which a kernel may only read: nvcc drops the "
                          "store (with a warning) and the kernel would not do what its source says; write to a global "
                          "buffer instead");
            buf_str(&out, text + m[0].rm_eo);
        } else {
            buf_str(&out, text);
        }
        if (pos <= s->log.n && line + len < s->log.p + s->log.n)
            buf_add(&out, "\n", 1);
        free(text);
    }
    regfree(&r);
    buf_set(&s->log, &out);
    buf_free(&out);
    return 1;
}

/* Whether a line of log begins with the copy's name: a failure that names no line of SRC
 * ("nvcc fatal: ...") is the moment's or the grader's, not the file's. */
int names_src(const struct sealed *s, const struct buf *log)
{
    size_t pos = 0, len;
    const char *line;
    while (next_line(log, &pos, &line, &len))
        if (starts_with(line, len, s->in_src))
            return 1;
    return 0;
}
