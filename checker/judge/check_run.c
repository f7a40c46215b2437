/* The run's state and its report (check_run.h): what every file of the judge reads and
 * calls, defined below all of them. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check_run.h"
#include "quote.h"

struct check_run checking;

/* Appends text to the running case's report in the record, cut at RECORD_OUTPUT_MAX. */
static void keep_for_case(const char *text)
{
    if (checking.current < 0)
        return;
    struct case_record *c = &checking.record.cases[checking.current];
    size_t have = c->output ? strlen(c->output) : 0, add = strlen(text);
    if (have >= RECORD_OUTPUT_MAX)
        return;
    if (have + add > RECORD_OUTPUT_MAX)
        add = RECORD_OUTPUT_MAX - have;
    char *grown = realloc(c->output, have + add + 1);
    if (!grown)
        return;
    memcpy(grown + have, text, add);
    grown[have + add] = '\0';
    c->output = grown;
}

/* The caller's fmt and ... formatted into the array buf (cut at its size): how say and case_fail
 * both begin. A macro, since va_start belongs in the variadic function itself. */
#define FORMAT_ARGS(buf, fmt)                \
    do {                                     \
        va_list ap;                          \
        va_start(ap, fmt);                   \
        vsnprintf(buf, sizeof buf, fmt, ap); \
        va_end(ap);                          \
    } while (0)

/* Text to the report, and to the running case's record. */
static void narrate(const char *text)
{
    FILE *out = checking.narrate_to_stderr ? stderr : stdout;
    if (checking.narrate_to_stderr)
        fputs("# ", out);
    fputs(text, out);
    fflush(out);
    keep_for_case(text);
}

void say(const char *fmt, ...)
{
    char text[4096];
    FORMAT_ARGS(text, fmt);
    narrate(text);
}

void say_quoted(const char *who, const char *text, size_t len, size_t printed_bytes, size_t printed_lines)
{
    char *block = quote_fenced(who, text, len, printed_bytes, printed_lines);
    /* A line at a time: with cmocka's TAP or XML on stdout, each gets its "# ". */
    for (char *line = block, *nl; line && *line; line = nl + 1) {
        nl = strchr(line, '\n'); /* quote_fenced ends every line */
        char end = nl[1];
        nl[1] = '\0';
        narrate(line);
        nl[1] = end;
    }
    free(block);
}

/* What cmocka's print_error keeps of a message: its buffer, less "ERROR: " and the line break. */
#define CMOCKA_MESSAGE_ROOM (1024 - 8)

void case_fail(const char *fmt, ...)
{
    char why[4800];
    FORMAT_ARGS(why, fmt);
    keep_for_case("Failed: ");
    keep_for_case(why);
    keep_for_case("\n");
    /* cmocka cuts a failure's message at its buffer's size (1,024 bytes), often in the middle of the
     * sentence that says why. On a terminal the whole sentence goes out here in cmocka's form, and
     * fail() adds only its "[ LINE ]" line, which quiet_cmocka drops; a grader's XML keeps cmocka's
     * message (the whole sentence is in the grade's log and record, kept above). */
    if (strlen(why) >= CMOCKA_MESSAGE_ROOM && !checking.narrate_to_stderr) {
        fflush(stdout);
        fprintf(stderr, "ERROR: %s\n", why);
        fflush(stderr);
        fail();
    }
    fail_msg("%s", why);
    abort(); /* fail_msg does not return */
}

void case_skip(enum case_result why)
{
    if (checking.current >= 0)
        checking.record.cases[checking.current].result = why;
    checking.current = -1;
    skip();
    abort(); /* skip does not return */
}

const char *size_text(const struct check_case *c, char *buf, size_t len)
{
    return checking.lesson->family->size_text(c->rows, c->cols, buf, len);
}

int solution_present(void)
{
    return checking.have_solution;
}

/* What the student's output is compared with in full: the reference solution, or where this
 * copy of the workbook has none (a handout), the baseline kernel. */
const char *reference_name(void)
{
    return solution_present() ? "the reference solution" : "the baseline kernel";
}
