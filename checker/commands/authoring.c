/* What the builds and the workbook's own tests use (commands.h): the lesson files' rules and
 * the gate on what the compiler made of them, compiler logs as file:line, the author check, the
 * wrong kernels. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backup.h"
#include "bankmap.h"
#include "hints.h"
#include "lint.h"
#include "objgate.h"
#include "mutant.h"
#include "quiz.h"
#include "rng.h"
#include "registry.h"
#include "results.h"
#include "state.h"
#include "student_lines.h"
#include "textfile.h"
#include "thresholds.h"

#include "commands.h"

/* ---- lint ---- */

/* The rules of lint.h, said as file:line like a compiler's error. */
int cmd_lint(const char *source, const char *kernel, const char *shown)
{
    char *text = read_text_file(source);
    if (!text) {
        printf("%s: cannot be read (%s)\n", shown, strerror(errno));
        return 1;
    }
    struct lint_problem p;
    int bad = lint_kernel_source(text, kernel, &p);
    free(text);
    if (bad)
        printf("%s:%d: error: %s\n", shown, p.line, p.message);
    return bad;
}

/* ---- gate ---- */

/* The gate on a compiled lesson file (objgate.h: a cubin), said as `file: error: ...`. */
int cmd_gate(const char *kind, const char *object, const char *kernel, const char *family, const char *source)
{
    char msg[700];
    if (strcmp(kind, "cubin") != 0) {
        printf("%s: error: the gate reads cubins, not '%s'\n", source, kind);
        return 1;
    }
    const struct family *f = family_named(family);
    if (!f) {
        printf("%s: error: lessons/registry names the family '%s', which checker/families/ lacks (%s)\n", source,
               family, family_names());
        return 1;
    }
    if (gate_object(object, kernel, f, msg, sizeof msg) == 0)
        return 0;
    printf("%s: error: %s\n", source, msg);
    return 1;
}

/* ---- compile-report ---- */

/* nvcc writes "file(12): error: ..." followed by the source line and a caret. Editors and
 * people read "file:12: error: ...", so rewrite those lines and keep the rest as they are,
 * minus the compiler's own boilerplate. Returns the number of diagnostics shown. */
int cmd_compile_report(const char *source, const char *log)
{
    FILE *f = fopen(log, "r");
    if (!f)
        return 0;
    char line[2048];
    int shown = 0, blank = 0;
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "Remark: The warnings can be suppressed") || strstr(line, "detected in the compilation of"))
            continue;
        if (line[strspn(line, " \t\r\n")] == '\0') {
            blank = 1; /* printed only if more text follows: no trailing or doubled blank lines */
            continue;
        }
        if (blank && shown)
            putchar('\n');
        blank = 0;
        /* nvcc names the file as it found it through -I., i.e. with a leading "./". */
        char *name = strncmp(line, "./", 2) == 0 && strncmp(source, "./", 2) != 0 ? line + 2 : line;
        char *paren = strncmp(name, source, strlen(source)) == 0 ? name + strlen(source) : NULL;
        int lineno;
        char rest[2048];
        if (paren && sscanf(paren, "(%d): %2047[^\n]", &lineno, rest) == 2) {
            printf("%s:%d: %s\n", source, lineno, rest);
            shown++;
        } else {
            fputs(line, stdout);
        }
    }
    fclose(f);
    return shown;
}

/* ---- author-check ---- */

int load_quiz(const struct lesson *l, struct quiz *quiz);

/* The first `//` comment line of a stub that states a bank conflict ("a 32-way bank conflict"):
 * it says what the code does now and turns false once the student fixes it. A stub's comments
 * say what to do and why. Returns its line number, or 0. */
static int stale_stub_comment(const char *text)
{
    int line = 1;
    for (const char *p = text; *p; line++) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *c = p + strspn(p, " \t");
        if (strncmp(c, "//", 2) == 0 && (memmem(c, len - (size_t)(c - p), "-way", 4) ||
                                          memmem(c, len - (size_t)(c - p), "conflict", 8)))
            return line;
        p += len + (end != NULL);
    }
    return 0;
}

/* Says what is wrong with one kernel file, or nothing. Returns the number of problems. */
static int check_kernel_file(const char *path, const char *kernel, int stub)
{
    char *text = read_text_file(path);
    if (!text) {
        printf("  %s is missing\n", path);
        return 1;
    }
    int has_todo = strstr(text, "TODO") != NULL;
    struct lint_problem p;
    int bad = lint_kernel_source(text, kernel, &p);
    if (bad)
        printf("  %s:%d: %s\n", path, p.line, p.message);
    const struct {
        int wrong;
        const char *what;
    } rules[] = {
        {stub && !has_todo, "is a stub without a TODO: what is the student to change?"},
        {!stub && has_todo, "is a solution with a TODO left in it"},
    };
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i].wrong) {
            printf("  %s %s\n", path, rules[i].what);
            bad++;
        }
    int stale = stub ? stale_stub_comment(text) : 0;
    if (stale) {
        printf("  %s:%d: this comment states a bank conflict the student is about to remove, so it turns false "
               "with the fix: say what to do and why instead\n", path, stale);
        bad++;
    }
    free(text);
    return bad;
}

/* The stub's CONTRACT comment against the solution's (hints.h). Returns the number of problems. */
static int contract_check(const char *stub, const char *solution)
{
    char *a = read_text_file(stub), *b = read_text_file(solution);
    int line = a && b ? contract_mismatch(a, b) : 0;
    if (line < 0)
        printf("  %s or %s does not open with its CONTRACT comment\n", stub, solution);
    else if (line > 0)
        printf("  %s:%d: the CONTRACT comment differs from %s's there: it has one wording, in both files\n", stub,
               line, solution);
    free(a);
    free(b);
    return line != 0;
}

/* The stub's CONTRACT names the kernel the judges look for: the family's parameters, which the
 * student copies. Returns the number of problems. */
static int signature_check(const char *stub, const struct lesson *l)
{
    char *text = read_text_file(stub), said[512];
    int rc = text ? contract_signature_mismatch(text, l->kernel, l->family->params, said, sizeof said) : 0;
    if (rc < 0)
        printf("  %s: its CONTRACT has no Signature entry (\"Signature  __global__ void %s(%s);\")\n", stub, l->kernel,
               l->family->params);
    else if (rc > 0)
        printf("  %s: its CONTRACT's Signature says \"%s\", but the judges look for __global__ void %s(%s) (the "
               "family %s's parameters, checker/families/)\n", stub, said, l->kernel, l->family->params,
               l->family->name);
    free(text);
    return rc != 0;
}

/* Every lesson folder of lessons/, exercises/ and solutions/ has its line in the registry: one
 * without is never built, checked or handed out, which no author means. Returns the problems. */
static int unregistered_folders(void)
{
    static const char *const tops[] = {"lessons", "exercises", "solutions"};
    int bad = 0;
    for (size_t t = 0; t < sizeof tops / sizeof tops[0]; t++) {
        DIR *d = opendir(tops[t]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char path[600];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", tops[t], e->d_name);
            if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
                continue;
            int i = 0;
            while (i < reg.count && strcmp(reg.lessons[i].folder, e->d_name) != 0)
                i++;
            if (i == reg.count) {
                printf("  %s is a lesson's folder with no line in lessons/registry: add its line (number, folder, "
                       "kernel, family, baseline, points, student lines), or take the folder out\n", path);
                bad++;
            }
        }
        if (d)
            closedir(d);
    }
    return bad;
}

/* What the stub's TODO regions leave to the student of the solution (student_lines.h), against
 * the registry's least; without a solution (a handout), only the regions' marks. The count goes
 * into *measured (-1: not measured). Returns the number of problems. */
static int student_lines_check(const struct lesson *l, const char *stub, const char *solution, int have_solution,
                               int *measured)
{
    char *a = read_text_file(stub), *b = have_solution ? read_text_file(solution) : NULL;
    struct student_lines m;
    char err[300];
    int bad = 0;
    *measured = -1;
    if (!a || (have_solution && !b)) {
        free(a);
        free(b);
        return 0; /* check_kernel_file says that it is missing */
    }
    if (student_lines_measure(a, b ? b : a, &m, err, sizeof err) != 0) {
        printf("  %s: %s\n", stub, err);
        bad++;
    } else if (have_solution) {
        *measured = m.inside;
        if (m.inside < l->student_lines) {
            printf("  %s leaves the student %d line%s of %s to write inside its TODO regions, where lessons/registry "
                   "asks at least %d: %s\n",
                   stub, m.inside, m.inside == 1 ? "" : "s", solution, l->student_lines,
                   m.inside < STUDENT_LINES_FLOOR ? "one expression is no exercise; widen the TODO region to what the "
                                                    "student should write (a tile's loads and stores, a loop), and take "
                                                    "it out of the stub"
                                                  : "widen the TODO regions, or lower the registry's number to what "
                                                    "the lesson really asks");
            bad++;
        }
    }
    free(a);
    free(b);
    return bad;
}

/* A handout (make handout) has no solutions/: its stubs, baselines and texts are still checked. */
int cmd_author_check(void)
{
    int bad = 0, have_solutions = file_exists("solutions");
    char measured_text[40 * MAX_LESSONS] = "";
    char *overview = read_text_file("README.md"); /* its table of lessons */
    for (int i = 0; i < reg.count; i++) {
        const struct lesson *l = &reg.lessons[i];
        char stub[512], solution[512], readme[512], cases[512], base[256];
        if (have_solutions && l->number != i + 1) {
            printf("  lessons/registry: lesson %d where lesson %d was expected (number them 1, 2, 3, ...)\n", l->number,
                   i + 1);
            bad++;
        }
        path_of(stub, sizeof stub, "exercises", l);
        path_of(solution, sizeof solution, "solutions", l);
        snprintf(readme, sizeof readme, "lessons/%s/README.md", l->folder);
        snprintf(cases, sizeof cases, "lessons/%s/check.c", l->folder);
        bad += check_kernel_file(stub, l->kernel, 1);
        if (have_solutions)
            bad += check_kernel_file(solution, l->kernel, 0);
        const char *name = strrchr(l->baseline, '/') ? strrchr(l->baseline, '/') + 1 : l->baseline;
        snprintf(base, sizeof base, "%.*s", (int)(strlen(name) - 3), name);
        if (strcmp(l->baseline, stub) != 0) /* a stub that is its lesson's baseline is checked as a stub above */
            bad += check_kernel_file(l->baseline, base, 0);
        if (have_solutions && same_content(stub, solution)) {
            printf("  %s is already solved: it is the same as %s\n", stub, solution);
            bad++;
        }
        if (have_solutions)
            bad += contract_check(stub, solution);
        bad += signature_check(stub, l);
        int measured;
        bad += student_lines_check(l, stub, solution, have_solutions, &measured);
        if (measured >= 0)
            snprintf(measured_text + strlen(measured_text), sizeof measured_text - strlen(measured_text), "%s%d: %d",
                     measured_text[0] ? ", " : "", l->number, measured);
        if (!file_exists(cases)) {
            printf("  %s is missing: the lesson has no check\n", cases);
            bad++;
        }
        char hints_path[512];
        snprintf(hints_path, sizeof hints_path, "lessons/%s/hints.md", l->folder);
        char *text = read_text_file(readme), *hints = read_text_file(hints_path);
        const char *misplaced = text ? hints_misplaced(text, hints) : "is missing";
        if (misplaced) {
            printf("  %s %s\n", readme, misplaced);
            bad++;
        }
        if (text)
            bad += predictions_folded_check(text, readme, stdout);
        bad += lesson_text_check(text, readme, hints, hints_path, stdout);
        /* The line numbers the texts quote from the lesson's files, each against its marker. */
        struct line_source src = {lesson_file_text, &reg};
        if (text)
            bad += line_quotes_check(text, readme, &src, stdout);
        /* The thresholds, in their one home, and the README's quotes of them. */
        char limits_path[512], err[600];
        struct thresholds limits;
        snprintf(limits_path, sizeof limits_path, "lessons/%s/thresholds", l->folder);
        if (thresholds_load(limits_path, &limits, err, sizeof err) != 0) {
            printf("  %s\n", err);
            bad++;
        } else {
            if (text)
                bad += threshold_quotes_check(text, readme, &limits, limits_path, stdout);
            if (overview)
                bad += threshold_row_check(overview, "README.md", l->number, l->folder, &limits, limits_path,
                                           have_solutions, stdout);
        }
        if (hints)
            bad += line_quotes_check(hints, hints_path, &src, stdout);
        free(text);
        free(hints);
        static struct quiz quiz;
        if (load_quiz(l, &quiz) != 0 || quiz.count < 5) {
            printf("  lessons/%s/quiz.txt needs at least 5 questions that parse\n", l->folder);
            bad++;
        }
    }
    bad += unregistered_folders();
    if (measured_text[0])
        printf("Lines of each solution the stub's TODO regions leave to the student (lesson: lines): %s.\n",
               measured_text);
    if (bad)
        printf("author check: %d problem%s in the lessons above.\n", bad, bad == 1 ? "" : "s");
    else
        printf("author check: %d lessons complete; %s.\n", reg.count,
               have_solutions ? "no stub is already solved" : "no solutions/ here (a handout), so none compared");
    free(overview);
    return bad ? 1 : 0;
}

/* ---- mutate ---- */

int cmd_mutate(const char *file, const char *dir)
{
    char err[1400], outdir[1024], out[1200];
    struct mutant m;
    char *mutated = mutant_make(file, &reg, &m, err, sizeof err);
    const struct lesson *l = mutated ? registry_find(&reg, m.lesson) : NULL;
    int rc = 1;
    if (mutated) {
        snprintf(outdir, sizeof outdir, "%s/%s", dir, l->folder);
        path_of(out, sizeof out, dir, l);
        FILE *f = make_dirs(outdir) == 0 ? fopen(out, "w") : NULL;
        if (f) {
            const char *name = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
            fprintf(f, "// MUTANT %s: %s\n%s", name, m.what, mutated);
            rc = fclose(f) == 0 ? 0 : 1;
        }
        if (rc)
            snprintf(err, sizeof err, "cannot write %s", out);
    }
    mutant_free(&m);
    if (rc)
        fprintf(stderr, "%s: %s\n", file, err);
    free(mutated);
    return rc;
}
