#include "state.h"

#include <stdio.h>
#include <string.h>

int state_load(const char *path, struct state *s)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        int n, passed, ever, checks, hints, used = 0, best = 0, total = 0;
        double ms, speedup;
        if (sscanf(line, "current %d", &n) == 1 && n >= 0 && n <= MAX_LESSONS) {
            s->current = n;
        } else if (sscanf(line, "lesson %d passed %d ever_passed %d checks %d best_ms %lf best_speedup %lf hints %d%n",
                          &n, &passed, &ever, &checks, &ms, &speedup, &hints, &used) == 7 &&
                   n >= 1 && n <= MAX_LESSONS) {
            /* The quiz field came later, and how it was answered later still: a record without them is
             * still read (scores were kept only when typed, then). */
            int quiz_used = 0;
            char by[16] = "typed";
            if (sscanf(line + used, " quiz %d/%d%n", &best, &total, &quiz_used) != 2 || best < 0 || total < best)
                best = total = 0;
            else
                sscanf(line + used + quiz_used, " by %15s", by);
            enum quiz_answered how = strcmp(by, "file") == 0 ? QUIZ_FROM_FILE
                                     : strcmp(by, "pipe") == 0 ? QUIZ_PIPED
                                                               : QUIZ_TYPED;
            s->lesson[n] = (struct lesson_state){passed != 0, ever != 0, checks, ms, speedup, hints, best, total, how};
        }
    }
    fclose(f);
    return 0;
}

int state_save(const char *path, const struct state *s)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fprintf(f, "# Workbook progress, written by make; safe to delete (you lose only this record).\n");
    fprintf(f, "current %d\n", s->current);
    for (int n = 1; n <= MAX_LESSONS; n++) {
        const struct lesson_state *l = &s->lesson[n];
        if (l->checks == 0 && l->hints_shown == 0 && l->quiz_total == 0)
            continue;
        static const char *by[] = {[QUIZ_TYPED] = "typed", [QUIZ_FROM_FILE] = "file", [QUIZ_PIPED] = "pipe"};
        fprintf(f, "lesson %d passed %d ever_passed %d checks %d best_ms %.6g best_speedup %.6g hints %d quiz %d/%d", n,
                l->passed, l->ever_passed, l->checks, l->best_ms, l->best_speedup, l->hints_shown, l->quiz_best,
                l->quiz_total);
        if (l->quiz_total > 0) /* how the best score's answers came */
            fprintf(f, " by %s", by[l->quiz_how <= QUIZ_PIPED ? l->quiz_how : QUIZ_TYPED]);
        fprintf(f, "\n");
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

void state_record_check(struct state *s, int lesson, bool passed, double ms, double speedup)
{
    if (lesson < 1 || lesson > MAX_LESSONS)
        return;
    struct lesson_state *l = &s->lesson[lesson];
    l->checks++;
    l->passed = passed;
    l->ever_passed = l->ever_passed || passed;
    if (ms > 0 && (l->best_ms == 0 || ms < l->best_ms)) {
        l->best_ms = ms;
        l->best_speedup = speedup;
    }
}

void state_record_quiz(struct state *s, int lesson, int right, int total, enum quiz_answered how)
{
    if (lesson < 1 || lesson > MAX_LESSONS || total <= 0 || right < 0 || right > total)
        return;
    struct lesson_state *l = &s->lesson[lesson];
    /* Best as a fraction: a quiz whose bank questions vary in number still compares fairly. Of two
     * scores as good, the typed one is kept: it says more than a file of answers does. */
    double now = (double)right / total, best = l->quiz_total ? (double)l->quiz_best / l->quiz_total : -1;
    if (now > best || (now == best && how == QUIZ_TYPED && l->quiz_how != QUIZ_TYPED)) {
        l->quiz_best = right;
        l->quiz_total = total;
        l->quiz_how = how;
    }
}

const char *quiz_answered_words(enum quiz_answered how)
{
    return how == QUIZ_FROM_FILE ? "from a file" : how == QUIZ_PIPED ? "piped in" : "at the terminal";
}
