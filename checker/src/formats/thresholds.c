#include "thresholds.h"
#include "textfile.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every threshold: its name in the file, where it lives in the struct, and how a text quotes it
 * (scale and suffix; yes/no ones are named, never quoted by number). */
static const struct field {
    const char *name;
    size_t offset;
    int yes_no;
    double scale;
    const char *suffix;
} fields[] = {
    {"min_speedup", offsetof(struct thresholds, min_speedup), 0, 1, "x"},
    {"min_limit_share", offsetof(struct thresholds, min_limit_share), 0, 100, "%"},
    {"max_sector_ratio", offsetof(struct thresholds, max_sector_ratio), 0, 1, ""},
    {"no_bank_conflicts", offsetof(struct thresholds, no_bank_conflicts), 1, 0, NULL},
    {"min_loaded_between_barriers", offsetof(struct thresholds, min_loaded_between_barriers), 0, 1, " bytes"},
    {"max_barriers_per_thread", offsetof(struct thresholds, max_barriers_per_thread), 0, 1, " barriers"},
    {"min_tensor_core_share", offsetof(struct thresholds, min_tensor_core_share), 0, 100, "%"},
    {"max_instruction_ratio", offsetof(struct thresholds, max_instruction_ratio), 0, 1, ""},
    {"max_shared_instruction_ratio", offsetof(struct thresholds, max_shared_instruction_ratio), 0, 1, ""},
    {"max_float_atomic_warps", offsetof(struct thresholds, max_float_atomic_warps), 0, 1, " warps"},
    {"min_copy_overlap_share", offsetof(struct thresholds, min_copy_overlap_share), 0, 100, "%"},
    {"max_conflict_share", offsetof(struct thresholds, max_conflict_share), 0, 100, "%"},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static double number_of(const struct thresholds *t, const struct field *f)
{
    const char *at = (const char *)t + f->offset;
    if (f->yes_no)
        return *(const int *)at;
    return *(const double *)at;
}

int thresholds_quoted(const struct thresholds *t, struct threshold_quote *q, int n)
{
    int k = 0;
    for (size_t i = 0; i < NFIELDS && k < n; i++)
        if (!fields[i].yes_no && number_of(t, &fields[i]) != 0)
            q[k++] = (struct threshold_quote){fields[i].name, number_of(t, &fields[i]), fields[i].scale,
                                              fields[i].suffix};
    return k;
}

int threshold_named(const char *name, const struct thresholds *t, int *set)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (strcmp(fields[i].name, name) == 0) {
            *set = number_of(t, &fields[i]) != 0;
            return 1;
        }
    return 0;
}

static const char *field_names(void)
{
    static char names[400];
    if (!names[0])
        for (size_t i = 0; i < NFIELDS; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", fields[i].name);
    return names;
}

double plain_decimal(const char *s, const char **end)
{
    const char *p = s;
    while (isdigit((unsigned char)*p))
        p++;
    if (p > s && *p == '.' && isdigit((unsigned char)p[1]))
        for (p++; isdigit((unsigned char)*p); p++)
            ;
    char digits[64];
    *end = p > s && p - s < (long)sizeof digits ? p : s;
    if (*end == s)
        return -1;
    snprintf(digits, sizeof digits, "%.*s", (int)(p - s), s);
    return strtod(digits, NULL); /* rounded as strtod rounds, like every other reader of the figure */
}

/* One line's "name value" (comment and blanks already cut), into t. */
static int parse_line(char *line, const char *where, struct thresholds *t, unsigned *seen, char *err, size_t errlen)
{
    char name[64], value[64], extra[2];
    if (sscanf(line, "%63s %63s %1s", name, value, extra) != 2) {
        snprintf(err, errlen, "%s: expected a threshold's name and its value, as \"min_speedup 1.5\"", where);
        return -1;
    }
    const struct field *f = NULL;
    for (size_t i = 0; i < NFIELDS && !f; i++)
        if (strcmp(fields[i].name, name) == 0)
            f = &fields[i];
    if (!f) {
        snprintf(err, errlen, "%s: '%s' is not a threshold (they are: %s)", where, name, field_names());
        return -1;
    }
    unsigned bit = 1u << (f - fields);
    if (*seen & bit) {
        snprintf(err, errlen, "%s: %s is set a second time (one line each)", where, name);
        return -1;
    }
    *seen |= bit;
    char *at = (char *)t + f->offset;
    if (f->yes_no) {
        int yes = strcmp(value, "yes") == 0;
        if (!yes && strcmp(value, "no") != 0) {
            snprintf(err, errlen, "%s: %s is yes or no, not '%s'", where, name, value);
            return -1;
        }
        *(int *)at = yes;
        return 0;
    }
    const char *end;
    double v = plain_decimal(value, &end);
    if (end == value || *end || v > 1e6) {
        snprintf(err, errlen, "%s: %s must be a plain decimal number, as 1.5, not '%s'", where, name, value);
        return -1;
    }
    if (v == 0) {
        snprintf(err, errlen, "%s: %s 0 is no rule: leave the line out instead", where, name);
        return -1;
    }
    if (f->scale == 100 && strcmp(name, "min_limit_share") != 0 && v > 1) {
        snprintf(err, errlen, "%s: %s is a share, at most 1 (0.01 is 1%%), not '%s'", where, name, value);
        return -1;
    }
    *(double *)at = v;
    return 0;
}

int thresholds_parse(const char *text, const char *name, struct thresholds *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    unsigned seen = 0;
    int lineno = 1;
    for (const char *p = text; *p; lineno++) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char line[256], where[320];
        if (len >= sizeof line) {
            snprintf(err, errlen, "%s line %d: longer than %zu characters", name, lineno, sizeof line - 1);
            return -1;
        }
        memcpy(line, p, len);
        line[len] = '\0';
        line[strcspn(line, "#")] = '\0';
        snprintf(where, sizeof where, "%s line %d", name, lineno);
        if (line[strspn(line, " \t\r")] && parse_line(line, where, t, &seen, err, errlen) != 0)
            return -1;
        p += len + (end != NULL);
    }
    if (!(t->min_speedup > 0)) {
        snprintf(err, errlen, "%s: min_speedup is missing (every lesson's speed case needs it, above 0)", name);
        return -1;
    }
    return 0;
}

static int parse_thresholds(const char *text, const char *name, void *t, char *err, size_t errlen)
{
    return thresholds_parse(text, name, t, err, errlen);
}

int thresholds_load(const char *path, struct thresholds *t, char *err, size_t errlen)
{
    return parse_text_file(path, parse_thresholds, t, "%s cannot be read: the lesson's thresholds are missing", err,
                           errlen);
}
