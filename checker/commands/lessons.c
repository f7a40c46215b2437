/* `workbook lessons`: lessons/registry for the Makefile and the scripts, which read it through
 * this command alone (checker/src/formats/registry.c is the registry's one reader).
 *   workbook lessons FIELD...             a line per lesson, in teaching order: its FIELDs
 *   workbook lessons --lesson N FIELD...  lesson N's line alone
 *   workbook lessons --sum FIELD          a numeric field added up over the lessons
 *   workbook lessons --make               the registry as make's variables (build/lessons.mk)
 *   workbook lessons --subset N[=PATH]... the registry's text with lessons N... alone, PATH the
 *                                         new baseline of those given one (a handout's registry)
 * Fields: the registry's columns, number folder kernel family baseline points student_lines, with the
 * baseline column ([FAMILY:]PATH) split in two: baseline is its PATH, baseline_family its
 * FAMILY (the lesson's family where none is given). --registry FILE reads another registry (a
 * handout's). Bad input is refused in one sentence on stderr, with exit status 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "textfile.h"

enum field { NUMBER, FOLDER, KERNEL, FAMILY, BASELINE, POINTS, STUDENT_LINES, BASELINE_FAMILY, NFIELDS };
static const char *const FIELD_NAMES[NFIELDS] = {"number", "folder", "kernel", "family", "baseline", "points",
                                                 "student_lines", "baseline_family"};

static int usage(void)
{
    fprintf(stderr, "usage: workbook lessons [--registry FILE] [--lesson N] FIELD... | --sum FIELD | --make | "
                    "--subset N[=BASELINE]... (fields:");
    for (int f = 0; f < NFIELDS; f++)
        fprintf(stderr, " %s", FIELD_NAMES[f]);
    fprintf(stderr, ")\n");
    return 2;
}

static int field_named(const char *name, const char *path)
{
    for (int f = 0; f < NFIELDS; f++)
        if (strcmp(name, FIELD_NAMES[f]) == 0)
            return f;
    fprintf(stderr, "There is no field '%s' in a lesson of %s (its fields:", name, path);
    for (int f = 0; f < NFIELDS; f++)
        fprintf(stderr, " %s", FIELD_NAMES[f]);
    fprintf(stderr, ").\n");
    return -1;
}

/* Field f of lesson l; numbers are written into buf. */
static const char *value_of(const struct lesson *l, enum field f, char *buf, size_t len)
{
    switch (f) {
    case NUMBER:
        snprintf(buf, len, "%d", l->number);
        return buf;
    case POINTS:
        snprintf(buf, len, "%d", l->points);
        return buf;
    case STUDENT_LINES:
        snprintf(buf, len, "%d", l->student_lines);
        return buf;
    case FOLDER:
        return l->folder;
    case KERNEL:
        return l->kernel;
    case FAMILY:
        return l->family->name;
    case BASELINE:
        return l->baseline;
    default:
        return l->baseline_family->name;
    }
}

static int print_fields(const struct lesson *only, int sum, int argc, char **argv, const char *path)
{
    enum field *fields = calloc((size_t)argc, sizeof *fields);
    for (int i = 0; i < argc; i++) {
        int f = field_named(argv[i], path);
        if (f < 0) {
            free(fields);
            return 2;
        }
        fields[i] = (enum field)f;
    }
    if (sum && fields[0] != NUMBER && fields[0] != POINTS) {
        fprintf(stderr, "--sum adds up number or points, not a lesson's %s.\n", argv[0]);
        free(fields);
        return 2;
    }
    int total = 0;
    for (int i = 0; i < reg.count; i++) {
        const struct lesson *l = &reg.lessons[i];
        char buf[16];
        if (only && l != only)
            continue;
        if (sum) {
            total += fields[0] == NUMBER ? l->number : l->points;
            continue;
        }
        for (int k = 0; k < argc; k++)
            printf("%s%s", k ? " " : "", value_of(l, fields[k], buf, sizeof buf));
        printf("\n");
    }
    if (sum)
        printf("%d\n", total);
    free(fields);
    return 0;
}

/* What make takes as it is in a file name and in a variable's value. */
static int make_safe(const char *s)
{
    return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+/-") == strlen(s);
}

/* The registry as make's variables: LESSONS, TOTAL_POINTS, and lesson N's fields as lessonN_FIELD. */
static int print_make(const char *path)
{
    char buf[16];
    for (int i = 0; i < reg.count; i++)
        for (int f = 0; f < NFIELDS; f++) {
            const char *v = value_of(&reg.lessons[i], (enum field)f, buf, sizeof buf);
            if (!make_safe(v)) {
                fprintf(stderr, "%s: lesson %d's %s '%s' has a character make cannot take in a file name "
                                "(letters, digits and ._+/- only).\n",
                        path, reg.lessons[i].number, FIELD_NAMES[f], v);
                return 2;
            }
        }
    printf("# %s as make's variables (workbook lessons --make)\nLESSONS :=", path);
    for (int i = 0; i < reg.count; i++)
        printf(" %d", reg.lessons[i].number);
    printf("\nTOTAL_POINTS := %d\n", registry_total_points(&reg));
    for (int i = 0; i < reg.count; i++)
        for (int f = FOLDER; f < NFIELDS; f++)
            printf("lesson%d_%s := %s\n", reg.lessons[i].number, FIELD_NAMES[f],
                   value_of(&reg.lessons[i], (enum field)f, buf, sizeof buf));
    return 0;
}

/* The registry's text with the lessons argv names alone ("N", or "N=PATH": PATH its baseline). */
static int print_subset(int argc, char **argv, const char *path)
{
    static struct registry kept, written;
    const char *baseline[MAX_LESSONS] = {0};
    int chosen[MAX_LESSONS] = {0};
    for (int i = 0; i < argc; i++) {
        char number[16];
        size_t len = strcspn(argv[i], "=");
        snprintf(number, sizeof number, "%.*s", (int)(len < sizeof number ? len : sizeof number - 1), argv[i]);
        const struct lesson *l = lesson_arg(number);
        if (!l)
            return 2;
        chosen[l - reg.lessons] = 1;
        baseline[l - reg.lessons] = argv[i][len] == '=' ? argv[i] + len + 1 : NULL;
    }
    for (int i = 0; i < reg.count; i++) {
        if (!chosen[i])
            continue;
        struct lesson *l = &kept.lessons[kept.count++];
        *l = reg.lessons[i];
        if (baseline[i] && snprintf(l->baseline, sizeof l->baseline, "%s", baseline[i]) >= (int)sizeof l->baseline) {
            fprintf(stderr, "Lesson %d's new baseline is longer than %zu characters: %s\n", l->number,
                    sizeof l->baseline - 1, baseline[i]);
            return 2;
        }
    }
    char *text = read_text_file(path), *out = NULL;
    size_t size = 0;
    FILE *f = text ? open_memstream(&out, &size) : NULL;
    if (!f) {
        fprintf(stderr, "Cannot write the registry of the lessons asked for: %s is gone, or memory is.\n", path);
        free(text);
        return 2;
    }
    registry_write(f, text, &kept);
    fclose(f);
    free(text);
    /* A new baseline is held to the registry's rules like any other. */
    char err[512];
    int rc = registry_parse(out, "the registry written", &written, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    else
        fputs(out, stdout);
    free(out);
    return rc ? 2 : 0;
}

int cmd_lessons(int argc, char **argv)
{
    const char *path = REGISTRY, *lesson = NULL, *mode = "";
    while (argc > 0 && strncmp(argv[0], "--", 2) == 0 && strcmp(mode, "--subset") != 0) {
        int takes_value = strcmp(argv[0], "--registry") == 0 || strcmp(argv[0], "--lesson") == 0;
        if (takes_value && argc < 2)
            return usage();
        if (strcmp(argv[0], "--registry") == 0)
            path = argv[1];
        else if (strcmp(argv[0], "--lesson") == 0)
            lesson = argv[1];
        else if (strcmp(argv[0], "--sum") == 0 || strcmp(argv[0], "--make") == 0 || strcmp(argv[0], "--subset") == 0)
            mode = argv[0];
        else
            return usage();
        argc -= takes_value ? 2 : 1;
        argv += takes_value ? 2 : 1;
    }
    char err[512];
    if (registry_load(path, &reg, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (strcmp(mode, "--make") == 0)
        return argc == 0 && !lesson ? print_make(path) : usage();
    if (strcmp(mode, "--subset") == 0)
        return argc > 0 && !lesson ? print_subset(argc, argv, path) : usage();
    int sum = strcmp(mode, "--sum") == 0;
    if (argc == 0 || (sum && argc != 1))
        return usage();
    const struct lesson *only = NULL;
    if (lesson && !(only = lesson_arg(lesson)))
        return 2;
    return print_fields(only, sum, argc, argv, path);
}
