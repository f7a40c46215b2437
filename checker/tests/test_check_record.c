/* The judge's record (check_record.h): the points rules, and the file read back as written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "check_record.h"
#include "text.h"
#include "unit.h"

/* Lesson 2's shape: five correctness cases of 2 points, the large one of 0, speed 15, and on a
 * GPU under make grade the two gates. */
static struct check_record lesson2(enum case_result all)
{
    struct check_record r = {.lesson = 2};
    const struct { const char *name; enum case_kind kind; int max; } cases[] = {
        {"correct N=1", CASE_CORRECT, 2},   {"correct N=31", CASE_CORRECT, 2},  {"correct N=33", CASE_CORRECT, 2},
        {"correct N=100", CASE_CORRECT, 2}, {"correct N=257", CASE_CORRECT, 2}, {"correct N=1000", CASE_CORRECT, 0},
        {"speed N=2048", CASE_SPEED, 15},   {"compute-sanitizer N=100", CASE_SANITIZER, 0},
        {"Nsight Compute counters N=128", CASE_PROFILE, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct case_record *c = &r.cases[r.ncases++];
        snprintf(c->name, sizeof c->name, "%s", cases[i].name);
        c->kind = cases[i].kind;
        c->max_points = cases[i].max;
        c->result = all;
    }
    return r;
}

static void full_marks_when_all_pass(void **state)
{
    (void)state;
    struct check_record r = lesson2(RESULT_PASSED);
    record_score(&r);
    assert_int_equal(record_points(&r), 25);
    assert_int_equal(record_max_points(&r), 25);
    assert_true(record_passed(&r));
    r.partial = 1; /* ONLY= */
    assert_false(record_passed(&r));
}

/* Lesson 2's record with one case's result changed, scored: its points, and whether it passed. */
static void one_case_decides(void **state)
{
    (void)state;
    const struct {
        const char *what;
        int ncases; /* 0: all nine, gates included */
        int changed;
        enum case_result result;
        int points;
        bool passed;
    } cases[] = {
        {"correct but slow keeps its correctness points", 0, 6, RESULT_FAILED, 10, false},
        {"wrong at N=1000 only: fast, but wrong", 0, 5, RESULT_FAILED, 10, false},
        {"the counters break the traffic rule", 0, 8, RESULT_FAILED, 10, false},
        {"a gate not run is not passed", 0, 8, RESULT_SKIPPED, 10, false},
        {"a sanitizer failure voids the lesson", 0, 7, RESULT_FAILED, 0, false},
        {"another judge's case stops nothing (the emulator: no gates)", 7, 5, RESULT_ELSEWHERE, 25, true},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct check_record r = lesson2(RESULT_PASSED);
        if (cases[k].ncases)
            r.ncases = cases[k].ncases;
        r.cases[cases[k].changed].result = cases[k].result;
        record_score(&r);
        bool passed = record_passed(&r) != 0;
        if (record_points(&r) != cases[k].points || passed != cases[k].passed)
            fail_msg("%s: %d points, %s; expected %d, %s", cases[k].what, record_points(&r),
                     passed ? "passed" : "not passed", cases[k].points, cases[k].passed ? "passed" : "not passed");
    }
}

static void reads_back_what_it_wrote(void **state)
{
    (void)state;
    char path[] = "/tmp/wb-record-XXXXXX", err[256];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    struct check_record r = lesson2(RESULT_PASSED), back;
    r.cases[3].result = RESULT_FAILED;
    r.cases[3].output = strdup("  At N=100: 3 of 10000 elements wrong\n\ttab \\ backslash\nFailed: wrong output\n");
    r.speedup = 1.47;
    r.hung = 1;
    r.emulator = 1;
    record_score(&r);
    assert_int_equal(record_write(path, &r), 0);
    assert_int_equal(record_read(path, &back, err, sizeof err), 0);
    assert_int_equal(back.ncases, r.ncases);
    assert_int_equal(record_points(&back), 8);
    assert_int_equal(back.hung, 1);
    assert_int_equal(back.emulator, 1); /* make grade marks its speed points provisional */
    assert_true(back.speedup == 1.47);
    assert_string_equal(back.cases[3].output, r.cases[3].output);
    assert_string_equal(back.cases[6].name, "speed N=2048");
    assert_int_equal(back.cases[6].kind, CASE_SPEED);
    assert_null(back.cases[0].output);
    record_free(&r);
    record_free(&back);
    /* The emulator's counts, by name, exactly (a count of 2^53 + 1 would not be: no count nears it). */
    r = lesson2(RESULT_PASSED);
    snprintf(r.count_size, sizeof r.count_size, "N=256");
    record_add_count(&r, "student", "global_ld.wavefronts", 131072);
    record_add_count(&r, "baseline", "least_burst", 4.5);
    record_add_count(&r, "student", "issued.tensor", 9007199254740992.0);
    for (int i = 0; i < RECORD_MAX_COUNTS; i++) /* past the table's end: dropped, never overflowing */
        record_add_count(&r, "solution", "threads", i);
    assert_int_equal(r.ncounts, RECORD_MAX_COUNTS);
    assert_int_equal(record_write(path, &r), 0);
    assert_int_equal(record_read(path, &back, err, sizeof err), 0);
    assert_string_equal(back.count_size, "N=256");
    assert_int_equal(back.ncounts, RECORD_MAX_COUNTS);
    assert_string_equal(back.counts[0].role, "student");
    assert_string_equal(back.counts[0].key, "global_ld.wavefronts");
    assert_true(back.counts[0].value == 131072);
    assert_true(back.counts[1].value == 4.5);
    assert_true(back.counts[2].value == 9007199254740992.0);
    record_free(&back);
    /* A count line that is not one: the record is refused. */
    FILE *g = fopen(path, "w");
    fputs("wb-check-record 1\ncount student\n", g);
    fclose(g);
    assert_int_equal(record_read(path, &back, err, sizeof err), -1);
    /* Not a record: refused with a sentence, never half read. */
    FILE *f = fopen(path, "w");
    fputs("lesson 2 tests 7 failed 0 no_gpu 0\n", f);
    fclose(f);
    assert_int_equal(record_read(path, &back, err, sizeof err), -1);
    assert_contains(err, "not a check record");
    f = fopen(path, "w");
    fputs("wb-check-record 1\ncase passed sideways 2 2 correct N=1\n", f);
    fclose(f);
    assert_int_equal(record_read(path, &back, err, sizeof err), -1);
    unlink(path);
    assert_int_equal(record_read(path, &back, err, sizeof err), -1);
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(full_marks_when_all_pass),
    cmocka_unit_test(one_case_decides),
    cmocka_unit_test(reads_back_what_it_wrote))
