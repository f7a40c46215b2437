/* The state of one run of a lesson's judge, and its report (check_run.c defines them): the
 * bottom layer of checker/judge/, read by every other file of the judge and reading none of them.
 * Those files stand in layers, each calling only the ones below it (docs/architecture.md; make
 * arrows-test holds them to it). The judge links no kernel: no line of a lesson file runs in it,
 * so nothing a kernel prints or does can pass for a verdict (docs/security.md). */
#ifndef WB_CHECK_RUN_H
#define WB_CHECK_RUN_H
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "check_record.h"
#include "gpu_job.h"
#include "registry.h"
#include "thresholds.h"

/* The emulator runs a few million threads a second: larger cases are left to the GPU judge
 * (every edge and partial tile is in the smaller ones); memory traffic is counted at the
 * family's counting size (family.h). */
#define EMU_MAX_WORK 20000000.0

/* One run of the check program. */
struct check_run {
    const struct lesson *lesson;
    struct thresholds limits; /* lessons/NN_topic/thresholds: what the speed case demands */
    uint64_t seed;
    double timeout_s;
    int reps;
    int speed_size;        /* SPEED_SIZE, or 0 */
    int count_rows, count_cols; /* COUNT_AT_SPEED_SIZE=1: the first counting size is the speed
                                 * case's (measuring the time model at the timed size), else 0 */
    int sample_blocks;          /* WB_SAMPLE_BLOCKS=N with it, in the emulator: only N blocks of
                                 * each launch there, whose output is then judged only where
                                 * they wrote it */
    int narrate_to_stderr; /* TAP/XML on stdout must stay clean */
    int hung;              /* a case ran out of time: later cases are skipped */
    double hung_elems;     /* the size (rows x cols) of the job that ran out of time */
    int stop_at_failure;   /* WB_STOP_AT_FAILURE=1: cases after a failed one are skipped (make
                            * mutants needs only the first diagnosis of a wrong kernel) */
    /* From a speed case whose output was right before and after timing; 0 otherwise. */
    double speed_ms, speedup, solution_ms, baseline_ms;
    double limit_share;    /* the student's throughput over the family's yardstick's, where timed */
    struct gpu_report device;
    int emulator;          /* this judge is check-emu: the emulator's runner (the PTX interpreter) */
    int have_solution;     /* 0 in a handout (no solutions/) */
    char here[800];        /* the folder this program lies in: build/SRC/NN */
    char common[900];      /* build/common/NN: the reference side */
    char source[1024];     /* the student's file, for the report */
    int sandbox_warned;
    struct check_record record; /* what WB_RESULT_FILE receives: each case's verdict and report */
    int current;                /* the case running (its index in record.cases), or -1 */
    int later_launch;           /* judging an output of a launch after a first one that was right */
    int right_alone;            /* judging a batch's output that the same job run alone got right */
    int judged_right;           /* an output of the student's kernel was right at some size */
};
extern struct check_run checking;

/* The report, on stdout (stderr with `# ` when cmocka's TAP/XML has stdout); what is said during
 * a case is kept in its record too. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Text that is not the checker's words (what a kernel printed: who, "Your kernel"), said fenced
 * and escaped (quote.h): no line of it can pass for the report's own or act on a terminal. */
void say_quoted(const char *who, const char *text, size_t len, size_t printed_bytes, size_t printed_lines);
/* Ends the current case as failed with this sentence (cmocka's failure; kept in the record). */
void case_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Ends the current case unjudged: RESULT_SKIPPED (never a pass) or RESULT_ELSEWHERE. */
void case_skip(enum case_result why) __attribute__((noreturn));
/* "N=100" or "100x257". */
const char *size_text(const struct check_case *c, char *buf, size_t len);

/* The reference solution is part of this copy of the workbook (not in a handout). */
int solution_present(void);
static inline int role_present(int role) { return role != ROLE_SOLUTION || solution_present(); }
/* The kernel whose output the student's is compared with, element by element. */
static inline int reference_role(void) { return solution_present() ? ROLE_SOLUTION : ROLE_BASELINE; }
/* "the reference solution", or in a handout (no solutions/) "the baseline kernel". */
const char *reference_name(void);

#endif
