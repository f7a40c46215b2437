/* Unit tests for checker/src/teaching/state.c: loading a missing or partly garbled work/state, the
 * save/load round trip, the atomic save (no temporary left, the old file kept when the save
 * cannot happen), state_record_check's bookkeeping and the quiz's best score with how its
 * answers came. Files live in a mkdtemp folder. */
#define _GNU_SOURCE /* nftw, in scratch.h */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scratch.h"
#include "state.h"
#include "text.h"
#include "unit.h"

static size_t read_text(const char *path, char *buf, size_t len)
{
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    size_t n = fread(buf, 1, len - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return n;
}

/* An empty state but for the lesson selected and how often it was checked. */
static struct state checked(int current, int checks)
{
    struct state s;
    memset(&s, 0, sizeof s);
    s.current = current;
    s.lesson[current].checks = checks;
    return s;
}

static void load_missing_is_empty(void **state)
{
    struct scratch *f = *state;
    struct state s;
    memset(&s, 0x7F, sizeof s); /* garbage must be cleared */
    assert_int_equal(state_load(f->path, &s), 0);
    assert_int_equal(s.current, 0);
    for (int n = 0; n <= MAX_LESSONS; n++) {
        assert_false(s.lesson[n].passed);
        assert_false(s.lesson[n].ever_passed);
        assert_int_equal(s.lesson[n].checks, 0);
        assert_true(s.lesson[n].best_ms == 0.0);
        assert_true(s.lesson[n].best_speedup == 0.0);
        assert_int_equal(s.lesson[n].hints_shown, 0);
    }
    assert_false(exists(f->path)); /* loading creates nothing */
}

static void save_load_round_trip(void **state)
{
    struct scratch *f = *state;
    struct state s;
    memset(&s, 0, sizeof s);
    s.current = 4;
    s.lesson[1] = (struct lesson_state){true, true, 3, 1.25, 3.5, 2, 0, 0, QUIZ_TYPED};
    s.lesson[2] = (struct lesson_state){false, true, 7, 0.0078125, 12.75, 4, 0, 0, QUIZ_TYPED};
    s.lesson[4] = (struct lesson_state){false, false, 1, 0.0, 0.0, 0, 0, 0, QUIZ_TYPED};
    s.lesson[5] = (struct lesson_state){false, false, 0, 0.0, 0.0, 1, 0, 0, QUIZ_TYPED}; /* only a hint shown */
    s.lesson[MAX_LESSONS] = (struct lesson_state){true, true, 1, 250.5, 0.5, 0, 0, 0, QUIZ_TYPED};
    s.lesson[6] = (struct lesson_state){false, false, 0, 0.0, 0.0, 0, 7, 8, QUIZ_FROM_FILE}; /* only a quiz taken */
    assert_int_equal(state_save(f->path, &s), 0);

    struct state t;
    assert_int_equal(state_load(f->path, &t), 0);
    assert_int_equal(t.current, 4);
    for (int n = 1; n <= MAX_LESSONS; n++) {
        const struct lesson_state *a = &s.lesson[n], *b = &t.lesson[n];
        assert_int_equal(b->passed, a->passed);
        assert_int_equal(b->ever_passed, a->ever_passed);
        assert_int_equal(b->checks, a->checks);
        assert_true(b->best_ms == a->best_ms);
        assert_true(b->best_speedup == a->best_speedup);
        assert_int_equal(b->hints_shown, a->hints_shown);
        assert_int_equal(b->quiz_best, a->quiz_best);
        assert_int_equal(b->quiz_total, a->quiz_total);
        assert_int_equal(b->quiz_how, a->quiz_how);
    }
}

static void quiz_keeps_the_best_score(void **state)
{
    (void)state;
    struct state s;
    memset(&s, 0, sizeof s);
    state_record_quiz(&s, 2, 5, 8, QUIZ_TYPED);
    state_record_quiz(&s, 2, 4, 8, QUIZ_TYPED); /* a worse try changes nothing */
    assert_int_equal(s.lesson[2].quiz_best, 5);
    state_record_quiz(&s, 2, 7, 9, QUIZ_TYPED);
    assert_int_equal(s.lesson[2].quiz_best, 7);
    assert_int_equal(s.lesson[2].quiz_total, 9);
    state_record_quiz(&s, 2, 10, 9, QUIZ_TYPED); /* impossible scores are refused */
    state_record_quiz(&s, 0, 1, 1, QUIZ_TYPED);
    assert_int_equal(s.lesson[2].quiz_best, 7);
    assert_int_equal(s.lesson[0].quiz_total, 0);
}

/* Answers from a file or a pipe are recorded too (they were dropped, without a word), marked
 * with how they came; of two scores as good, the typed one is kept. */
static void quiz_records_how_it_was_answered(void **state)
{
    (void)state;
    struct state s;
    memset(&s, 0, sizeof s);
    state_record_quiz(&s, 3, 6, 8, QUIZ_FROM_FILE);
    assert_int_equal(s.lesson[3].quiz_best, 6);
    assert_int_equal(s.lesson[3].quiz_how, QUIZ_FROM_FILE);
    state_record_quiz(&s, 3, 5, 8, QUIZ_TYPED); /* worse: the file's score stays, and its mark */
    assert_int_equal(s.lesson[3].quiz_how, QUIZ_FROM_FILE);
    state_record_quiz(&s, 3, 6, 8, QUIZ_TYPED); /* as good, and typed */
    assert_int_equal(s.lesson[3].quiz_how, QUIZ_TYPED);
    state_record_quiz(&s, 3, 6, 8, QUIZ_PIPED); /* as good, not typed: the typed one stays */
    assert_int_equal(s.lesson[3].quiz_how, QUIZ_TYPED);
    state_record_quiz(&s, 3, 8, 8, QUIZ_PIPED);
    assert_int_equal(s.lesson[3].quiz_best, 8);
    assert_int_equal(s.lesson[3].quiz_how, QUIZ_PIPED);
    assert_string_equal(quiz_answered_words(QUIZ_TYPED), "at the terminal");
    assert_string_equal(quiz_answered_words(QUIZ_FROM_FILE), "from a file");
    assert_string_equal(quiz_answered_words(QUIZ_PIPED), "piped in");
}

static void quiz_how_round_trip(void **state)
{
    struct scratch *f = *state;
    struct state s;
    memset(&s, 0, sizeof s);
    state_record_quiz(&s, 1, 3, 5, QUIZ_TYPED);
    state_record_quiz(&s, 2, 4, 5, QUIZ_FROM_FILE);
    state_record_quiz(&s, 3, 5, 5, QUIZ_PIPED);
    assert_int_equal(state_save(f->path, &s), 0);
    char text[1024];
    read_text(f->path, text, sizeof text);
    assert_contains(text, "quiz 4/5 by file\n");
    struct state t;
    assert_int_equal(state_load(f->path, &t), 0);
    assert_int_equal(t.lesson[1].quiz_how, QUIZ_TYPED);
    assert_int_equal(t.lesson[2].quiz_how, QUIZ_FROM_FILE);
    assert_int_equal(t.lesson[3].quiz_how, QUIZ_PIPED);
    assert_int_equal(t.lesson[3].quiz_best, 5);
}

static void round_trip_keeps_six_significant_digits(void **state)
{
    /* Times are saved as %.6g: an arbitrary double comes back to 6 significant digits. */
    struct scratch *f = *state;
    struct state s, t;
    memset(&s, 0, sizeof s);
    s.lesson[3] = (struct lesson_state){true, true, 2, 0.123456789, 7.654321098, 0, 0, 0, QUIZ_TYPED};
    assert_int_equal(state_save(f->path, &s), 0);
    assert_int_equal(state_load(f->path, &t), 0);
    assert_true(t.lesson[3].best_ms > 0.0);
    assert_true(fabs(t.lesson[3].best_ms - 0.123456789) <= 1e-6 * 0.123456789 * 5);
    assert_true(fabs(t.lesson[3].best_speedup - 7.654321098) <= 1e-6 * 7.654321098 * 5);
}

static void save_replaces_previous_file(void **state)
{
    struct scratch *f = *state;
    struct state s = checked(2, 5), t;
    assert_int_equal(state_save(f->path, &s), 0);
    s = checked(1, 1);
    assert_int_equal(state_save(f->path, &s), 0);
    assert_int_equal(state_load(f->path, &t), 0);
    assert_int_equal(t.current, 1);
    assert_int_equal(t.lesson[1].checks, 1);
    assert_int_equal(t.lesson[2].checks, 0);
}

static void save_leaves_no_temporary(void **state)
{
    struct scratch *f = *state;
    struct state s = checked(1, 2);
    assert_int_equal(state_save(f->path, &s), 0);
    assert_int_equal(state_save(f->path, &s), 0);
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s.tmp", f->path);
    assert_false(exists(tmp));
    assert_true(exists(f->path));
    assert_int_equal(entries(f->dir), 1);
}

static void failed_save_keeps_old_file(void **state)
{
    /* When the temporary file cannot be written, the save fails and the old state stays. */
    struct scratch *f = *state;
    struct state s = checked(3, 9), t;
    assert_int_equal(state_save(f->path, &s), 0);
    char before[4096], after[4096];
    read_text(f->path, before, sizeof before);

    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s.tmp", f->path);
    assert_int_equal(mkdir(tmp, 0700), 0); /* blocks the temporary file */
    s.current = 5;
    assert_int_equal(state_save(f->path, &s), -1);
    read_text(f->path, after, sizeof after);
    assert_string_equal(after, before);
    assert_int_equal(state_load(f->path, &t), 0);
    assert_int_equal(t.current, 3);
    rmdir(tmp);
}

static void save_into_missing_folder_fails(void **state)
{
    struct scratch *f = *state;
    struct state s;
    memset(&s, 0, sizeof s);
    assert_int_equal(state_save(scratch_file(f, "no/such/folder/state"), &s), -1);
}

static void garbage_lines_skipped(void **state)
{
    struct scratch *f = *state;
    write_text(f->path,
               "# a comment\n"
               "current 2\n"
               "this is not a state line\n"
               "lesson 1 passed 1 ever_passed 1 checks 4 best_ms 2.5 best_speedup 3 hints 1\n"
               "lesson x passed 1 ever_passed 1 checks 4 best_ms 2.5 best_speedup 3 hints 1\n"
               "lesson 2 passed 1 ever_passed\n"
               "lesson 99 passed 1 ever_passed 1 checks 4 best_ms 2.5 best_speedup 3 hints 1\n"
               "lesson 0 passed 1 ever_passed 1 checks 4 best_ms 2.5 best_speedup 3 hints 1\n"
               "\n"
               "lesson 3 passed 0 ever_passed 1 checks 6 best_ms 0.5 best_speedup 8 hints 2\n"
               "lesson 4 passed 0 ever_passed 0 checks 1 best_ms 0 best_speedup 0 hints 0 quiz 9/7\n"
               "lesson 5 passed 0 ever_passed 0 checks 1 best_ms 0 best_speedup 0 hints 0 quiz 6/8\n"
               "lesson 6 passed 0 ever_passed 0 checks 1 best_ms 0 best_speedup 0 hints 0 quiz 2/8 by pipe\n"
               "lesson 7 passed 0 ever_passed 0 checks 1 best_ms 0 best_speedup 0 hints 0 quiz 2/8 by what\n");
    struct state s;
    assert_int_equal(state_load(f->path, &s), 0);
    assert_int_equal(s.current, 2);
    assert_true(s.lesson[1].passed);
    assert_int_equal(s.lesson[1].checks, 4);
    assert_true(s.lesson[1].best_ms == 2.5);
    assert_true(s.lesson[1].best_speedup == 3.0);
    assert_int_equal(s.lesson[1].hints_shown, 1);
    assert_int_equal(s.lesson[1].quiz_total, 0); /* a record from before quizzes were kept */
    assert_int_equal(s.lesson[4].quiz_total, 0); /* 9 of 7 cannot be */
    assert_int_equal(s.lesson[4].checks, 1);
    assert_int_equal(s.lesson[5].quiz_best, 6);
    assert_int_equal(s.lesson[5].quiz_total, 8);
    assert_int_equal(s.lesson[5].quiz_how, QUIZ_TYPED); /* from before the mark: only typed ones were kept */
    assert_int_equal(s.lesson[6].quiz_how, QUIZ_PIPED);
    assert_int_equal(s.lesson[7].quiz_best, 2);
    assert_int_equal(s.lesson[7].quiz_how, QUIZ_TYPED); /* an unknown mark */
    assert_int_equal(s.lesson[2].checks, 0);
    assert_false(s.lesson[2].passed);
    assert_int_equal(s.lesson[0].checks, 0);
    assert_false(s.lesson[3].passed);
    assert_true(s.lesson[3].ever_passed);
    assert_int_equal(s.lesson[3].checks, 6);
    assert_true(s.lesson[3].best_ms == 0.5);
    assert_int_equal(s.lesson[3].hints_shown, 2);
}

static void current_out_of_range_ignored(void **state)
{
    struct scratch *f = *state;
    write_text(f->path, "current 3\ncurrent 999\ncurrent -1\n");
    struct state s;
    assert_int_equal(state_load(f->path, &s), 0);
    assert_int_equal(s.current, 3);
}

/* Checks of one lesson recorded one after another, each with the lesson's record after it;
 * every other lesson's record stays empty. */
static void record_keeps_the_best_and_counts(void **state)
{
    (void)state;
    const struct {
        const char *what;
        int lesson;
        struct step {
            bool passed;
            double ms, speedup;                 /* the check */
            bool now_passed, ever_passed;       /* the record after it */
            double best_ms, best_speedup;
            int checks;
        } steps[4];
    } scenarios[] = {
        {"a first check", 2, {{true, 1.5, 4.0, true, true, 1.5, 4.0, 1}}},
        {"the best time kept (slower kept out, faster replaces time and speed-up, equal is not better)", 1,
         {{true, 2.0, 3.0, true, true, 2.0, 3.0, 1},
          {true, 3.0, 2.0, true, true, 2.0, 3.0, 2},
          {true, 1.0, 6.0, true, true, 1.0, 6.0, 3},
          {true, 1.0, 9.0, true, true, 1.0, 6.0, 4}}},
        {"no time, or a failed run, never a best", 1,
         {{false, 0.0, 0.0, false, false, 0.0, 0.0, 1},
          {true, 2.0, 5.0, true, true, 2.0, 5.0, 2},
          {false, 0.0, 0.0, false, true, 2.0, 5.0, 3},
          {false, -1.0, 7.0, false, true, 2.0, 5.0, 4}}},
        {"passed once, ever passed", 5,
         {{false, 0.0, 0.0, false, false, 0.0, 0.0, 1},
          {true, 0.0, 0.0, true, true, 0.0, 0.0, 2},
          {false, 0.0, 0.0, false, true, 0.0, 0.0, 3}}},
    };
    struct lesson_state empty;
    memset(&empty, 0, sizeof empty);
    for (size_t k = 0; k < sizeof scenarios / sizeof scenarios[0]; k++) {
        struct state s;
        memset(&s, 0, sizeof s);
        int n = scenarios[k].lesson;
        for (int i = 0; i < 4 && scenarios[k].steps[i].checks; i++) {
            const struct step *c = &scenarios[k].steps[i];
            state_record_check(&s, n, c->passed, c->ms, c->speedup);
            const struct lesson_state *got = &s.lesson[n];
            if (got->passed != c->now_passed || got->ever_passed != c->ever_passed || got->best_ms != c->best_ms ||
                got->best_speedup != c->best_speedup || got->checks != c->checks)
                fail_msg("%s, check %d: passed %d, ever passed %d, best %g ms and %gx after %d checks; expected %d, "
                         "%d, %g ms, %gx, %d",
                         scenarios[k].what, i + 1, got->passed, got->ever_passed, got->best_ms, got->best_speedup,
                         got->checks, c->now_passed, c->ever_passed, c->best_ms, c->best_speedup, c->checks);
        }
        for (int other = 0; other <= MAX_LESSONS; other++)
            if (other != n && memcmp(&s.lesson[other], &empty, sizeof empty) != 0)
                fail_msg("%s: lesson %d's record changed too", scenarios[k].what, other);
    }
}

static void record_out_of_range_ignored(void **state)
{
    (void)state;
    struct state s, before;
    memset(&s, 0, sizeof s);
    memcpy(&before, &s, sizeof s);
    state_record_check(&s, 0, true, 1.0, 1.0);
    state_record_check(&s, MAX_LESSONS + 1, true, 1.0, 1.0);
    state_record_check(&s, -3, true, 1.0, 1.0);
    assert_memory_equal(&s, &before, sizeof s);
    state_record_check(&s, MAX_LESSONS, true, 1.0, 1.0);
    assert_int_equal(s.lesson[MAX_LESSONS].checks, 1);
}

static void record_then_round_trip(void **state)
{
    struct scratch *f = *state;
    struct state s, t;
    memset(&s, 0, sizeof s);
    s.current = 1;
    state_record_check(&s, 1, true, 0.75, 2.5);
    state_record_check(&s, 1, false, 0.0, 0.0);
    assert_int_equal(state_save(f->path, &s), 0);
    assert_int_equal(state_load(f->path, &t), 0);
    assert_false(t.lesson[1].passed);
    assert_true(t.lesson[1].ever_passed);
    assert_int_equal(t.lesson[1].checks, 2);
    assert_true(t.lesson[1].best_ms == 0.75);
    assert_true(t.lesson[1].best_speedup == 2.5);
}

#define T(name) cmocka_unit_test_setup_teardown(name, scratch_setup, scratch_teardown)

UNIT_TESTS_MAIN(
    T(load_missing_is_empty),
    T(save_load_round_trip),
    T(round_trip_keeps_six_significant_digits),
    T(save_replaces_previous_file),
    T(save_leaves_no_temporary),
    T(failed_save_keeps_old_file),
    T(save_into_missing_folder_fails),
    T(garbage_lines_skipped),
    T(current_out_of_range_ignored),
    cmocka_unit_test(quiz_keeps_the_best_score),
    cmocka_unit_test(quiz_records_how_it_was_answered),
    T(quiz_how_round_trip),
    cmocka_unit_test(record_keeps_the_best_and_counts),
    cmocka_unit_test(record_out_of_range_ignored),
    T(record_then_round_trip))
