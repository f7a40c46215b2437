/* The student's loop (commands.h): make lessonN, status, hint, reset, quiz. */
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

#include "commands.h"

/* ---- select ---- */

int cmd_select(const struct lesson *l)
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

/* ---- status ---- */

int cmd_status(void)
{
    struct state s;
    load_state(&s);
    printf("  %-22s %-12s %-11s %-9s %-6s %s\n", "Lesson", "Status", "Best time", "Speed-up", "Hints", "Quiz (best)");
    int once = 0;
    for (int i = 0; i < reg.count; i++) {
        const struct lesson *l = &reg.lessons[i];
        const struct lesson_state *ls = &s.lesson[l->number];
        char name[80], best[24] = "-", speed[24] = "-", quiz[48] = "-", work[512];
        path_of(work, sizeof work, WORK, l);
        const char *status = ls->passed            ? "passed"
                             : ls->ever_passed     ? "passed once"
                             : ls->checks > 0      ? "not yet"
                             : file_exists(work)   ? "started"
                                                   : "-";
        once |= !ls->passed && ls->ever_passed;
        if (ls->best_ms > 0) {
            snprintf(best, sizeof best, "%.3f ms", ls->best_ms);
            snprintf(speed, sizeof speed, "%.2fx", ls->best_speedup);
        }
        if (ls->quiz_total > 0)
            /* How first, so that the line still ends with the score (scripts read it there). */
            snprintf(quiz, sizeof quiz, "%s: %d/%d", quiz_answered_words(ls->quiz_how), ls->quiz_best, ls->quiz_total);
        snprintf(name, sizeof name, "%d %s", l->number, l->folder);
        printf("%s %-22s %-12s %-11s %-9s %-6d %s\n", l->number == s.current ? ">" : " ", name, status, best, speed,
               ls->hints_shown, quiz);
    }
    printf("(> is the selected lesson. Best time, on a GPU only: your fastest correct kernel at the speed\n"
           " check's size; speed-up: over that lesson's baseline, in the same run. Quiz: the best make quiz,\n"
           " and how its answers came: at the terminal, from a file (ANSWERS=file) or piped in.)\n");
    if (once)
        printf("(passed once: an earlier make check passed, the latest did not; make check shows what broke.)\n");
    return 0;
}

/* ---- next ---- */

/* The lesson after the selected one, for `make next`: its number on stdout, or a sentence on
 * stderr and 1 when there is none yet (nothing selected, or the last lesson). */
int cmd_next_lesson(void)
{
    struct state s;
    load_state(&s);
    if (s.current == 0) {
        fprintf(stderr, "No lesson selected yet: `make lesson1` starts the first.\n");
        return 1;
    }
    for (int i = 0; i + 1 < reg.count; i++)
        if (reg.lessons[i].number == s.current) {
            if (!s.lesson[s.current].passed)
                fprintf(stderr, "(Lesson %d has not passed yet; you can come back to it with `make lesson%d`.)\n",
                        s.current, s.current);
            printf("%d\n", reg.lessons[i + 1].number);
            return 0;
        }
    fprintf(stderr, "Lesson %d is the last one: there is no next lesson.\n", s.current);
    return 1;
}

/* ---- hint ---- */

/* The hints live in lessons/NN_topic/hints.md, not in the lesson's text: reading the lesson must
 * not read them all, so that the count make status shows means something. */
/* The lesson's hints.md (its path into path): the text, malloc'd, whose hints hints_find put in
 * h; NULL when it cannot be read (then h->count is 0). */
static char *lesson_hints(const struct lesson *l, char *path, size_t len, struct hints *h)
{
    snprintf(path, len, "lessons/%s/hints.md", l->folder);
    char *text = read_text_file(path);
    h->count = 0;
    if (text)
        hints_find(text, h);
    return text;
}

int cmd_hint(const struct lesson *l)
{
    char path[512];
    struct hints h;
    char *text = lesson_hints(l, path, sizeof path, &h);
    if (!text || h.count == 0) {
        printf("Lesson %d has no hints in %s.\n", l->number, path);
        free(text);
        return 1;
    }
    struct state s;
    load_state(&s);
    int seen = s.lesson[l->number].hints_shown;
    int k = seen; /* the next one, 0-based */
    /* HINT=k: hint k again, if it was seen (hints go from weak to strong: none is skipped). */
    const char *again = getenv("HINT");
    if (again && *again) {
        char *end;
        long want = strtol(again, &end, 10);
        if (*end || want < 1 || want > h.count) {
            printf("HINT=%s: lesson %d has hints 1 to %d.\n", again, l->number, h.count);
            free(text);
            return 1;
        }
        if (want > seen + 1) {
            printf("You have seen %d of lesson %d's hints; `make hint` shows hint %d first (each is a little "
                   "stronger than the one before).\n", seen, l->number, seen + 1);
            free(text);
            return 1;
        }
        k = (int)want - 1;
    }
    if (k >= h.count)
        k = h.count - 1;
    printf("%.*s\n\n", (int)h.len[k], h.start[k]);
    if (k + 1 < h.count)
        printf("(Hint %d of %d; `make hint` again for a stronger one.)\n", k + 1, h.count);
    else
        printf("(That was the last hint; lessons/%s/README.md derives the whole kernel.)\n", l->folder);
    if (k == seen && s.lesson[l->number].hints_shown < h.count) {
        s.lesson[l->number].hints_shown++;
        save_state(&s);
    }
    if (seen > 1 || (seen == 1 && k != 0))
        printf("(Seen so far: hints 1 to %d; `make hint HINT=n` shows hint n again.)\n",
               s.lesson[l->number].hints_shown);
    free(text);
    return 0;
}

/* The hints for the lesson's web page, at its end, each folded on its own (workbook hints-md). */
int cmd_hints_md(const struct lesson *l)
{
    char path[512];
    struct hints h;
    char *text = lesson_hints(l, path, sizeof path, &h);
    if (!text || h.count == 0) {
        fprintf(stderr, "%s: %s\n", path, text ? "no '### Hint' under '## Hints'" : "cannot read it");
        free(text);
        return 2;
    }
    printf("## Hints\n\nEach opens on its own, weakest first (`make hint` gives them one at a time).\n\n");
    for (int k = 0; k < h.count; k++)
        hint_markdown(&h, k, stdout);
    free(text);
    return 0;
}

/* ---- reset ---- */

int cmd_reset(const struct lesson *l)
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
    if (s.lesson[l->number].hints_shown > 0)
        printf("The %d hint%s you have seen stay%s yours: `make hint HINT=1` shows the first again.\n",
               s.lesson[l->number].hints_shown, s.lesson[l->number].hints_shown == 1 ? "" : "s",
               s.lesson[l->number].hints_shown == 1 ? "s" : "");
    return 0;
}

/* ---- quiz ---- */

int load_quiz(const struct lesson *l, struct quiz *quiz)
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

/* A lesson's quiz as make quiz asks it: its own questions, then the bank questions made up from
 * seed. */
struct asked_quiz {
    struct quiz own, fresh;
    uint64_t seed;
};

/* The lesson's questions and, from SEED (or a fresh seed), the made-up ones; NULL (said) when its
 * quiz.txt does not parse. One at a time: the quizzes are large, so they are kept here. */
static const struct asked_quiz *build_quiz(const struct lesson *l)
{
    static struct asked_quiz q;
    struct quiz *quiz = &q.own, *fresh = &q.fresh;
    if (load_quiz(l, quiz) != 0)
        return NULL;
    const char *s = getenv("SEED");
    q.seed = s && *s ? strtoull(s, NULL, 10) : rng_fresh_seed();
    int kinds[4], n = 0;
    for (int k = 0; k < 4; k++)
        if (quiz->kinds & (1u << k))
            kinds[n++] = k;
    fresh->count = n ? quiz->generated : 0;
    fresh->numbered_from = quiz->count;
    for (int i = 0; i < fresh->count; i++)
        quiz_generate(q.seed + (uint64_t)i, kinds[(q.seed + (uint64_t)i) % (uint64_t)n], &fresh->q[i]);
    return &q;
}

/* The right answers, one per line, in the order make quiz asks (SEED as for make quiz): lets
 * make test answer the quiz non-interactively. */
int cmd_quiz_key(const struct lesson *l)
{
    const struct asked_quiz *q = build_quiz(l);
    if (!q)
        return 2;
    const struct quiz *both[2] = {&q->own, &q->fresh};
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < both[b]->count; i++)
            printf("%g\n", both[b]->q[i].answer);
    return 0;
}

int cmd_quiz(const struct lesson *l)
{
    const struct asked_quiz *q = build_quiz(l);
    if (!q)
        return 2;
    char title[256];
    const char *list = getenv("LIST");
    if (list && *list && strcmp(list, "0") != 0) { /* the questions alone, to think them over first */
        printf("%s: the self-check questions (make quiz asks them; the bank questions are made up then).\n",
               title_of(l, title, sizeof title));
        quiz_list(&q->own, stdout);
        return 0;
    }
    printf("%s: self-check. Type a number, or the letter of a choice, and Enter (Enter alone skips a question).\n",
           title_of(l, title, sizeof title));
    int skipped = 0;
    int right = quiz_ask(&q->own, stdin, stdout, &skipped);
    if (q->fresh.count) {
        printf("\nAnd %d bank question%s made up just now (again: make quiz SEED=%llu):\n", q->fresh.count,
               q->fresh.count == 1 ? "" : "s",
               (unsigned long long)q->seed);
        right += quiz_ask(&q->fresh, stdin, stdout, &skipped);
    }
    int total = q->own.count + q->fresh.count;
    printf("\nScore: %d/%d%s", right, total, right == total ? "" : " (reread the sections the misses came from)");
    if (skipped)
        printf("; %d skipped, their answers still hidden", skipped);
    printf("\n");
    /* Kept for make status however the answers came (typed, ANSWERS=file, a pipe), marked with how,
     * and said when they were not typed: a score that vanished without a word looked like a bug.
     * (make quiz-test keeps its scores in a state file of its own: WB_STATE.) */
    enum quiz_answered how = quiz_answered_on(STDIN_FILENO);
    struct state s;
    load_state(&s);
    state_record_quiz(&s, l->number, right, total, how);
    if (save_state(&s) == 0)
        quiz_recorded_note(how, stdout);
    return right == total ? 0 : 1;
}

int cmd_quiz_md(const struct lesson *l)
{
    static struct quiz quiz;
    if (load_quiz(l, &quiz) != 0)
        return 2;
    quiz_markdown(&quiz, stdout);
    return 0;
}
