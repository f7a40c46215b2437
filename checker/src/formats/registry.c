#include "registry.h"
#include "student_lines.h"
#include "textfile.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_identifier(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

/* Whether the line from p to end is a lesson's, not a comment or a blank line. */
static int is_lesson_line(const char *p, const char *end)
{
    while (p < end && isspace((unsigned char)*p))
        p++;
    return p < end && *p != '#';
}

/* One lesson's line of the registry named name: "number folder kernel family baseline points
 * student_lines". */
static int parse_line(const char *line, const char *name, int lineno, struct registry *reg, char *err, size_t errlen)
{
    char folder[64], kernel[64], family[32], baseline[256], extra[2];
    int number, points, student_lines;
    int n = sscanf(line, "%d %63s %63s %31s %255s %d %d %1s", &number, folder, kernel, family, baseline,
                   &points, &student_lines, extra);
    struct lesson *l = &reg->lessons[reg->count];
    if (n != 7) {
        snprintf(err, errlen,
                 "%s line %d: expected 7 fields (number folder kernel family baseline points student_lines)", name,
                 lineno);
        return -1;
    }
    if (reg->count == MAX_LESSONS) {
        snprintf(err, errlen, "%s line %d: more than %d lessons", name, lineno, MAX_LESSONS);
        return -1;
    }
    /* Increasing; gaps only in a handout of some lessons (make handout HANDOUT_LESSONS=...):
     * the author check insists on 1, 2, 3, ... where solutions/ is. */
    int last = reg->count ? reg->lessons[reg->count - 1].number : 0;
    if (number <= last) {
        snprintf(err, errlen, "%s line %d: lesson %d after lesson %d (number them 1, 2, 3, ...)", name, lineno,
                 number, last);
        return -1;
    }
    if (atoi(folder) != number || !isdigit((unsigned char)folder[0]) || !isdigit((unsigned char)folder[1]) || folder[2] != '_') {
        snprintf(err, errlen, "%s line %d: folder '%s' should start with the lesson's number as two digits and '_' (e.g. %02d_topic)",
                 name, lineno, folder, number);
        return -1;
    }
    if (!is_identifier(kernel)) {
        snprintf(err, errlen, "%s line %d: kernel '%s' is not a C identifier", name, lineno, kernel);
        return -1;
    }
    if (!(l->family = family_named(family))) {
        snprintf(err, errlen, "%s line %d: unknown family '%s' (%s)", name, lineno, family, family_names());
        return -1;
    }
    /* "[FAMILY:]path": a baseline written for another launch of the same contract, or for the
     * same problem on inputs of another element type. */
    l->baseline_family = l->family;
    char *colon = strchr(baseline, ':');
    if (colon) {
        *colon = '\0';
        if (!(l->baseline_family = family_named(baseline))) {
            snprintf(err, errlen, "%s line %d: the baseline's family '%s' is unknown (%s)", name, lineno,
                     baseline, family_names());
            return -1;
        }
        memmove(baseline, colon + 1, strlen(colon + 1) + 1);
        const struct family *a = l->family, *b = l->baseline_family;
        /* The same contract; the inputs' element type may differ (the runners give each kernel its
         * own: lesson 10's halves, and floats of the same values to lesson 8's SGEMM), and so may
         * the way they come (lesson 11's tensor maps over the halves lesson 10 takes by pointer). */
        int same_type = a->input_half == b->input_half && (a->input_box[0].cols > 0) == (b->input_box[0].cols > 0);
        char sa[256], sb[256];
        if (a->ninputs != b->ninputs || a->nscalars != b->nscalars ||
            (same_type && (family_kernel_symbol(a, "k", sa, sizeof sa) != 0 ||
                           family_kernel_symbol(b, "k", sb, sizeof sb) != 0 || strcmp(sa, sb) != 0))) {
            snprintf(err, errlen, "%s line %d: the baseline's family %s takes other arguments than %s (%s)",
                     name, lineno, b->name, a->name, a->params);
            return -1;
        }
    }
    size_t bl = strlen(baseline);
    if (bl < 4 || strcmp(baseline + bl - 3, ".cu") != 0) {
        snprintf(err, errlen, "%s line %d: baseline '%s' should be a .cu file", name, lineno, baseline);
        return -1;
    }
    if (points < 1 || points > 1000) {
        snprintf(err, errlen, "%s line %d: points %d outside 1..1000", name, lineno, points);
        return -1;
    }
    if (student_lines < STUDENT_LINES_FLOOR || student_lines > 10000) {
        snprintf(err, errlen,
                 "%s line %d: student_lines %d outside %d..10000: a stub fewer than %d lines away from its solution "
                 "leaves the student one expression to write",
                 name, lineno, student_lines, STUDENT_LINES_FLOOR, STUDENT_LINES_FLOOR);
        return -1;
    }
    l->number = number;
    l->points = points;
    l->student_lines = student_lines;
    strcpy(l->folder, folder);
    strcpy(l->kernel, kernel);
    strcpy(l->baseline, baseline);
    reg->count++;
    return 0;
}

int registry_parse(const char *text, const char *name, struct registry *reg, char *err, size_t errlen)
{
    memset(reg, 0, sizeof *reg);
    int lineno = 0;
    while (*text) {
        const char *end = strchr(text, '\n');
        size_t len = end ? (size_t)(end - text) : strlen(text);
        char line[512];
        lineno++;
        if (len >= sizeof line) {
            snprintf(err, errlen, "%s line %d: too long", name, lineno);
            return -1;
        }
        memcpy(line, text, len);
        line[len] = '\0';
        text += len + (end ? 1 : 0);
        if (!is_lesson_line(line, line + len))
            continue;
        if (parse_line(line, name, lineno, reg, err, errlen) != 0)
            return -1;
    }
    if (reg->count == 0) {
        snprintf(err, errlen, "%s lists no lessons", name);
        return -1;
    }
    return 0;
}

static int parse_registry(const char *text, const char *name, void *reg, char *err, size_t errlen)
{
    return registry_parse(text, name, reg, err, errlen);
}

int registry_load(const char *path, struct registry *reg, char *err, size_t errlen)
{
    return parse_text_file(path, parse_registry, reg, "cannot read %s (run make from the workbook's top folder)",
                           err, errlen);
}

void registry_write(FILE *out, const char *text, const struct registry *reg)
{
    int lessons_written = 0;
    while (*text) {
        const char *end = strchr(text, '\n');
        size_t len = end ? (size_t)(end - text) : strlen(text);
        if (!is_lesson_line(text, text + len))
            fprintf(out, "%.*s\n", (int)len, text);
        else if (!lessons_written) {
            /* In the columns of lessons/registry's own lines, which its header names. */
            for (int i = 0; i < reg->count; i++) {
                const struct lesson *l = &reg->lessons[i];
                char baseline[300];
                if (l->baseline_family != l->family)
                    snprintf(baseline, sizeof baseline, "%s:%s", l->baseline_family->name, l->baseline);
                else
                    snprintf(baseline, sizeof baseline, "%s", l->baseline);
                fprintf(out, "%-8d %-17s %-19s %-14s %-49s %-6d %d\n", l->number, l->folder, l->kernel,
                        l->family->name, baseline, l->points, l->student_lines);
            }
            lessons_written = 1;
        }
        text += len + (end ? 1 : 0);
    }
}

const struct lesson *registry_find(const struct registry *reg, int number)
{
    for (int i = 0; i < reg->count; i++)
        if (reg->lessons[i].number == number)
            return &reg->lessons[i];
    return NULL;
}

int registry_total_points(const struct registry *reg)
{
    int total = 0;
    for (int i = 0; i < reg->count; i++)
        total += reg->lessons[i].points;
    return total;
}
