/* Grading (commands.h): make check runs each lesson's judge and sums the score; make grade
 * writes the course's files (results.json, junit.xml, summary.txt). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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
#include "check_record.h"
#include "hints.h"
#include "intake.h"
#include "lint.h"
#include "objgate.h"
#include "mutant.h"
#include "quiz.h"
#include "rng.h"
#include "registry.h"
#include "results.h"
#include "state.h"
#include "textfile.h"

#include "commands.h"

/* ---- check ---- */

struct outcome {
    int not_started; /* the student's copy does not exist yet */
    int refused;     /* the intake refused the lesson's file (intake.h): the student's 0, said why */
    int built, ran;  /* ran: the judge left its record */
    char grader_fault[300]; /* not graded through no fault of the student: the evidence, in words */
    struct check_record rec;
};

/* A lesson passes when every one of its cases ran and passed (check_record.h). */
static int passed(const struct outcome *o)
{
    return o->ran && record_passed(&o->rec);
}

static int points_of(const struct outcome *o)
{
    return o->ran ? record_points(&o->rec) : 0;
}

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
static const char *grade_log, *grade_xml, *grade_dir;

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
        FILE *to = grade_log ? fopen(grade_log, "a") : NULL; /* a grade keeps the compiler's report */
        while (err && fgets(line, sizeof line, err))
            if (!(strncmp(line, "make", 4) == 0 && strstr(line, ": *** [")))
                fputs(line, to ? to : stderr);
        if (to)
            fclose(to);
        if (err)
            fclose(err);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* On a GPU, the emulator's count of the same kernels' memory traffic explains the timings:
 * shown, not graded. WB_EXPLAIN names the emulator's program (the Makefile sets it). It needs
 * only the CPU, so it runs beside the GPU judge, its report kept in a file; once the judge is
 * done, the memory-traffic part is shown, or (the kernel was never timed) it is stopped. */
struct explainer {
    pid_t pid;
    FILE *report;
};

static struct explainer explain_start(const struct lesson *l, const char *dir, const char *srcarg)
{
    struct explainer e = {-1, NULL};
    const char *emu = getenv("WB_EXPLAIN"), *fmt = getenv("CMOCKA_MESSAGE_OUTPUT");
    if (!emu || !*emu || grade_log || (fmt && *fmt && strcasecmp(fmt, "stdout") != 0)) /* TAP/XML stay clean */
        return e;
    char binary[1024];
    snprintf(binary, sizeof binary, "%s/%s/%s", dir, l->folder, emu);
    const char *make = getenv("MAKE") ? getenv("MAKE") : "make";
    char *build[] = {(char *)make, "-s", "--no-print-directory", (char *)srcarg, binary, NULL};
    if (run_command(build, NULL, 1) != 0 || !(e.report = tmpfile()))
        return e;
    fflush(NULL);
    e.pid = fork();
    if (e.pid == 0) {
        setpgid(0, 0); /* its own group: stopped with its runners */
        dup2(fileno(e.report), STDOUT_FILENO);
        dup2(fileno(e.report), STDERR_FILENO);
        setenv("ONLY", "memory*", 1);
        setenv("WB_RESULT_FILE", "", 1);
        setenv("WB_EXPLAINING", "1", 1); /* the GPU has timed it: no prediction set beside the threshold */
        execl(binary, binary, (char *)NULL);
        _exit(127);
    }
    if (e.pid > 0)
        setpgid(e.pid, e.pid);
    return e;
}

static void explain_finish(struct explainer *e, int show)
{
    if (e->pid > 0) {
        if (!show)
            kill(-e->pid, SIGTERM);
        waitpid(e->pid, NULL, 0);
    }
    if (show && e->pid > 0 && e->report) {
        char line[1024];
        int shown = 0;
        rewind(e->report);
        printf("\nWhy: the same kernels' memory traffic, counted by the CPU emulator (shown, not graded):\n");
        while (fgets(line, sizeof line, e->report)) {
            if (strstr(line, "  Memory traffic at"))
                shown = 1;
            if (shown && strncmp(line, "  ", 2) == 0 && !strstr(line, "Required:"))
                fputs(line, stdout);
            if (shown && line[0] == '[')
                shown = 0;
        }
    }
    if (e->report)
        fclose(e->report);
    *e = (struct explainer){-1, NULL};
}

/* The first line of a file (a sentence of the grader's), or "". */
static void first_line(const char *path, char *buf, size_t len)
{
    char *text = read_text_file(path);
    snprintf(buf, len, "%s", text ? text : "");
    buf[strcspn(buf, "\n")] = '\0';
    free(text);
}

/* Why a build that failed was not the student's doing, from the evidence the build left (the
 * intake's line, the sealed compile's grader-fault), never from anything the compiler printed. */
static void build_evidence(struct outcome *o, const char *dir, const struct lesson *l)
{
    char path[1200], line[900];
    snprintf(path, sizeof path, "%s/handin/%s/.intake", dir, l->folder);
    first_line(path, line, sizeof line);
    o->refused = strncmp(line, "refused ", 8) == 0;
    if (strncmp(line, "grader ", 7) == 0)
        snprintf(o->grader_fault, sizeof o->grader_fault, "the intake could not read the hand-in: %.200s", line + 7);
    snprintf(path, sizeof path, "%s/%s/grader-fault", dir, l->folder);
    first_line(path, line, sizeof line);
    if (*line)
        snprintf(o->grader_fault, sizeof o->grader_fault, "the sealed compile could not run here: %.200s", line);
}

static struct outcome check_one(const struct lesson *l, const char *src)
{
    struct outcome o = {0};
    char dir[512], binary[1024], result[1024], srcarg[600], fault[1024];
    build_dir(dir, sizeof dir, src);
    /* check (the GPU judge) or check-emu (the emulator): the Makefile says which. */
    const char *judge = getenv("WB_JUDGE") && *getenv("WB_JUDGE") ? getenv("WB_JUDGE") : "check";
    snprintf(binary, sizeof binary, "%s/%s/%s", dir, l->folder, judge);
    snprintf(result, sizeof result, "%s/%s/result", dir, l->folder);
    snprintf(fault, sizeof fault, "%s/%s/grader-fault", dir, l->folder);
    snprintf(srcarg, sizeof srcarg, "SRC=%s", src);
    const char *make = getenv("MAKE") ? getenv("MAKE") : "make";
    char *build[] = {(char *)make, "-s", "--no-print-directory", srcarg, binary, NULL};
    remove(result); /* no record of an earlier check outlives a file that no longer builds */
    remove(fault);
    if (run_command(build, NULL, 1) != 0) {
        build_evidence(&o, dir, l);
        return o;
    }
    o.built = 1;
    struct explainer why = explain_start(l, dir, srcarg);
    char *run[] = {binary, NULL};
    int rc = run_command(run, result, 0);
    char err[600];
    o.ran = record_read(result, &o.rec, err, sizeof err) == 0;
    if (!o.ran) /* the judge is the grader's: whatever a kernel does, it leaves its record */
        snprintf(o.grader_fault, sizeof o.grader_fault, "lesson %d's judge left no record (exit %d): %.200s",
                 l->number, rc, err);
    else if (o.rec.ncases == 0 && !o.rec.no_gpu) /* the judge said why it graded nothing (its log) */
        snprintf(o.grader_fault, sizeof o.grader_fault, "lesson %d's judge could not run the reference kernels "
                 "or start its runners (exit %d): its log says why", l->number, rc);
    explain_finish(&why, o.ran && !o.rec.no_gpu && o.rec.speed_ms > 0);
    return o;
}

static const char *verdict(const struct outcome *o, char *buf, size_t len)
{
    const struct check_record *r = &o->rec;
    int failed = record_count(r, RESULT_FAILED), skipped = record_count(r, RESULT_SKIPPED);
    if (o->not_started && grade_dir)
        snprintf(buf, len, "not handed in");
    else if (o->not_started)
        snprintf(buf, len, "not started (make lessonN)");
    else if (o->grader_fault[0])
        snprintf(buf, len, "not graded: the grader's fault");
    else if (o->refused)
        snprintf(buf, len, grade_dir ? "refused (its log says why)" : "refused (see above)");
    else if (!o->built)
        snprintf(buf, len, grade_dir ? "does not build (its log says why)" : "does not build (see above)");
    else if (!o->ran || r->ncases == 0)
        snprintf(buf, len, "the check did not finish");
    else if (r->partial && record_count(r, RESULT_NOT_RUN) == r->ncases)
        snprintf(buf, len, "ONLY matched no test: none ran");
    else if (failed == 0 && r->partial)
        snprintf(buf, len, "ONLY's cases passed: no pass");
    else if (record_passed(r))
        snprintf(buf, len, "passed");
    else if (r->hung)
        snprintf(buf, len, "failed: no answer in time");
    else if (failed == 0)
        snprintf(buf, len, "%d of %d tests skipped", skipped, r->ncases);
    else /* counted among the tests that ran: ONLY may have left some out */
        snprintf(buf, len, "failed %d of %d tests", failed, r->ncases - record_count(r, RESULT_NOT_RUN));
    return buf;
}

/* `workbook record SRC N`: the last check of lesson N's file in SRC, from its record (never from
 * the report's sentences), one "key value" a line: ran (0: no record, or not one), no_gpu (the
 * GPU judge found no GPU), emulator, passed (every case), points, max_points. With forget, the
 * record is removed instead: a script does so before a check, so that a check stopped before
 * its judge ran (make's doctor, a build) leaves no earlier record to be read as its own. */
int cmd_record(const char *src, const struct lesson *l, int forget)
{
    char dir[512], result[1024], err[600];
    struct check_record r;
    build_dir(dir, sizeof dir, src);
    snprintf(result, sizeof result, "%s/%s/result", dir, l->folder);
    if (forget)
        return remove(result) == 0 || errno == ENOENT ? 0 : 1;
    int ran = record_read(result, &r, err, sizeof err) == 0;
    printf("ran %d\n", ran);
    if (ran) {
        printf("no_gpu %d\nemulator %d\npassed %d\npoints %d\nmax_points %d\n", r.no_gpu, r.emulator, record_passed(&r),
               record_points(&r), record_max_points(&r));
        record_free(&r);
    }
    return 0;
}

/* expect: "score" for a student (Score: x/y), "pass" or "fail" for authors' runs over
 * solutions/ or exercises/, which must all pass or all fail. */
int cmd_check(const char *src, const char *expect, int argc, char **argv)
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
        if (out[n].rec.no_gpu)
            return 3; /* the check said why in one sentence; nothing else can be graded either */
        /* A run of some cases (ONLY=) that passed them says nothing of the lesson: not recorded.
         * A file that does not build is recorded: it does not pass. */
        if (own_work && !(out[n].ran && out[n].rec.partial && !record_count(&out[n].rec, RESULT_FAILED))) {
            state_record_check(&s, l->number, passed(&out[n]), out[n].rec.speed_ms, out[n].rec.speedup);
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
        int pass = passed(&out[i]), points = points_of(&out[i]);
        snprintf(name, sizeof name, "%d %s", ls[i]->number, ls[i]->folder);
        fprintf(sum, "%-22s %-30s %d/%d\n", name, verdict(&out[i], v, sizeof v), points, ls[i]->points);
        score += points;
        total += ls[i]->points;
        /* A stub must fail, and earn nothing: a case it passes unchanged is worth 0 (check.h). */
        int stub_ok = out[i].built && out[i].ran && !pass && points == 0;
        if (strcmp(expect, "fail") == 0 && out[i].ran && !pass && points)
            fprintf(sum, "  %s earns %d points unchanged: a case it already passes must be worth 0 in lessons/%s/check.c\n",
                    name, points, ls[i]->folder);
        as_expected += strcmp(expect, "fail") == 0 ? stub_ok : pass;
    }
    if (strcmp(expect, "score") == 0) {
        fprintf(sum, "Score: %d/%d\n", score, total);
        /* After a pass of the selected lesson: what comes next. */
        if (own_work && n == 1 && passed(&out[0]) && ls[0]->number == s.current) {
            const struct lesson *next = NULL;
            for (int i = 0; i + 1 < reg.count; i++)
                if (reg.lessons[i].number == ls[0]->number)
                    next = &reg.lessons[i + 1];
            if (next)
                fprintf(sum, "Passed. Next: `make next` starts lesson %d (%s); `make quiz` checks what you learned.\n",
                        next->number, next->folder);
            else
                fprintf(sum, "Passed: that was the last lesson. `make quiz` checks what you learned; `make status` "
                             "shows your whole record.\n");
        }
        int all = 1;
        for (int i = 0; i < n; i++)
            all &= passed(&out[i]);
        return all ? 0 : 1;
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

/* One entry of results.json's tests list; number "2.3" is lesson 2's third case (".0": the lesson). */
static void json_test(FILE *json, int *first, const char *name, int lesson, int k, int score, int max,
                      const char *status, const char *output, int provisional)
{
    fprintf(json, "%s    {\"name\": ", *first ? "" : ",\n");
    *first = 0;
    json_string(json, name);
    fprintf(json, ", \"number\": \"%d.%d\", \"score\": %d, \"max_score\": %d, \"status\": \"%s\", \"output\": ",
            lesson, k, score, max, status);
    json_string(json, output);
    if (provisional) /* for a course's own tools: these points may change once a GPU times the kernel */
        fprintf(json, ", \"tags\": [\"provisional\"], \"extra_data\": {\"provisional\": true, \"judge\": \"emulator\"}");
    fprintf(json, "}");
}

/* The speed points of a case the emulator judged: it counted the kernel's memory traffic and
 * timed nothing, so a GPU may still find the kernel too slow. */
static int provisional(const struct check_record *r, const struct case_record *c)
{
    return r->emulator && c->kind == CASE_SPEED;
}

/* The points of a lesson's record that are provisional. */
static int provisional_points_of(const struct outcome *o)
{
    int points = 0;
    for (int k = 0; o->ran && k < o->rec.ncases; k++)
        points += provisional(&o->rec, &o->rec.cases[k]) ? o->rec.cases[k].points : 0;
    return points;
}

/* Why a case that passed earned less than it is worth, or what a case not run means. */
static const char *case_note(const struct check_record *r, const struct case_record *c)
{
    if (provisional(r, c) && c->result == RESULT_PASSED && c->points == c->max_points)
        return "\nProvisional: the CPU emulator judged this case by the kernel's memory traffic and timed nothing; "
               "a GPU's timing may still find the kernel too slow and take these points away.\n";
    if (c->result == RESULT_PASSED && c->points < c->max_points && c->kind == CASE_SPEED)
        return "\nNo points for speed: they count only when every other case of the lesson passed.\n";
    if (c->result == RESULT_PASSED && c->points < c->max_points)
        return "\nNo points: compute-sanitizer found errors, so the right outputs were luck.\n";
    if (c->result == RESULT_SKIPPED && r->hung)
        return "\nNot run: the kernel did not finish in an earlier case.\n";
    if (c->result == RESULT_SKIPPED)
        return "\nSkipped, not passed: the tool it needs did not run (the report above says why).\n";
    return "";
}

/* Whether src has a file for lesson l, as the intake finds it (a folder, flat, an archive): a
 * file it refuses is handed in, and graded 0 with the sentence why. */
static int handed_in(const char *src, const struct lesson *l)
{
    struct intake_file f;
    char hash[17];
    int rc = intake_handin(src, NULL, NULL, &l, 1, &f, hash);
    intake_file_free(&f);
    return rc != 0 || f.verdict != INTAKE_ABSENT;
}

/* OUTDIR/grader-faults: "N why" a line for each lesson not graded through no fault of the
 * student (grade-all leaves such a hand-in "not graded", to be graded again), from the judges'
 * evidence alone; empty when every lesson was graded. */
static int write_grader_faults(const char *outdir, const struct lesson **ls, const struct outcome *out, int n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/grader-faults", outdir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int i = 0; i < n; i++)
        if (out[i].grader_fault[0])
            fprintf(f, "%d %s\n", ls[i]->number, out[i].grader_fault);
    return fclose(f);
}

/* The log of a lesson not handed in: why nothing was built. */
static void say_not_handed_in(const char *log, const char *src, const struct lesson *l)
{
    FILE *f = fopen(log, "w");
    if (f) {
        fprintf(f, "%s has no %s/%s.cu: lesson %d was not handed in.\n", src, l->folder, l->kernel, l->number);
        fclose(f);
    }
}

/* A lesson no case of which ran, in results.json and junit.xml: one failed test, its log the why. */
static void results_unran(FILE *json, FILE *junit, int *first, const struct lesson *l, const char *title,
                          const char *v, const char *log)
{
    char name[400];
    char *report = read_text_file(log);
    if (report && strlen(report) > 20000)
        strcpy(report + 19980, "\n... (cut)\n");
    snprintf(name, sizeof name, "%s: %s", title, v);
    json_test(json, first, name, l->number, 0, 0, l->points, "failed", report ? report : "", 0);
    free(report);
    fprintf(junit, "  <testsuite name=\"lesson %d (", l->number);
    xml_text(junit, l->folder);
    fprintf(junit, ")\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\">\n"
                   "    <testcase classname=\"lesson %d\" name=\"build and run\"><failure message=\"",
            l->number);
    xml_text(junit, v);
    fprintf(junit, "\"/></testcase>\n  </testsuite>\n");
}

/* One test per case of a lesson in results.json, with its points and its part of the report. */
static void results_cases(FILE *json, int *first, const struct lesson *l, const char *title,
                          const struct check_record *r)
{
    for (int k = 0; k < r->ncases; k++) {
        const struct case_record *c = &r->cases[k];
        char name[400], text[RECORD_OUTPUT_MAX + 200];
        snprintf(name, sizeof name, "%s: %s", title, c->name);
        snprintf(text, sizeof text, "%s%s", c->output ? c->output : "", case_note(r, c));
        json_test(json, first, name, l->number, k + 1, c->points, c->max_points,
                  c->result == RESULT_PASSED || c->result == RESULT_ELSEWHERE ? "passed" : "failed", text,
                  provisional(r, c) && c->points > 0);
    }
}

/* A lesson's row of summary.txt; returns its provisional points. */
static int summary_row(FILE *sum, const struct outcome *o, const struct lesson *l, const char *v, int points)
{
    char lesson_name[80], result[96];
    int skipped = record_count(&o->rec, RESULT_SKIPPED);
    snprintf(lesson_name, sizeof lesson_name, "%d %s", l->number, l->folder);
    int lesson_provisional = provisional_points_of(o);
    if (skipped && !o->rec.hung) /* a gate whose tool was missing is not a pass of that gate */
        snprintf(result, sizeof result, "%s, %d test%s skipped", v, skipped, skipped == 1 ? "" : "s");
    else if (lesson_provisional)
        snprintf(result, sizeof result, "%s, speed provisional", v);
    else
        snprintf(result, sizeof result, "%s", v);
    fprintf(sum, "%-22s %-30s %d/%d\n", lesson_name, result, points, l->points);
    return lesson_provisional;
}

/* make grade: every lesson graded into OUTDIR as results.json (Gradescope's autograder format),
 * junit.xml (cmocka's test cases, one testsuite per lesson) and summary.txt; the reports of the
 * check programs, which quote what the kernels printed (quote.h), stay in lesson-N.log. The
 * verdicts come from the check programs' result files, never from what was printed. */
int cmd_grade(const char *src, const char *outdir, int argc, char **argv)
{
    char path[1024], log[1024], xml[1024], v[64];
    struct outcome out[MAX_LESSONS];
    const struct lesson *ls[MAX_LESSONS];
    int n = 0, score = 0, total = 0, provisional_points = 0;
    unsetenv("ONLY"); /* a grade runs every case */
    grade_dir = outdir;
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
        if (!handed_in(src, ls[n])) { /* nothing to build, said as such */
            out[n] = (struct outcome){.not_started = 1};
            say_not_handed_in(log, src, ls[n]);
            continue;
        }
        grade_log = log;
        grade_xml = xml;
        out[n] = check_one(ls[n], src);
        grade_log = grade_xml = NULL;
        if (out[n].rec.no_gpu) { /* the judge's record says so: nothing else can be graded here either */
            snprintf(out[n].grader_fault, sizeof out[n].grader_fault, "the judge found no GPU it could run the "
                     "programs on (none, or one they were not built for): %s/lesson-%d.log says which", outdir,
                     ls[n]->number);
            write_grader_faults(outdir, ls, out, n + 1);
            fprintf(stderr, "Not graded: lesson %d: %s.\n", ls[n]->number, out[n].grader_fault);
            return 3;
        }
    }
    if (write_grader_faults(outdir, ls, out, n) != 0) {
        fprintf(stderr, "Cannot write %s/grader-faults: %s\n", outdir, strerror(errno));
        return 2;
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
    int first = 1;
    for (int i = 0; i < n; i++) {
        const struct check_record *r = &out[i].rec;
        int points = points_of(&out[i]);
        char title[256];
        score += points;
        total += ls[i]->points;
        title_of(ls[i], title, sizeof title);
        snprintf(log, sizeof log, "%s/lesson-%d.log", outdir, ls[i]->number);
        snprintf(xml, sizeof xml, "%s/lesson-%d.xml", outdir, ls[i]->number);
        verdict(&out[i], v, sizeof v);
        if (!out[i].ran || r->ncases == 0) {
            /* No case ran (not started, no build, no record): one test for the lesson, its log the why. */
            results_unran(json, junit, &first, ls[i], title, v, log);
        } else {
            results_cases(json, &first, ls[i], title, r);
            copy_testsuites(junit, xml);
        }
        provisional_points += summary_row(sum, &out[i], ls[i], v, points);
    }
    fprintf(json, "\n");
    fprintf(json, "  ],\n  \"score\": %d,\n  \"output\": ", score);
    char line[400];
    snprintf(line, sizeof line, "Score: %d/%d, graded from %s", score, total, src);
    if (provisional_points)
        snprintf(line + strlen(line), sizeof line - strlen(line),
                 "; %d of the points are provisional: speed judged by the CPU emulator's traffic counts, not timed "
                 "on a GPU", provisional_points);
    json_string(json, line);
    fprintf(json, "\n}\n");
    fprintf(junit, "</testsuites>\n");
    if (provisional_points) /* before the score, which stays the last line */
        fprintf(sum, "(%d of the points are provisional: the CPU emulator judged speed by memory traffic and timed "
                     "nothing; a GPU's timing may take them away.)\n", provisional_points);
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
