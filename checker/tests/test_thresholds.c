/* Unit tests for checker/src/formats/thresholds.c (a lesson's thresholds file: every field, comments,
 * every refusal with the line it names) and for threshold_quotes_check and threshold_row_check
 * (checker/src/teaching/hints.c: a lesson text's quotes of them, and the README's table of lessons);
 * then every real lesson's file and README, read from the repository root where make runs the tests. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hints.h"
#include "refusals.h"
#include "registry.h"
#include "text.h"
#include "textfile.h"
#include "thresholds.h"
#include "unit.h"

static int parse_thresholds(const char *text, char *err, size_t errlen, int *line)
{
    struct thresholds t;
    int rc = thresholds_parse(text, "t", &t, err, errlen);
    *line = line_named(err, "t");
    return rc;
}

static void reads_every_field(void **state)
{
    (void)state;
    struct thresholds t;
    char err[512] = "";
    const char *text = "# a comment\n\nmin_speedup 1.60   # beside\nmin_limit_share 0.7\nmax_sector_ratio 1\n"
                       "no_bank_conflicts yes\nmin_loaded_between_barriers 16\nmax_barriers_per_thread 4\n"
                       "min_tensor_core_share 1.0\n\tmax_conflict_share 0.01";
    if (thresholds_parse(text, "t", &t, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(t.min_speedup == 1.6 && t.min_limit_share == 0.7 && t.max_sector_ratio == 1);
    assert_int_equal(t.no_bank_conflicts, 1);
    assert_true(t.min_loaded_between_barriers == 16 && t.max_barriers_per_thread == 4);
    assert_true(t.min_tensor_core_share == 1 && t.max_conflict_share == 0.01);
    /* Left out: no rule. */
    assert_int_equal(thresholds_parse("min_speedup 2\nno_bank_conflicts no\n", "t", &t, err, sizeof err), 0);
    assert_true(t.min_speedup == 2 && t.min_limit_share == 0 && t.no_bank_conflicts == 0);
}

REFUSALS_TEST(refuses_each_mistake, parse_thresholds,
    {"min_speedup 1.5\nspeedup 2\n", 2, "'speedup' is not a threshold (they are: min_speedup,"},
    {"min_speedup 1.5\nmin_speedup 2\n", 2, "min_speedup is set a second time"},
    {"min_speedup\n", 1, "expected a threshold's name and its value"},
    {"min_speedup 1.5 2\n", 1, "expected a threshold's name and its value"},
    {"# x\nmin_speedup 1.5x\n", 2, "must be a plain decimal number, as 1.5, not '1.5x'"},
    {"min_speedup -1\n", 1, "plain decimal"},
    {"min_speedup nan\n", 1, "plain decimal"},
    {"min_speedup 0x10\n", 1, "plain decimal"},
    {"min_speedup 1e3\n", 1, "plain decimal"},
    {"min_speedup .5\n", 1, "plain decimal"},
    {"min_speedup 2\nmax_sector_ratio 0\n", 2, "max_sector_ratio 0 is no rule: leave the line out"},
    {"min_speedup 2\nmax_conflict_share 5\n", 2, "max_conflict_share is a share, at most 1 (0.01 is 1%)"},
    {"min_speedup 2\nmin_tensor_core_share 1.5\n", 2, "is a share, at most 1"},
    {"min_speedup 1.5\nno_bank_conflicts 1\n", 2, "no_bank_conflicts is yes or no, not '1'"},
    {"max_sector_ratio 0.5\n", 0, "min_speedup is missing"},
    {"min_speedup 0\n", 1, "min_speedup 0 is no rule"},
    {"", 0, "min_speedup is missing"},
)

/* A file: read whole, and refused with a sentence where it is missing or holds a NUL byte. */
static void files_read_whole(void **state)
{
    (void)state;
    struct thresholds t;
    char err[512] = "", path[] = "/tmp/wb-thresholds-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "min_speedup 2\n\0max_sector_ratio x\n", 34), 34);
    close(fd);
    assert_int_equal(thresholds_load(path, &t, err, sizeof err), -1);
    assert_contains(err, "holds a NUL byte: it is not a text file");
    assert_int_equal(truncate(path, 14), 0);
    assert_int_equal(thresholds_load(path, &t, err, sizeof err), 0);
    assert_true(t.min_speedup == 2);
    unlink(path);
    assert_int_equal(thresholds_load(path, &t, err, sizeof err), -1);
    assert_contains(err, "cannot be read: the lesson's thresholds are missing");
}

static int quote_problems(const char *text, const char *limits, char *said, size_t len)
{
    struct thresholds t;
    char err[512];
    if (thresholds_parse(limits, "t", &t, err, sizeof err) != 0)
        fail_msg("%s", err);
    FILE *out = fmemopen(said, len, "w");
    int n = threshold_quotes_check(text, "R.md", &t, "T", out);
    fclose(out);
    return n;
}

static void quotes_held_to_the_file(void **state)
{
    (void)state;
    char said[2048];
    const char *all = "min_speedup 1.6\nmin_limit_share 0.7\nmin_loaded_between_barriers 16\n";
    const char *limits = "min_speedup 1.6\nmin_limit_share 0.7\n"; /* the speed case's alone */
    /* Each named threshold shown in bold on its line, in its unit; other bold numbers beside. */
    assert_int_equal(quote_problems("At least **1.60x** and **70%** (`min_speedup`, `min_limit_share`).\n"
                                    "**16 bytes** in flight (`min_loaded_between_barriers`), **4x** wider.\n",
                                    all, said, sizeof said), 0);
    /* A stale number: the file says 1.6, the text still 1.5. */
    assert_int_equal(quote_problems("At least **1.5x** (`min_speedup`), **70%** (`min_limit_share`).\n", limits, said,
                                    sizeof said), 1);
    assert_contains(said, "R.md:1: names `min_speedup` without its value in bold on the same line, as T has it: "
                          "**1.6x**");
    /* The right number, but not bold, in another unit, or on another line. */
    const char *share = " **70%** (`min_limit_share`)\n";
    char line[128];
    snprintf(line, sizeof line, "1.6x (`min_speedup`)%s", share);
    assert_int_equal(quote_problems(line, limits, said, sizeof said), 1);
    snprintf(line, sizeof line, "**1.6%%** (`min_speedup`)%s", share);
    assert_int_equal(quote_problems(line, limits, said, sizeof said), 1);
    assert_int_equal(quote_problems("**1.6x**\n(`min_speedup`) **70%** (`min_limit_share`)\n", limits, said,
                                    sizeof said), 1);
    assert_contains(said, "R.md:2:");
    /* A digit inside a longer number is not the number ("**11.6x**" does not show 1.6). */
    assert_int_equal(quote_problems("**11.6x** (`min_speedup`) **70%** (`min_limit_share`)\n", limits, said,
                                    sizeof said), 1);
    /* Naming a threshold the file leaves unset. */
    assert_int_equal(quote_problems("**1.6x** (`min_speedup`) **70%** (`min_limit_share`) (`max_sector_ratio`)\n",
                                    limits, said, sizeof said), 1);
    assert_contains(said, "names `max_sector_ratio`, which T does not set");
    /* The speed thresholds are named at least once; other words in backticks are not thresholds. */
    assert_int_equal(quote_problems("`cudaMemcpy` and `make check`.\n", all, said, sizeof said), 3);
    assert_contains(said, "R.md never names `min_speedup`");
    assert_contains(said, "R.md never names `min_limit_share`");
    assert_contains(said, "R.md never names `min_loaded_between_barriers`: the text says what the check demands, each "
                          "threshold T sets named in backticks with its value in bold (**16 bytes**)");
    /* A sign or an exponent is not the figure. */
    snprintf(line, sizeof line, "**-1.6x** (`min_speedup`)%s", share);
    assert_int_equal(quote_problems(line, limits, said, sizeof said), 1);
    assert_int_equal(quote_problems("**2x** (`min_speedup`)\n", "min_speedup 2\n", said, sizeof said), 0);
    /* A yes/no threshold need not be named. */
    const char *yes_no = "min_speedup 2\nmax_sector_ratio 0.5\nno_bank_conflicts yes\n";
    const char *text = "**2x** (`min_speedup`), **0.5** (`max_sector_ratio`)\n";
    assert_int_equal(quote_problems(text, yes_no, said, sizeof said), 0);
}

/* The README's table of lessons: a row's last cell quotes min_speedup ("x") and min_limit_share
 * ("%") right, or not at all; a missing row counts only in the authors' copy. */
static void table_rows_held_to_the_file(void **state)
{
    (void)state;
    struct thresholds t;
    char err[512], said[1024];
    if (thresholds_parse("min_speedup 1.6\nmin_limit_share 0.7\n", "t", &t, err, sizeof err) != 0)
        fail_msg("%s", err);
    const char *table = "| lesson | you write | demands |\n|---|---|---|\n"
                        "| 6 `06_c` | 32x8 threads, 4 each | 1.6x lesson 5 and 70% of the copy |\n"
                        "| 7 `07_r` | sums | 1.5x the tree, at most 4 barriers |\n"
                        "| 9 `09_s` | slices | 1.6x, 32x8 threads, 70% |\n";
    FILE *out = fmemopen(said, sizeof said, "w");
    assert_int_equal(threshold_row_check(table, "R.md", 6, "06_c", &t, "T", 1, out), 0); /* 32x8: not the last cell */
    assert_int_equal(threshold_row_check(table, "R.md", 7, "07_r", &t, "T", 1, out), 1);
    assert_int_equal(threshold_row_check(table, "R.md", 9, "09_s", &t, "T", 1, out), 0); /* 32x8: a shape */
    assert_int_equal(threshold_row_check(table, "R.md", 8, "08_s", &t, "T", 1, out), 1);
    assert_int_equal(threshold_row_check(table, "R.md", 8, "08_s", &t, "T", 0, out), 0);
    fclose(out);
    assert_contains(said, "R.md:4: lesson 7's row says 1.5x where T has min_speedup 1.6");
    assert_contains(said, "R.md has no row for lesson 8");
}

/* Every lesson of lessons/registry has a thresholds file that parses, and its README quotes it. */
static void real_lessons_quote_their_thresholds(void **state)
{
    (void)state;
    struct registry reg;
    char err[512];
    if (registry_load("lessons/registry", &reg, err, sizeof err) != 0)
        fail_msg("%s", err);
    for (int i = 0; i < reg.count; i++) {
        char path[256], readme[256];
        struct thresholds t;
        snprintf(path, sizeof path, "lessons/%s/thresholds", reg.lessons[i].folder);
        snprintf(readme, sizeof readme, "lessons/%s/README.md", reg.lessons[i].folder);
        if (thresholds_load(path, &t, err, sizeof err) != 0)
            fail_msg("%s", err);
        char *text = read_text_file(readme);
        assert_non_null(text);
        if (threshold_quotes_check(text, readme, &t, path, stdout) != 0)
            fail_msg("%s: its quotes of %s are wrong (above)", readme, path);
        free(text);
        text = read_text_file("README.md");
        assert_non_null(text);
        if (threshold_row_check(text, "README.md", reg.lessons[i].number, reg.lessons[i].folder, &t, path, 1, stdout))
            fail_msg("README.md: lesson %d's row misquotes %s (above)", reg.lessons[i].number, path);
        free(text);
    }
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(reads_every_field),
    cmocka_unit_test(refuses_each_mistake),
    cmocka_unit_test(files_read_whole),
    cmocka_unit_test(quotes_held_to_the_file),
    cmocka_unit_test(table_rows_held_to_the_file),
    cmocka_unit_test(real_lessons_quote_their_thresholds))
