/* workbook: the student-facing commands behind the Makefile's targets.
 *
 *   workbook select N                 make lessonN: remember N, create the student's copy
 *   workbook check SRC EXPECT N...    make check: build and run each lesson's check, then Score
 *   workbook grade SRC DIR N...       make grade: the same into DIR as results.json, junit.xml, summary
 *   workbook status                   make status
 *   workbook hint N                   make hint: the next hint of lesson N
 *   workbook reset N                  make reset: keep a copy of the student's file, restore the stub
 *   workbook lint SRC KERNEL          the lesson files' rules (kernels only), before compiling
 *   workbook compile-report SRC LOG   show a compiler log as the student's file:line messages
 *   workbook author-check             every lesson complete, no stub already solved (make test)
 *   workbook mutate FILE DIR          write the wrong kernel FILE (a .mutant) describes into DIR
 *   workbook quiz N                   make quiz: lesson N's questions and fresh bank questions;
 *                                     answers from standard input, one per line
 *   workbook quiz-md N                the questions as Markdown for the lesson's web page
 *   workbook quiz-key N               the right answers of make quiz (same SEED), for tests
 *   workbook bankmap LAYOUT           an SVG of the banks a column read hits (32x32, 32x33, xor)
 *   workbook lesson-list              the lessons as a Markdown list of links (the site's index)
 *
 * Run from the workbook's top folder (the Makefile does). */
#define _GNU_SOURCE
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
#include "textfile.h"

#define REGISTRY "lessons/registry"
#define WORK "work"
#define STATE_FILE WORK "/state"

static struct registry reg;

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int same_content(const char *a, const char *b)
{
    char *x = read_text_file(a), *y = read_text_file(b);
    int same = x && y && strcmp(x, y) == 0;
    free(x);
    free(y);
    return same;
}

static const struct lesson *lesson_arg(const char *s)
{
    char *end;
    long n = strtol(s ? s : "", &end, 10);
    const struct lesson *l = (s && *s && !*end) ? registry_find(&reg, (int)n) : NULL;
    if (!l)
        fprintf(stderr, "There is no lesson '%s': the lessons are 1 to %d (make lessonN picks one).\n", s ? s : "",
                reg.count);
    return l;
}

static void path_of(char *buf, size_t len, const char *top, const struct lesson *l)
{
    snprintf(buf, len, "%s/%s/%s.cu", top, l->folder, l->kernel);
}

static const char *title_of(const struct lesson *l, char *buf, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "lessons/%s/README.md", l->folder);
    char *text = read_text_file(path);
    lesson_title(text ? text : "", buf, len);
    free(text);
    if (!buf[0])
        snprintf(buf, len, "Lesson %d", l->number);
    return buf;
}

static void load_state(struct state *s)
{
    state_load(STATE_FILE, s);
}

static int save_state(const struct state *s)
{
    if (make_dirs(WORK) != 0 || state_save(STATE_FILE, s) != 0) {
        fprintf(stderr, "Cannot write %s: %s\n", STATE_FILE, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- select ---- */

static int cmd_select(const struct lesson *l)
{
    char work[512], stub[512], dir[512], title[256];
    path_of(work, sizeof work, WORK, l);
    path_of(stub, sizeof stub, "exercises", l);
    snprintf(dir, sizeof dir, WORK "/%s", l->folder);
    if (!file_exists(work)) {
        if (make_dirs(dir) != 0 || copy_file(stub, work) != 0) {
            fprintf(stderr, "Cannot copy the stub %s to %s: %s\n", stub, work, strerror(errno));
            return 1;
        }
    }
    struct state s;
    load_state(&s);
    s.current = l->number;
    if (save_state(&s) != 0)
        return 1;
    printf("%s\n", title_of(l, title, sizeof title));
    printf("  Read:   lessons/%s/README.md\n", l->folder);
    printf("  Edit:   %s%s\n", work, same_content(work, stub) ? "   (still the stub)" : "");
    printf("  Then:   make check      (stuck? make hint; start over: make reset; progress: make status)\n");
    return 0;
}

/* ---- check ---- */

struct outcome {
    int not_started; /* the student's copy does not exist yet */
    int built, ran, no_gpu, tests, failed, hung;
    double speed_ms, speedup;
};

/* The build folder for a source folder: build/<SRC with '/' as '_'>. The Makefile's SRC_ID
 * makes the same name. */
static void build_dir(char *buf, size_t len, const char *src)
{
    snprintf(buf, len, "build/");
    size_t n = strlen(buf);
    for (const char *p = src; *p && n + 1 < len; p++)
        if (!(*p == '/' && p[1] == '\0'))
            buf[n++] = *p == '/' ? '_' : *p;
    buf[n] = '\0';
}

/* Where a graded run's report goes (make grade): its text to `log` (appended), cmocka's
 * JUnit XML to `xml`. NULL: the terminal. */
static const char *grade_log, *grade_xml;

/* Runs argv and returns its exit status. With quiet_make, the command's stderr passes through
 * a filter that drops make's "make: *** [target] Error 1" lines: the compile report said it. */
static int run_command(char *const argv[], const char *result_file, int quiet_make)
{
    fflush(NULL);
    int fds[2] = {-1, -1};
    if (quiet_make && pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        if (result_file)
            setenv("WB_RESULT_FILE", result_file, 1);
        if (grade_log) {
            int fd = open(grade_log, O_WRONLY | O_CREAT | O_APPEND, 0666);
            if (fd >= 0) {
                dup2(fd, STDOUT_FILENO);
                dup2(fd, STDERR_FILENO);
                close(fd);
            }
            setenv("CMOCKA_MESSAGE_OUTPUT", "XML", 1);
            setenv("CMOCKA_XML_FILE", grade_xml, 1);
        }
        if (quiet_make) {
            dup2(fds[1], STDERR_FILENO);
            close(fds[0]);
            close(fds[1]);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (quiet_make) {
        close(fds[1]);
        FILE *err = fdopen(fds[0], "r");
        char line[4096];
        while (err && fgets(line, sizeof line, err))
            if (!(strncmp(line, "make", 4) == 0 && strstr(line, ": *** [")))
                fputs(line, stderr);
        if (err)
            fclose(err);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* On a GPU, the emulator's count of the same kernels' memory traffic explains the timings:
 * shown, not graded. WB_EXPLAIN names the emulator's program (the Makefile sets it where
 * clang++ is). Prints the memory-traffic part of its report. */
static void explain(const struct lesson *l, const char *dir, const char *srcarg)
{
    const char *emu = getenv("WB_EXPLAIN"), *fmt = getenv("CMOCKA_MESSAGE_OUTPUT");
    char binary[1024], cmd[2400];
    if (!emu || !*emu || (fmt && *fmt && strcasecmp(fmt, "stdout") != 0)) /* TAP/XML stay clean */
        return;
    if (strcmp(emu, "unavailable") == 0) {
        printf("\n(The CPU emulator would explain these times with exact memory-traffic counts, but it is "
               "unavailable here: it needs clang++ and llvm-symbolizer.)\n");
        return;
    }
    snprintf(binary, sizeof binary, "%s/%s/%s", dir, l->folder, emu);
    const char *make = getenv("MAKE") ? getenv("MAKE") : "make";
    char *build[] = {(char *)make, "-s", "--no-print-directory", (char *)srcarg, binary, NULL};
    if (run_command(build, NULL, 1) != 0)
        return;
    snprintf(cmd, sizeof cmd, "ONLY='memory*' WB_RESULT_FILE= '%s' 2>&1", binary);
    FILE *p = popen(cmd, "r");
    char line[1024];
    int show = 0;
    printf("\nWhy: the same kernels' memory traffic, counted by the CPU emulator (shown, not graded):\n");
    while (p && fgets(line, sizeof line, p)) {
        if (strstr(line, "  Memory traffic at"))
            show = 1;
        if (show && strncmp(line, "  ", 2) == 0 && !strstr(line, "Required:"))
            fputs(line, stdout);
        if (show && line[0] == '[')
            show = 0;
    }
    if (p)
        pclose(p);
}

static struct outcome check_one(const struct lesson *l, const char *src)
{
    struct outcome o = {0};
    char dir[512], binary[1024], result[1024], srcarg[600];
    build_dir(dir, sizeof dir, src);
    /* check (the GPU judge) or check-emu (the emulator): the Makefile says which. */
    const char *judge = getenv("WB_JUDGE") && *getenv("WB_JUDGE") ? getenv("WB_JUDGE") : "check";
    snprintf(binary, sizeof binary, "%s/%s/%s", dir, l->folder, judge);
    snprintf(result, sizeof result, "%s/%s/result", dir, l->folder);
    snprintf(srcarg, sizeof srcarg, "SRC=%s", src);
    const char *make = getenv("MAKE") ? getenv("MAKE") : "make";
    char *build[] = {(char *)make, "-s", "--no-print-directory", srcarg, binary, NULL};
    if (run_command(build, NULL, 1) != 0)
        return o;
    o.built = 1;
    remove(result);
    char *run[] = {binary, NULL};
    run_command(run, result, 0);
    FILE *f = fopen(result, "r");
    if (!f)
        return o;
    int n;
    o.ran = fscanf(f, "lesson %d tests %d failed %d no_gpu %d hung %d speed_ms %lf speedup %lf", &n, &o.tests,
                   &o.failed, &o.no_gpu, &o.hung, &o.speed_ms, &o.speedup) == 7;
    fclose(f);
    if (o.ran && !o.no_gpu && o.speed_ms > 0 && !grade_log)
        explain(l, dir, srcarg);
    return o;
}

static const char *verdict(const struct outcome *o, char *buf, size_t len)
{
    if (o->not_started)
        snprintf(buf, len, "not started (make lessonN)");
    else if (!o->built)
        snprintf(buf, len, "does not build (see above)");
    else if (!o->ran)
        snprintf(buf, len, "the check did not finish");
    else if (o->failed == 0)
        snprintf(buf, len, "passed");
    else if (o->hung)
        snprintf(buf, len, "failed: no answer in time");
    else
        snprintf(buf, len, "failed %d of %d tests", o->failed, o->tests);
    return buf;
}

/* expect: "score" for a student (Score: x/y), "pass" or "fail" for authors' runs over
 * solutions/ or exercises/, which must all pass or all fail. */
static int cmd_check(const char *src, const char *expect, int argc, char **argv)
{
    struct state s;
    int own_work = strcmp(src, WORK) == 0;
    load_state(&s);
    struct outcome out[MAX_LESSONS];
    const struct lesson *ls[MAX_LESSONS];
    int n = 0, score = 0, total = 0, as_expected = 0;
    for (int i = 0; i < argc && n < MAX_LESSONS; i++) {
        const struct lesson *l = lesson_arg(argv[i]);
        if (!l)
            return 2;
        char work[512];
        path_of(work, sizeof work, WORK, l);
        ls[n] = l;
        if (own_work && !file_exists(work)) {
            /* Graded as nothing, and the others still are: LESSON=all midway through the course. */
            printf("%sLesson %d has no %s yet: make lesson%d starts it.\n", n ? "\n" : "", l->number, work, l->number);
            out[n++] = (struct outcome){.not_started = 1};
            continue;
        }
        if (n > 0)
            printf("\n");
        out[n] = check_one(l, src);
        if (out[n].no_gpu)
            return 3; /* the check said why in one sentence; nothing else can be graded either */
        if (own_work && out[n].ran) {
            state_record_check(&s, l->number, out[n].failed == 0, out[n].speed_ms, out[n].speedup);
            save_state(&s);
        }
        n++;
    }
    /* With TAP, SUBUNIT or XML on stdout, the summary must not mix into it. */
    const char *fmt = getenv("CMOCKA_MESSAGE_OUTPUT");
    FILE *sum = fmt && *fmt && strcasecmp(fmt, "stdout") != 0 ? stderr : stdout;
    fprintf(sum, "\n%-22s %-30s %s\n", "Lesson", "Result", "Points");
    for (int i = 0; i < n; i++) {
        char v[64], name[80];
        int passed = out[i].ran && out[i].failed == 0;
        snprintf(name, sizeof name, "%d %s", ls[i]->number, ls[i]->folder);
        fprintf(sum, "%-22s %-30s %d/%d\n", name, verdict(&out[i], v, sizeof v), passed ? ls[i]->points : 0,
                ls[i]->points);
        score += passed ? ls[i]->points : 0;
        total += ls[i]->points;
        as_expected += strcmp(expect, "fail") == 0 ? (out[i].built && out[i].ran && !passed) : passed;
    }
    if (strcmp(expect, "score") == 0) {
        fprintf(sum, "Score: %d/%d\n", score, total);
        return score == total ? 0 : 1;
    }
    fprintf(sum, "%s: %d of %d lessons %s as they must.\n", src, as_expected, n, strcmp(expect, "fail") == 0 ? "failed" : "passed");
    return as_expected == n ? 0 : 1;
}

/* ---- grade ---- */

/* Appends the test suites of a cmocka XML file to out. */
static void copy_testsuites(FILE *out, const char *xml_path)
{
    char *xml = read_text_file(xml_path);
    junit_copy_suites(out, xml);
    free(xml);
}

/* make grade: every lesson graded into OUTDIR as results.json (Gradescope's autograder format),
 * junit.xml (cmocka's test cases, one testsuite per lesson) and summary.txt; the reports of the
 * check programs, which hold anything the kernels printed, stay in lesson-N.log. The verdicts come
 * from the check programs' result files, never from what was printed. */
static int cmd_grade(const char *src, const char *outdir, int argc, char **argv)
{
    char path[1024], log[1024], xml[1024], v[64];
    struct outcome out[MAX_LESSONS];
    const struct lesson *ls[MAX_LESSONS];
    int n = 0, score = 0, total = 0;
    if (make_dirs(outdir) != 0) {
        fprintf(stderr, "Cannot create %s: %s\n", outdir, strerror(errno));
        return 2;
    }
    for (int i = 0; i < argc && n < MAX_LESSONS; i++, n++) {
        if (!(ls[n] = lesson_arg(argv[i])))
            return 2;
        snprintf(log, sizeof log, "%s/lesson-%d.log", outdir, ls[n]->number);
        snprintf(xml, sizeof xml, "%s/lesson-%d.xml", outdir, ls[n]->number);
        remove(log);
        remove(xml);
        grade_log = log;
        grade_xml = xml;
        out[n] = check_one(ls[n], src);
        grade_log = grade_xml = NULL;
        if (out[n].no_gpu)
            return 3;
    }
    snprintf(path, sizeof path, "%s/results.json", outdir);
    FILE *json = fopen(path, "w");
    snprintf(path, sizeof path, "%s/junit.xml", outdir);
    FILE *junit = fopen(path, "w");
    snprintf(path, sizeof path, "%s/summary.txt", outdir);
    FILE *sum = fopen(path, "w");
    if (!json || !junit || !sum) {
        fprintf(stderr, "Cannot write the results in %s: %s\n", outdir, strerror(errno));
        return 2;
    }
    fprintf(sum, "%-22s %-30s %s\n", "Lesson", "Result", "Points");
    fprintf(json, "{\n  \"tests\": [\n");
    fprintf(junit, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    for (int i = 0; i < n; i++) {
        int passed = out[i].ran && out[i].failed == 0, points = passed ? ls[i]->points : 0;
        char title[256];
        score += points;
        total += ls[i]->points;
        snprintf(log, sizeof log, "%s/lesson-%d.log", outdir, ls[i]->number);
        snprintf(xml, sizeof xml, "%s/lesson-%d.xml", outdir, ls[i]->number);
        char *report = read_text_file(log);
        int skipped = skipped_tests(report);
        if (report && strlen(report) > 20000)
            strcpy(report + 19980, "\n... (cut)\n");
        fprintf(json, "    {\"name\": ");
        json_string(json, title_of(ls[i], title, sizeof title));
        fprintf(json, ", \"number\": \"%d\", \"score\": %d, \"max_score\": %d, \"status\": \"%s\", \"output\": ",
                ls[i]->number, points, ls[i]->points, passed ? "passed" : "failed");
        json_string(json, report ? report : "");
        fprintf(json, "}%s\n", i + 1 < n ? "," : "");
        free(report);
        if (!out[i].ran) /* no cmocka run, no suite of its own: the lesson still shows, as failed */
            fprintf(junit, "  <testsuite name=\"lesson %d (%s)\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\">\n"
                           "    <testcase classname=\"lesson %d\" name=\"build and run\"><failure message=\"%s\"/></testcase>\n"
                           "  </testsuite>\n",
                    ls[i]->number, ls[i]->folder, ls[i]->number, verdict(&out[i], v, sizeof v));
        else
            copy_testsuites(junit, xml);
        char name[80], result[96];
        snprintf(name, sizeof name, "%d %s", ls[i]->number, ls[i]->folder);
        verdict(&out[i], v, sizeof v);
        if (skipped) /* a gate whose tool was missing is not a pass of that gate */
            snprintf(result, sizeof result, "%s, %d test%s skipped", v, skipped, skipped == 1 ? "" : "s");
        else
            snprintf(result, sizeof result, "%s", v);
        fprintf(sum, "%-22s %-30s %d/%d\n", name, result, points, ls[i]->points);
    }
    fprintf(json, "  ],\n  \"score\": %d,\n  \"output\": ", score);
    char line[128];
    snprintf(line, sizeof line, "Score: %d/%d, graded from %s", score, total, src);
    json_string(json, line);
    fprintf(json, "\n}\n");
    fprintf(junit, "</testsuites>\n");
    fprintf(sum, "Score: %d/%d\n", score, total);
    fclose(json);
    fclose(junit);
    fclose(sum);
    snprintf(path, sizeof path, "%s/summary.txt", outdir);
    char *s = read_text_file(path);
    printf("%s(results.json, junit.xml and each lesson's report: %s/)\n", s ? s : "", outdir);
    free(s);
    return 0;
}

/* ---- status ---- */

static int cmd_status(void)
{
    struct state s;
    load_state(&s);
    printf("  %-22s %-11s %-11s %-9s %s\n", "Lesson", "Status", "Best time", "Speed-up", "Hints seen");
    for (int i = 0; i < reg.count; i++) {
        const struct lesson *l = &reg.lessons[i];
        const struct lesson_state *ls = &s.lesson[l->number];
        char name[80], best[24] = "-", speed[24] = "-", work[512];
        path_of(work, sizeof work, WORK, l);
        const char *status = ls->passed            ? "passed"
                             : ls->ever_passed     ? "passed once"
                             : ls->checks > 0      ? "not yet"
                             : file_exists(work)   ? "started"
                                                   : "-";
        if (ls->best_ms > 0) {
            snprintf(best, sizeof best, "%.3f ms", ls->best_ms);
            snprintf(speed, sizeof speed, "%.2fx", ls->best_speedup);
        }
        snprintf(name, sizeof name, "%d %s", l->number, l->folder);
        printf("%s %-22s %-11s %-11s %-9s %d\n", l->number == s.current ? ">" : " ", name, status, best, speed,
               ls->hints_shown);
    }
    printf("(> is the selected lesson. Best time, on a GPU only: your fastest correct kernel at the speed\n"
           " check's size; speed-up: over that lesson's baseline, in the same run.)\n");
    return 0;
}

/* ---- hint ---- */

static int cmd_hint(const struct lesson *l)
{
    char path[512];
    snprintf(path, sizeof path, "lessons/%s/README.md", l->folder);
    char *text = read_text_file(path);
    struct hints h;
    if (!text || hints_find(text, &h) == 0) {
        printf("Lesson %d has no hints in %s.\n", l->number, path);
        free(text);
        return 1;
    }
    struct state s;
    load_state(&s);
    int k = s.lesson[l->number].hints_shown; /* the next one, 0-based */
    if (k >= h.count)
        k = h.count - 1;
    printf("%.*s\n\n", (int)h.len[k], h.start[k]);
    if (k + 1 < h.count)
        printf("(Hint %d of %d; `make hint` again for a stronger one.)\n", k + 1, h.count);
    else
        printf("(That was the last hint; lessons/%s/README.md derives the whole kernel.)\n", l->folder);
    if (s.lesson[l->number].hints_shown < h.count) {
        s.lesson[l->number].hints_shown++;
        save_state(&s);
    }
    free(text);
    return 0;
}

/* ---- reset ---- */

static int cmd_reset(const struct lesson *l)
{
    char work[512], stub[512], dir[512], backups[600], saved[1024];
    path_of(work, sizeof work, WORK, l);
    path_of(stub, sizeof stub, "exercises", l);
    snprintf(dir, sizeof dir, WORK "/%s", l->folder);
    snprintf(backups, sizeof backups, "%s/backups", dir);
    if (file_exists(work) && !same_content(work, stub)) {
        if (backup_file(work, backups, time(NULL), saved, sizeof saved) != 0) {
            fprintf(stderr, "Could not keep a copy of %s (%s), so it was left as it is.\n", work, strerror(errno));
            return 1;
        }
        printf("Your version is kept as %s\n", saved);
    }
    if (make_dirs(dir) != 0 || copy_file(stub, work) != 0) {
        fprintf(stderr, "Could not restore %s from %s: %s\n", work, stub, strerror(errno));
        return 1;
    }
    struct state s;
    load_state(&s);
    s.lesson[l->number].passed = false; /* "passed once" stays in the record */
    save_state(&s);
    printf("%s is the stub again.\n", work);
    return 0;
}

/* ---- lint ---- */

/* The rules of lint.h, said as file:line like a compiler's error. */
static int cmd_lint(const char *source, const char *kernel)
{
    char *text = read_text_file(source);
    if (!text) {
        printf("%s: cannot be read (%s)\n", source, strerror(errno));
        return 1;
    }
    struct lint_problem p;
    int bad = lint_kernel_source(text, kernel, &p);
    free(text);
    if (bad)
        printf("%s:%d: error: %s\n", source, p.line, p.message);
    return bad;
}

/* ---- gate ---- */

/* The gate on a compiled lesson file (objgate.h), said as `file: error: ...`. The emulator's
 * role is the object's name up to its first dot (student.emu.o). */
static int cmd_gate(const char *kind, const char *object, const char *kernel, const char *family, const char *source)
{
    char msg[700], role[64];
    const char *base = strrchr(object, '/') ? strrchr(object, '/') + 1 : object;
    snprintf(role, sizeof role, "%.*s", (int)strcspn(base, "."), base);
    enum family f = strcmp(family, "matmul") == 0 ? FAMILY_MATMUL : FAMILY_TRANSPOSE;
    if (gate_object(object, kind, role, kernel, f, msg, sizeof msg) == 0)
        return 0;
    printf("%s: error: %s\n", source, msg);
    return 1;
}

/* ---- compile-report ---- */

/* nvcc writes "file(12): error: ..." followed by the source line and a caret. Editors and
 * people read "file:12: error: ...", so rewrite those lines and keep the rest as they are,
 * minus the compiler's own boilerplate. Returns the number of diagnostics shown. */
static int cmd_compile_report(const char *source, const char *log)
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

static int load_quiz(const struct lesson *l, struct quiz *quiz);

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
    free(text);
    return bad;
}

/* A handout (make handout) has no solutions/: its stubs, baselines and texts are still checked. */
static int cmd_author_check(void)
{
    int bad = 0, have_solutions = file_exists("solutions");
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
        bad += check_kernel_file(l->baseline, base, 0);
        if (have_solutions && same_content(stub, solution)) {
            printf("  %s is already solved: it is the same as %s\n", stub, solution);
            bad++;
        }
        if (!file_exists(cases)) {
            printf("  %s is missing: the lesson has no check\n", cases);
            bad++;
        }
        char *text = read_text_file(readme);
        struct hints h;
        if (!text || hints_find(text, &h) == 0) {
            printf("  %s %s\n", readme, text ? "has no '### Hint' under '## Hints'" : "is missing");
            bad++;
        }
        free(text);
        static struct quiz quiz;
        if (load_quiz(l, &quiz) != 0 || quiz.count < 5) {
            printf("  lessons/%s/quiz.txt needs at least 5 questions that parse\n", l->folder);
            bad++;
        }
    }
    if (bad)
        printf("author check: %d problem%s in the lessons above.\n", bad, bad == 1 ? "" : "s");
    else
        printf("author check: %d lessons complete; %s.\n", reg.count,
               have_solutions ? "no stub is already solved" : "no solutions/ here (a handout), so none compared");
    return bad ? 1 : 0;
}

/* ---- mutate ---- */

static int cmd_mutate(const char *file, const char *dir)
{
    char err[1400], solution[512], outdir[1024], out[1200];
    char *text = read_text_file(file), *source = NULL, *mutated = NULL;
    struct mutant m;
    const struct lesson *l = NULL;
    int rc = 1;
    if (!text)
        snprintf(err, sizeof err, "cannot read it");
    else if (mutant_parse(text, &m, err, sizeof err) == 0) {
        if (!(l = registry_find(&reg, m.lesson)))
            snprintf(err, sizeof err, "lesson %d is not in lessons/registry", m.lesson);
        else {
            path_of(solution, sizeof solution, "solutions", l);
            if (!(source = read_text_file(solution)))
                snprintf(err, sizeof err, "cannot read %s", solution);
            else
                mutated = mutant_apply(&m, source, err, sizeof err);
        }
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
    }
    if (rc)
        fprintf(stderr, "%s: %s\n", file, err);
    free(text);
    free(source);
    free(mutated);
    return rc;
}

/* ---- quiz ---- */

static int load_quiz(const struct lesson *l, struct quiz *quiz)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "lessons/%s/quiz.txt", l->folder);
    char *text = read_text_file(path);
    int rc = text ? quiz_parse(text, quiz, err, sizeof err) : -1;
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", path, text ? err : "cannot read it");
    free(text);
    return rc;
}

/* The lesson's questions and, from SEED (or a fresh seed), the made-up ones. */
static int build_quiz(const struct lesson *l, struct quiz *quiz, struct quiz *fresh, uint64_t *seed)
{
    if (load_quiz(l, quiz) != 0)
        return -1;
    const char *s = getenv("SEED");
    *seed = s && *s ? strtoull(s, NULL, 10) : rng_fresh_seed();
    int kinds[4], n = 0;
    for (int k = 0; k < 4; k++)
        if (quiz->kinds & (1u << k))
            kinds[n++] = k;
    fresh->count = n ? quiz->generated : 0;
    for (int i = 0; i < fresh->count; i++)
        quiz_generate(*seed + (uint64_t)i, kinds[(*seed + (uint64_t)i) % (uint64_t)n], &fresh->q[i]);
    return 0;
}

/* The right answers, one per line, in the order make quiz asks (SEED as for make quiz): lets
 * make test answer the quiz non-interactively. */
static int cmd_quiz_key(const struct lesson *l)
{
    static struct quiz quiz, fresh;
    uint64_t seed;
    if (build_quiz(l, &quiz, &fresh, &seed) != 0)
        return 2;
    const struct quiz *both[2] = {&quiz, &fresh};
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < both[b]->count; i++)
            printf("%g\n", both[b]->q[i].answer);
    return 0;
}

static int cmd_quiz(const struct lesson *l)
{
    static struct quiz quiz, fresh;
    uint64_t seed;
    if (build_quiz(l, &quiz, &fresh, &seed) != 0)
        return 2;
    char title[256];
    printf("%s: self-check. Type a number, or the letter of a choice, and Enter.\n", title_of(l, title, sizeof title));
    int right = quiz_ask(&quiz, stdin, stdout);
    if (fresh.count) {
        printf("\nAnd %d bank questions made up just now (again: make quiz SEED=%llu):\n", fresh.count,
               (unsigned long long)seed);
        right += quiz_ask(&fresh, stdin, stdout);
    }
    int total = quiz.count + fresh.count;
    printf("\nScore: %d/%d%s\n", right, total, right == total ? "" : " (reread the sections the misses came from)");
    return right == total ? 0 : 1;
}

static int cmd_quiz_md(const struct lesson *l)
{
    static struct quiz quiz;
    if (load_quiz(l, &quiz) != 0)
        return 2;
    quiz_markdown(&quiz, stdout);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: workbook select N | check SRC score|pass|fail N... | grade SRC DIR N... | status | hint N | reset N | "
                    "lint SOURCE KERNEL | compile-report SOURCE LOG | author-check | mutate FILE DIR | quiz N | quiz-md N | quiz-key N | bankmap 32x32|32x33|xor | lesson-list\n(the Makefile runs these for you: make help)\n");
    return 2;
}

int main(int argc, char **argv)
{
    char err[512];
    if (argc < 2)
        return usage();
    const char *cmd = argv[1];
    if (strcmp(cmd, "bankmap") == 0) {
        int layout = argc == 3 ? bank_layout_named(argv[2]) : -1;
        if (layout < 0)
            return usage();
        bankmap_svg(stdout, (enum bank_layout)layout, 0);
        return 0;
    }
    if (strcmp(cmd, "lint") == 0)
        return argc == 4 ? cmd_lint(argv[2], argv[3]) : usage();
    if (strcmp(cmd, "gate") == 0)
        return argc == 7 ? cmd_gate(argv[2], argv[3], argv[4], argv[5], argv[6]) : usage();
    if (strcmp(cmd, "compile-report") == 0)
        return argc == 4 ? (cmd_compile_report(argv[2], argv[3]), 0) : usage();
    if (registry_load(REGISTRY, &reg, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    const struct lesson *l;
    if (strcmp(cmd, "status") == 0)
        return cmd_status();
    if (strcmp(cmd, "author-check") == 0)
        return cmd_author_check();
    if (strcmp(cmd, "lesson-list") == 0) {
        for (int i = 0; i < reg.count; i++) {
            char title[256];
            printf("%d. [%s](%s.html)\n", reg.lessons[i].number, title_of(&reg.lessons[i], title, sizeof title),
                   reg.lessons[i].folder);
        }
        return 0;
    }
    if (strcmp(cmd, "mutate") == 0)
        return argc == 4 ? cmd_mutate(argv[2], argv[3]) : usage();
    if (strcmp(cmd, "grade") == 0)
        return argc >= 5 ? cmd_grade(argv[2], argv[3], argc - 4, argv + 4) : usage();
    if (strcmp(cmd, "check") == 0)
        return argc >= 5 ? cmd_check(argv[2], argv[3], argc - 4, argv + 4) : usage();
    if (argc != 3)
        return usage();
    if (!(l = lesson_arg(argv[2])))
        return 2;
    if (strcmp(cmd, "select") == 0)
        return cmd_select(l);
    if (strcmp(cmd, "hint") == 0)
        return cmd_hint(l);
    if (strcmp(cmd, "reset") == 0)
        return cmd_reset(l);
    if (strcmp(cmd, "quiz") == 0)
        return cmd_quiz(l);
    if (strcmp(cmd, "quiz-md") == 0)
        return cmd_quiz_md(l);
    if (strcmp(cmd, "quiz-key") == 0)
        return cmd_quiz_key(l);
    return usage();
}
