/* The #include check: the files the preprocessor read for the copy, against those it reads for
 * an empty file; and the line of SRC a refusal names. */
#define _GNU_SOURCE
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sealed.h"

/* The line of copy (1, 2, ...) with an #include naming file's base name, else the first
 * #include, else 0. Lines end at \n, \r\n or a lone \r, as they do for the compiler. This only
 * finds a line number: nvcc decides. */
long include_line(const struct buf *copy, const char *file)
{
    char *want = base_name(file);
    long number = 0, any = 0, hit = 0;
    for (size_t i = 0; i < copy->n && !hit;) {
        size_t end = i;
        while (end < copy->n && copy->p[end] != '\n' && copy->p[end] != '\r')
            end++;
        const char *p = copy->p + i, *stop = copy->p + end;
        number++;
        while (p < stop && (*p == ' ' || *p == '\t'))
            p++;
        size_t hash = starts_with(p, (size_t)(stop - p), "#")     ? 1
                      : starts_with(p, (size_t)(stop - p), "%:")  ? 2
                      : starts_with(p, (size_t)(stop - p), "?\?=") ? 3
                                                                   : 0;
        for (p += hash; hash && p < stop && (*p == ' ' || *p == '\t');)
            p++;
        if (hash && (starts_with(p, (size_t)(stop - p), "include") || starts_with(p, (size_t)(stop - p), "import"))) {
            if (!any)
                any = number;
            if (find_in(copy->p + i, end - i, want))
                hit = number;
        }
        i = end + (end < copy->n && copy->p[end] == '\r' && end + 1 < copy->n && copy->p[end + 1] == '\n' ? 2 : 1);
    }
    free(want);
    return hit ? hit : any;
}

/* "SRC:LINE: includes FILE: ..." (LINE 0: found in the copy), exit 2. */
static void refuse_include(struct sealed *s, const char *file, long line)
{
    if (line <= 0)
        line = include_line(&s->copy, file);
    struct buf at = {0};
    buf_add(&at, NULL, 0);
    if (line > 0)
        buf_printf(&at, ":%ld", line);
    say(1, "%s%s: includes %s: lesson files may not include anything (the harness provides every CUDA name)",
        s->shown, at.p, file);
    sealed_exit(s, EXIT_REFUSED);
}

/* An include of a file the box does not have (/etc/passwd, ../../solutions/...): gcc's fatal
 * error names it, on the first line that says so. Anything else the compile read is in the device
 * pass's markers (check_includes). */
void refuse_missing_include(struct sealed *s)
{
    regex_t fatal;
    if (regcomp(&fatal,
                "^[^ ]+:[0-9]+:[0-9]+: fatal error: .*: (No such file or directory|Is a directory|Permission denied|Not a directory)$",
                REG_EXTENDED | REG_NOSUB) != 0)
        return;
    size_t pos = 0, len;
    const char *line;
    while (next_line(&s->log, &pos, &line, &len)) {
        char *text = xprintf("%.*s", (int)len, line);
        if (regexec(&fatal, text, 0, NULL, 0) != 0) {
            free(text);
            continue;
        }
        regfree(&fatal);
        char *file = strstr(text, ": fatal error: ") + strlen(": fatal error: ");
        char *cut = NULL; /* the last ": ", before the reason (the expression says there is one) */
        for (char *p = strstr(file, ": "); p; p = strstr(p + 1, ": "))
            cut = p;
        if (cut)
            *cut = '\0';
        long number = 0;
        size_t from = strlen(s->in_src);
        if (starts_with(text, len, s->in_src) && text[from] == ':')
            number = strtol(text + from + 1, NULL, 10);
        refuse_include(s, file, number);
    }
    regfree(&fatal);
}

/* The files the preprocessor read for the file of path's folder, one a line (as its line markers
 * spell them, gcc's escapes kept), without the file itself: from the device pass that nvcc keeps
 * (-keep), the one cicc made the PTX of. The preprocessor marks every file it enters, even an
 * empty one, by the name it opened; nvcc's own -MD reads the same markers, of an extra host pass
 * (0.15 s a compile) this product does not need. A marker a file writes itself only adds a name
 * (and so refuses that file): it cannot take back the mark of a file that was read. False where
 * there is no such file. A marker is `# LINE "NAME"` and flags ` 1` to ` 4`; names are kept as the
 * markers escape them (gcc writes a control character as \ooo). */
static int deps_of(const char *path, struct buf *list)
{
    struct buf ii = {0};
    struct argv seen = {0};
    list->n = 0;
    buf_add(list, NULL, 0);
    if (!read_plain(path, (size_t)1 << 30, &ii))
        return buf_free(&ii), 0;
    size_t pos = 0, len;
    const char *line;
    while (next_line(&ii, &pos, &line, &len)) {
        size_t i = 2;
        if (!starts_with(line, len, "# ") || i >= len || line[i] < '0' || line[i] > '9')
            continue;
        while (i < len && line[i] >= '0' && line[i] <= '9')
            i++;
        if (i + 1 >= len || line[i] != ' ' || line[i + 1] != '"')
            continue;
        const char *open = line + i + 2, *close = line + len;
        while (close > open && close[-1] != '"')
            close--;
        if (close == open) /* no closing quote */
            continue;
        const char *flags = close;
        while (flags + 1 < line + len && flags[0] == ' ' && flags[1] >= '1' && flags[1] <= '4')
            flags += 2;
        if (flags != line + len)
            continue;
        char *name = xprintf("%.*s", (int)(close - 1 - open), open);
        int known = 0;
        for (int k = 0; k < seen.n && !known; k++)
            known = !strcmp(seen.v[k], name);
        if (!known) {
            if (seen.n > 0) /* the first is the file itself */
                buf_printf(list, "%s\n", name);
            argv_add(&seen, name);
        }
        free(name);
    }
    for (int k = 0; k < seen.n; k++)
        free(seen.v[k]);
    free(seen.v), buf_free(&ii);
    return 1;
}

/* The same compile of an empty file, in a box of its own: what every file reads (the CUDA headers
 * nvcc includes itself, and theirs), in s->base_list. Cached per nvcc, host compiler and flags;
 * made once per call where the cache cannot keep it (the result cache's key needs it too). */
void baseline(struct sealed *s, int fresh)
{
    key_parts(s);
    s->base_from_cache = 0;
    if (!fresh && read_plain(s->basefile, 1 << 24, &s->base_list) && s->base_list.n > 0) {
        s->base_from_cache = 1;
        return;
    }
    if (!fresh && s->baseline_made.n > 0) {
        buf_set(&s->base_list, &s->baseline_made);
        return;
    }
    char *base = xprintf("%s/base", s->tmp), *keep = xprintf("%s/keep", base), *empty = xprintf("%s/kernel.cu", base);
    remove_tree(base);
    FILE *made = mkdir(base, 0700) == 0 && mkdir(keep, 0700) == 0 ? fopen(empty, "wx") : NULL;
    if (!made || fclose(made) != 0) {
        say(2, "sealed-compile: cannot make a temporary folder in %s", s->tmp);
        sealed_exit(s, EXIT_GRADER);
    }
    if (s->pre_drop)
        chown_tree(base, BOX_UID, BOX_UID);
    const char *at = s->sealed ? "/box" : base;
    struct argv cmd = {0};
    argv_add(&cmd, s->nvcc), argv_add(&cmd, "-ptx");
    for (int i = 0; i < s->flags.n; i++)
        argv_add(&cmd, s->flags.v[i]);
    argv_add(&cmd, "-keep"), argv_add(&cmd, "-keep-dir"), argv_addf(&cmd, "%s/keep", at);
    argv_add(&cmd, "-o"), argv_addf(&cmd, "%s/kernel.ptx", at), argv_addf(&cmd, "%s/kernel.cu", at);
    run_box(s, base, cmd.v);
    char *ii = xprintf("%s/kernel.cpp1.ii", keep);
    if (!deps_of(ii, &s->baseline_made) || s->rc != 0 || s->baseline_made.n == 0) {
        say(2, "sealed-compile: nvcc cannot compile an empty file in the box:");
        write_all(2, s->log.p, s->log.n < 2000 ? s->log.n : 2000);
        sealed_exit(s, EXIT_GRADER);
    }
    buf_set(&s->base_list, &s->baseline_made);
    /* Shared like any build output (the caller's umask); a cache we may not write is no error. */
    if (s->basefile && mkdir_shared(s, getenv("WB_SEALED_CACHE")))
        write_shared(s, s->basefile, &s->baseline_made);
    for (int i = 0; i < cmd.n; i++)
        free(cmd.v[i]);
    free(cmd.v), free(ii), free(base), free(keep), free(empty);
}

/* The first name of deps that the empty file's list lacks, or NULL. */
static char *first_new(const struct buf *deps, const struct buf *base)
{
    size_t pos = 0, len;
    const char *line;
    while (next_line(deps, &pos, &line, &len)) {
        size_t at = 0, blen;
        const char *b;
        int known = 0;
        while (!known && next_line(base, &at, &b, &blen))
            known = blen == len && memcmp(b, line, len) == 0;
        if (!known)
            return xprintf("%.*s", (int)len, line);
    }
    return NULL;
}

/* Files the student's compile read that an empty file's does not: each was included. */
void check_includes(struct sealed *s)
{
    struct buf deps = {0};
    char *ii = xprintf("%s/keep/kernel.cpp1.ii", s->box);
    int listed = deps_of(ii, &deps);
    free(ii);
    if (!listed) { /* no list: the compile failed before it */
        buf_free(&deps);
        return;
    }
    baseline(s, 0);
    char *first = first_new(&deps, &s->base_list);
    /* A cached list from another toolkit must not refuse a file: make sure with a fresh one. */
    if (first && s->base_from_cache) {
        free(first);
        baseline(s, 1);
        first = first_new(&deps, &s->base_list);
    }
    buf_free(&deps);
    if (!first)
        return;
    char *plain = resolve_path(first, 0);
    refuse_include(s, plain ? plain : first, 0);
}
