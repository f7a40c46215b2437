/* The student's progress (work/state): the selected lesson, and per lesson whether it passed,
 * the best time of a correct kernel, how many hints were shown and the best quiz score (and how
 * its answers arrived). Plain text, safe to delete. */
#ifndef WB_STATE_H
#define WB_STATE_H
#include <stdbool.h>

#include "registry.h"

/* How a quiz's answers arrived: typed at a terminal, or read from a file (make quiz ANSWERS=file)
 * or a pipe. Every score is kept; make status says which kind it is, since answers that were not
 * typed may be a key's. */
enum quiz_answered { QUIZ_TYPED, QUIZ_FROM_FILE, QUIZ_PIPED };

struct lesson_state {
    bool passed;          /* the last check passed */
    bool ever_passed;
    int checks;           /* how often it was checked */
    double best_ms;       /* fastest correct run at the speed size; 0 = none yet */
    double best_speedup;  /* over the baseline, in that run */
    int hints_shown;
    int quiz_best, quiz_total; /* the best make quiz score (quiz_best of quiz_total); 0 of 0: not taken */
    enum quiz_answered quiz_how; /* how that score's answers arrived */
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
/* Records a quiz taken: right of total, answered as how says; the best score is kept (of two as
 * good, the typed one). */
void state_record_quiz(struct state *s, int lesson, int right, int total, enum quiz_answered how);
/* How a score was answered, in words for make status: "at the terminal", "from a file", "piped in". */
const char *quiz_answered_words(enum quiz_answered how);

#endif
