/* `workbook cases [--fields NAME,...] [WHAT...]`: every case the workbook's own tests grade, one
 * line each, so that the scripts that grade them (checker/tools/run-cases.py, calibrate.sh) read
 * no file format themselves. WHAT: lessons (each solution must pass, each stub fail), features
 * (right kernels of checker/tests/features/), mutants (checker/mutants/), redteam
 * (checker/redteam/), or a case's name; none: all four kinds. --fields: the columns named, in
 * that order (a reader names what it reads, and never counts columns); without it, all of them.
 *
 * Columns, tab-separated, "-" where empty (no field holds a tab: mutant_parse refuses one):
 *   kind      solution | stub | feature | mutant | attack
 *   name      the case's name (a lesson's folder for solution and stub)
 *   lesson    N
 *   source    what is graded: solutions, exercises, the feature's folder or the .mutant file
 *   expect    pass | fail | the phrase the report must hold ("a | b": either)
 *   unlinted  attack: the phrase with the lint skipped
 *   only      emulator | gpu: the judge that can see the mistake
 *   needs     a gate (SANITIZE, PROFILE) with which a GPU sees it after all
 *   timeout   the emulator's CPU seconds per case
 *   every     yes | gpu: every case runs, not only up to the first failure
 *   sentinel  attack: a file it tries to make
 *   may_pass  yes: an attack with nothing to act on may pass, if it did nothing
 *   calibrates yes: calibrate.sh times it beside the solution
 *   what      what is wrong with it (mutant, attack), for docs/mutants.md's table
 *   file      the lesson's file within a hand-in: NN_topic/KERNEL.cu
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "mutant.h"
#include "textfile.h"

#define MUTANTS "checker/mutants"
#define REDTEAM "checker/redteam"
#define FEATURES "checker/tests/features"

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

/* The columns, by name, in their order (the comment above says what each holds). */
enum { KIND, NAME, LESSON, SOURCE, EXPECT, UNLINTED, ONLY, NEEDS, TIMEOUT, EVERY, SENTINEL, MAY_PASS, CALIBRATES,
       WHAT, FILE_IN_HANDIN, NCOLUMNS };
static const char *const column_names[NCOLUMNS] = {"kind", "name", "lesson", "source", "expect", "unlinted", "only",
                                                   "needs", "timeout", "every", "sentinel", "may_pass", "calibrates",
                                                   "what", "file"};
static int shown[NCOLUMNS], nshown; /* --fields: the columns printed, in order */

/* NAME,NAME...: the columns to print; 0, or -1 with the cause said. */
static int pick_fields(const char *list)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%s", list);
    nshown = 0;
    for (char *save = NULL, *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        int c = 0;
        while (c < NCOLUMNS && strcmp(column_names[c], f) != 0)
            c++;
        if (nshown == NCOLUMNS) {
            fprintf(stderr, "workbook cases: --fields names more than the %d columns there are\n", NCOLUMNS);
            return -1;
        }
        if (c == NCOLUMNS) {
            fprintf(stderr, "workbook cases: no column named '%s' (columns:", f);
            for (int k = 0; k < NCOLUMNS; k++)
                fprintf(stderr, " %s", column_names[k]);
            fprintf(stderr, ")\n");
            return -1;
        }
        shown[nshown++] = c;
    }
    return nshown ? 0 : (fprintf(stderr, "workbook cases: --fields names no column\n"), -1);
}

/* One case's row: its columns (NULL or "" printed as "-"), those --fields picked. */
static void print_row(const char *const col[NCOLUMNS])
{
    for (int i = 0; i < nshown; i++)
        printf("%s%s", i ? "\t" : "", or_dash(col[shown[i]]));
    printf("\n");
}

/* A row with the columns every kind has; the rest empty. */
static void plain_row(const char *kind, const char *name, int lesson, const char *source, const char *expect,
                      const struct lesson *l)
{
    char number[16], file[300];
    snprintf(number, sizeof number, "%d", lesson);
    snprintf(file, sizeof file, "%s/%s.cu", l->folder, l->kernel);
    const char *col[NCOLUMNS] = {[KIND] = kind, [NAME] = name, [LESSON] = number, [SOURCE] = source,
                                 [EXPECT] = expect, [FILE_IN_HANDIN] = file};
    print_row(col);
}

/* Which of the command line's words picked at least one case. */
static char matched[64];

static int wanted(int argc, char **argv, const char *kind_word, const char *name)
{
    int yes = argc == 0;
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], kind_word) == 0 || strcmp(argv[i], name) == 0)
            yes = matched[i < 64 ? i : 63] = 1;
    return yes;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of dir whose names end in suffix ("" and dirs_only: the folders), sorted;
 * malloc'd names, their count in *n; *n is -1 (said) where the folder cannot be read. */
static char **listing(const char *dir, const char *suffix, int dirs_only, int *n)
{
    DIR *d = opendir(dir);
    char **names = NULL;
    *n = 0;
    if (!d) {
        fprintf(stderr, "workbook cases: cannot read %s\n", dir);
        *n = -1;
        return NULL;
    }
    size_t sl = strlen(suffix);
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len <= sl || strcmp(e->d_name + len - sl, suffix) != 0)
            continue;
        if (dirs_only && e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
            continue;
        char **grown = realloc(names, (size_t)(*n + 1) * sizeof *names);
        if (!grown)
            break;
        names = grown;
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (names)
        qsort(names, (size_t)*n, sizeof *names, by_name);
    return names;
}

static void free_listing(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* One folder of .mutant files, as kind's rows. Returns the number of files it could not read. */
static int mutant_rows(const char *dir, const char *kind, const char *kind_word, int argc, char **argv)
{
    int n, bad = 0;
    char **files = listing(dir, ".mutant", 0, &n);
    if (n < 0)
        return 1;
    for (int i = 0; i < n; i++) {
        char name[256], path[512], err[512];
        snprintf(name, sizeof name, "%.*s", (int)(strlen(files[i]) - strlen(".mutant")), files[i]);
        if (!wanted(argc, argv, kind_word, name))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        char *text = read_text_file(path);
        struct mutant m;
        const struct lesson *l = NULL;
        int parsed = text && mutant_parse(text, &m, err, sizeof err) == 0;
        if (parsed && !(l = registry_find(&reg, m.lesson)))
            snprintf(err, sizeof err, "lesson %d is not in lessons/registry", m.lesson);
        else if (parsed && strcmp(kind, "attack") == 0 && !m.expect_unlinted[0])
            snprintf(err, sizeof err, "an attack needs expect-unlinted: (what the layers below the lint must say)"), l = NULL;
        if (parsed && !l)
            mutant_free(&m);
        if (!l) {
            fprintf(stderr, "%s: %s\n", path, text ? err : "cannot read it");
            bad++;
        } else {
            char number[16], timeout[16], file[300];
            snprintf(number, sizeof number, "%d", m.lesson);
            snprintf(timeout, sizeof timeout, "%d", m.timeout);
            snprintf(file, sizeof file, "%s/%s.cu", l->folder, l->kernel);
            const char *col[NCOLUMNS] = {kind, name, number, path, m.expect, m.expect_unlinted, m.only, m.gpu_needs,
                                         m.timeout ? timeout : NULL, m.every_case, m.sentinel,
                                         m.may_pass[0] ? "yes" : NULL, m.calibrates ? "yes" : NULL, m.what, file};
            print_row(col);
            mutant_free(&m);
        }
        free(text);
    }
    free_listing(files, n);
    return bad;
}

/* Each feature folder holds one lesson's folder (NN_topic) with a right kernel in it. */
static int feature_rows(int argc, char **argv)
{
    int n, bad = 0;
    char **names = listing(FEATURES, "", 1, &n);
    if (n < 0)
        return 1;
    for (int i = 0; i < n; i++) {
        if (!wanted(argc, argv, "features", names[i]))
            continue;
        char dir[512];
        snprintf(dir, sizeof dir, "%s/%s", FEATURES, names[i]);
        int m, lesson = 0;
        char **inner = listing(dir, "", 1, &m);
        const struct lesson *l = m == 1 ? registry_find(&reg, atoi(inner[0])) : NULL;
        if (l && strcmp(inner[0], l->folder) == 0)
            lesson = l->number;
        if (lesson < 1) {
            fprintf(stderr, "%s holds no lesson's folder (NN_topic of lessons/registry) alone\n", dir);
            bad++;
        } else
            plain_row("feature", names[i], lesson, dir, "pass", registry_find(&reg, lesson));
        free_listing(inner, m > 0 ? m : 0);
    }
    free_listing(names, n);
    return bad;
}

int cmd_cases(int argc, char **argv)
{
    int bad = 0, have_solutions = file_exists("solutions");
    nshown = NCOLUMNS;
    for (int c = 0; c < NCOLUMNS; c++)
        shown[c] = c;
    if (argc >= 2 && strcmp(argv[0], "--fields") == 0) {
        if (pick_fields(argv[1]) != 0)
            return 2;
        argc -= 2, argv += 2;
    }
    if (argc > 64) {
        fprintf(stderr, "workbook cases: at most 64 names at once\n");
        return 2;
    }
    /* A kind asked for is no mistake where it has no case (a handout has no mutants). */
    for (int i = 0; i < argc; i++)
        matched[i] = strcmp(argv[i], "lessons") == 0 || strcmp(argv[i], "features") == 0 ||
                     strcmp(argv[i], "mutants") == 0 || strcmp(argv[i], "redteam") == 0;
    for (int i = 0; i < reg.count; i++) {
        const struct lesson *l = &reg.lessons[i];
        if (have_solutions && wanted(argc, argv, "lessons", l->folder))
            plain_row("solution", l->folder, l->number, "solutions", "pass", l);
        if (wanted(argc, argv, "lessons", l->folder))
            plain_row("stub", l->folder, l->number, "exercises", "fail", l);
    }
    if (file_exists(FEATURES))
        bad += feature_rows(argc, argv);
    if (file_exists(MUTANTS))
        bad += mutant_rows(MUTANTS, "mutant", "mutants", argc, argv);
    if (file_exists(REDTEAM))
        bad += mutant_rows(REDTEAM, "attack", "redteam", argc, argv);
    for (int i = 0; i < argc; i++)
        if (!matched[i]) {
            fprintf(stderr, "workbook cases: no case or kind named '%s' (kinds: lessons, features, mutants, redteam)\n", argv[i]);
            bad++;
        }
    return bad ? 1 : 0;
}
