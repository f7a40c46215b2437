#include "mutant.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "textfile.h"

static int starts(const char *line, const char *prefix)
{
    return strncmp(line, prefix, strlen(prefix)) == 0;
}

/* Appends a line (without its newline) to a growing block of text. */
static char *append_line(char *block, const char *line, size_t len)
{
    size_t have = block ? strlen(block) : 0;
    char *b = realloc(block, have + len + 2);
    if (!b)
        return block;
    if (have)
        b[have++] = '\n';
    memcpy(b + have, line, len);
    b[have + len] = '\0';
    return b;
}

/* An expected phrase: one or more non-empty alternatives joined by " | " (an empty one would be
 * found in any report). */
static int phrases_ok(const char *s)
{
    for (const char *p = s;;) {
        const char *bar = strstr(p, " | ");
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        size_t blank = strspn(p, " ");
        if (blank >= len || p[0] == '|' || (len > 0 && p[len - 1] == '|'))
            return 0;
        if (!bar)
            return 1;
        p = bar + 3;
    }
}

/* The headers that take one of two words, and the field each fills. */
static const struct choice {
    const char *header, *words[2];
    size_t field, size;
} choices[] = {
#define FIELD(name) offsetof(struct mutant, name), sizeof((struct mutant *)0)->name
    {"only: ", {"emulator", "gpu"}, FIELD(only)},
    {"every-case: ", {"yes", "gpu"}, FIELD(every_case)},
    /* a gate's variable, which the scripts set: nothing else */
    {"gpu-needs: ", {"SANITIZE", "PROFILE"}, FIELD(gpu_needs)},
#undef FIELD
};

static const struct choice *choice_header(const char *line)
{
    for (size_t i = 0; i < sizeof choices / sizeof choices[0]; i++)
        if (starts(line, choices[i].header))
            return &choices[i];
    return NULL;
}

/* One line of a .mutant file's header into m: 0, or -1 with err saying what is wrong with it. */
static int header_line(struct mutant *m, const char *line, int lineno, char *err, size_t errlen)
{
    const struct choice *c;
    if (sscanf(line, "lesson: %d", &m->lesson) == 1) {
    } else if (starts(line, "what: ")) {
        snprintf(m->what, sizeof m->what, "%s", line + 6);
    } else if (starts(line, "expect: ")) {
        snprintf(m->expect, sizeof m->expect, "%s", line + 8);
    } else if ((c = choice_header(line))) {
        const char *value = line + strlen(c->header);
        if (strcmp(value, c->words[0]) != 0 && strcmp(value, c->words[1]) != 0) {
            snprintf(err, errlen, "line %d: %.*s takes %s or %s", lineno, (int)strlen(c->header) - 1, c->header,
                     c->words[0], c->words[1]);
            return -1;
        }
        snprintf((char *)m + c->field, c->size, "%s", value);
    } else if (starts(line, "expect-unlinted: ")) {
        snprintf(m->expect_unlinted, sizeof m->expect_unlinted, "%s", line + 17);
    } else if (starts(line, "sentinel: ")) {
        snprintf(m->sentinel, sizeof m->sentinel, "%.255s", line + 10);
    } else if (starts(line, "may-pass: ")) {
        snprintf(m->may_pass, sizeof m->may_pass, "%.255s", line + 10);
    } else if (starts(line, "calibrates: ")) {
        if (strcmp(line + 12, "yes") != 0) {
            snprintf(err, errlen, "line %d: calibrates: takes yes", lineno);
            return -1;
        }
        m->calibrates = 1;
    } else if (starts(line, "timeout: ")) {
        char *end;
        long t = strtol(line + 9, &end, 10);
        if (*end || t < 1 || t > 3600) {
            snprintf(err, errlen, "line %d: timeout: takes seconds, 1 to 3600", lineno);
            return -1;
        }
        m->timeout = (int)t;
    } else if (starts(line, "base: ")) {
        snprintf(m->base, sizeof m->base, "%.255s", line + 6);
    } else if (line[0] != '\0' && line[0] != '#') {
        snprintf(err, errlen, "line %d: expected a header (what:, lesson:, expect:, only:, ... as mutant.h lists) or '--- replace'",
                 lineno);
        return -1;
    }
    return 0;
}

int mutant_parse(const char *text, struct mutant *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    enum { HEADER, OLD, NEW } part = HEADER;
    int with_seen[MAX_EDITS] = {0};
    int lineno = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        lineno++;
        if (part == HEADER && len >= 256 && strncmp(line, "expect", 6) != 0 && strncmp(line, "what: ", 6) != 0) {
            snprintf(err, errlen, "line %d: a header over 255 characters", lineno);
            return -1;
        }
        if (part == HEADER && len >= sizeof line - 1) {
            snprintf(err, errlen, "line %d: a header over %zu characters", lineno, sizeof line - 2);
            return -1;
        }
        if (starts(line, "--- replace")) {
            if (m->nedits == MAX_EDITS) {
                snprintf(err, errlen, "line %d: more than %d edits", lineno, MAX_EDITS);
                return -1;
            }
            m->nedits++;
            part = OLD;
        } else if (starts(line, "+++ with")) {
            if (part != OLD) {
                snprintf(err, errlen, "line %d: '+++ with' without a '--- replace' before it", lineno);
                return -1;
            }
            part = NEW;
            with_seen[m->nedits - 1] = 1;
        } else if (part != HEADER) {
            char **t = part == OLD ? &m->edit[m->nedits - 1].old_text : &m->edit[m->nedits - 1].new_text;
            *t = append_line(*t, p, len);
        } else if (header_line(m, line, lineno, err, errlen) != 0) {
            return -1;
        }
        if (part == HEADER && memchr(line, '\t', strlen(line))) {
            snprintf(err, errlen, "line %d: a tab in a header", lineno);
            return -1;
        }
        p += len + (nl ? 1 : 0);
    }
    const char *missing = !m->what[0] ? "what:" : m->lesson < 1 ? "lesson:" : !m->expect[0] ? "expect:" : NULL;
    if (missing || m->nedits == 0) {
        snprintf(err, errlen, "no %s line", missing ? missing : "'--- replace' edit");
        return -1;
    }
    if (!phrases_ok(m->expect) || (m->expect_unlinted[0] && !phrases_ok(m->expect_unlinted))) {
        snprintf(err, errlen, "an expected phrase with an empty alternative (\"a | b\": each must say something)");
        return -1;
    }
    for (int i = 0; i < m->nedits; i++) {
        if (with_seen[i] && !m->edit[i].new_text)
            m->edit[i].new_text = calloc(1, 1); /* an empty "with" part deletes the lines */
        if (!m->edit[i].old_text || !m->edit[i].new_text) {
            snprintf(err, errlen, "edit %d needs both a '--- replace' text and a '+++ with' part", i + 1);
            return -1;
        }
    }
    return 0;
}

char *mutant_apply(const struct mutant *m, const char *source, char *err, size_t errlen)
{
    char *s = strdup(source);
    for (int i = 0; s && i < m->nedits; i++) {
        const char *old = m->edit[i].old_text, *new = m->edit[i].new_text;
        char *at = strstr(s, old);
        if (!at || strstr(at + 1, old)) {
            snprintf(err, errlen, "edit %d: its '--- replace' text occurs %s in the solution", i + 1,
                     at ? "more than once" : "nowhere (did the solution change?)");
            free(s);
            return NULL;
        }
        size_t before = (size_t)(at - s), ol = strlen(old), nl = strlen(new), rest = strlen(at + ol);
        char *t = malloc(before + nl + rest + 1);
        if (t) {
            memcpy(t, s, before);
            memcpy(t + before, new, nl);
            memcpy(t + before + nl, at + ol, rest + 1);
        }
        free(s);
        s = t;
    }
    return s;
}

void mutant_free(struct mutant *m)
{
    for (int i = 0; i < m->nedits; i++) {
        free(m->edit[i].old_text);
        free(m->edit[i].new_text);
    }
    m->nedits = 0;
}

/* mutant_make's work; depth: how many .mutant bases lie above this file (one may: a base's own
 * base: is refused, so that a loop of bases ends). */
static char *make_from(const char *file, const struct registry *reg, struct mutant *m, int depth, char *err,
                       size_t errlen)
{
    memset(m, 0, sizeof *m);
    char *text = read_text_file(file), *source = NULL, *made = NULL, base[512];
    if (!text) {
        snprintf(err, errlen, "cannot read %s", file);
        return NULL;
    }
    int parsed = mutant_parse(text, m, err, errlen) == 0;
    free(text);
    if (!parsed)
        return NULL;
    const struct lesson *l = registry_find(reg, m->lesson);
    if (!l) {
        snprintf(err, errlen, "lesson %d is not in lessons/registry", m->lesson);
        return NULL;
    }
    if (m->base[0])
        snprintf(base, sizeof base, "%s", m->base);
    else
        snprintf(base, sizeof base, "solutions/%s/%s.cu", l->folder, l->kernel);
    size_t n = strlen(base);
    if (n > 7 && strcmp(base + n - 7, ".mutant") == 0) {
        struct mutant under = {0};
        char why[400] = "its base is a .mutant with a base of its own";
        if (depth == 0)
            source = make_from(base, reg, &under, depth + 1, why, sizeof why);
        mutant_free(&under);
        if (!source)
            snprintf(err, errlen, "base %s: %s", base, why);
    } else if (!(source = read_text_file(base))) {
        snprintf(err, errlen, "cannot read %s", base);
    }
    if (source)
        made = mutant_apply(m, source, err, errlen);
    free(source);
    return made;
}

char *mutant_make(const char *file, const struct registry *reg, struct mutant *m, char *err, size_t errlen)
{
    return make_from(file, reg, m, 0, err, errlen);
}
