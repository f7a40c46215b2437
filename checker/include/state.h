/* The student's progress (work/state): the selected lesson, and per lesson whether it passed,
 * the best time of a correct kernel, how many hints were shown and the best quiz score. Plain text, safe to delete. */
#ifndef WB_STATE_H
#define WB_STATE_H
#include <stdbool.h>

#include "registry.h"

struct lesson_state {
    bool passed;          /* the last check passed */
    bool ever_passed;
    int checks;           /* how often it was checked */
    double best_ms;       /* fastest correct run at the speed size; 0 = none yet */
    double best_speedup;  /* over the baseline, in that run */
    int hints_shown;
    int quiz_best, quiz_total; /* the best make quiz score (quiz_best of quiz_total); 0 of 0: not taken */
};

struct state {
    int current;  /* 0 = no lesson selected yet */
    struct lesson_state lesson[MAX_LESSONS + 1];  /* indexed by lesson number */
};

/* A missing file is an empty state (returns 0); an unreadable line is skipped. */
int state_load(const char *path, struct state *s);
/* Writes atomically (temporary file, then rename), so an interrupted save loses nothing. */
int state_save(const char *path, const struct state *s);
/* Records one check of a lesson. ms/speedup are those of a correct speed run, or 0 if none. */
void state_record_check(struct state *s, int lesson, bool passed, double ms, double speedup);
/* Records a quiz taken: right of total; the best score is kept. */
void state_record_quiz(struct state *s, int lesson, int right, int total);

#endif
