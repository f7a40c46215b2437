/* The record one run of a lesson's judge leaves for make (WB_RESULT_FILE): what ran, each case's
 * verdict and points, the speed measured. Written by the judge and read by make check, make grade
 * and the scripts, through this file alone: one line per key ("speedup 1.47"), one line per case
 * ("case passed 2 2 correct N=31") followed by its report ("output ...", escaped), so a reader
 * asks for a key by name and never by its position on a line.
 *
 * Points (docs/grading.md): a correctness case earns its points when it passes; the speed case
 * only when every other case passed too (the speed of a wrong kernel, or of one that breaks the
 * lesson's rules, is worth nothing); a race or a stray access that compute-sanitizer finds voids
 * the lesson (its right outputs were luck). Self-study keeps "passed = every case passed". */
#ifndef WB_CHECK_RECORD_H
#define WB_CHECK_RECORD_H
#include <stddef.h>

#include "check.h"

#define RECORD_MAX_CASES 16
#define RECORD_OUTPUT_MAX 6000 /* a case's report kept for results.json; longer ones are cut */

/* RESULT_ELSEWHERE: not this judge's to run (the emulator leaves its largest sizes to the GPU),
 * which stops no other case from counting; such a case is worth 0 points. */
enum case_result { RESULT_NOT_RUN, RESULT_PASSED, RESULT_FAILED, RESULT_SKIPPED, RESULT_ELSEWHERE };

struct case_record {
    char name[96];
    enum case_result result;
    enum case_kind kind;  /* what the case is for (check.h), which decides its points */
    int points, max_points; /* earned (after the rules above), and what it is worth */
    char *output;           /* its part of the report (malloc'd), or NULL */
};

/* The emulator's counts of a kernel at the first counting size, by name ("count student
 * global_ld.sectors 131072"): what a time model reads (checker/model/fit-timed.py), so that no
 * script reads them out of a report's tables. */
#define RECORD_MAX_COUNTS 128
struct record_count {
    char role[12]; /* "student", "solution", "baseline" */
    char key[28];  /* "global_ld.sectors", "issued.float", "min_burst_bytes", "resident_threads", ... */
    double value;
};

struct check_record {
    int lesson, no_gpu, hung;
    int emulator; /* judged by the CPU emulator: its speed case counted traffic, timed nothing */
    int partial; /* ONLY picked some cases: passing them is not passing the lesson */
    double speed_ms, speedup, solution_ms, baseline_ms;
    double limit_share; /* the student's throughput over the family's yardstick's (0: not timed) */
    int ncases;
    struct case_record cases[RECORD_MAX_CASES];
    char count_size[32]; /* where the counts below were taken ("N=256"; empty: none) */
    int ncounts;
    struct record_count counts[RECORD_MAX_COUNTS];
};

/* Adds a count (a key with no space, as above); one past RECORD_MAX_COUNTS is dropped. */
void record_add_count(struct check_record *r, const char *role, const char *key, double value);

/* Fills in each case's points from its result, kind and max_points, by the rules above. */
void record_score(struct check_record *r);
/* Sums over the cases. */
int record_points(const struct check_record *r);
int record_max_points(const struct check_record *r);
int record_count(const struct check_record *r, enum case_result result);
/* Every case passed (or was another judge's), and the run was not partial. */
int record_passed(const struct check_record *r);
const char *case_result_name(enum case_result r);

/* 0 on success. record_read: -1 if the file is missing, or is not a record (err says which). */
int record_write(const char *path, const struct check_record *r);
int record_read(const char *path, struct check_record *r, char *err, size_t errlen);
void record_free(struct check_record *r);

#endif
