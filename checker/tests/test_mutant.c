/* Tests of mutant.c: parsing .mutant files and applying their edits to a solution. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mutant.h"
#include "refusals.h"
#include "text.h"
#include "unit.h"

static const char *source = "int a = 1;\nint b = 2;\nint c = 3;\n";

static void parses_header_and_edits(void **state)
{
    (void)state;
    struct mutant m;
    char err[256];
    const char *text = "what: b is wrong\nlesson: 2\nexpect: a phrase\n"
                       "--- replace\nint b = 2;\n+++ with\nint b = 20;\nint d = 4;\n"
                       "--- replace\nint c = 3;\n+++ with\n";
    assert_int_equal(mutant_parse(text, &m, err, sizeof err), 0);
    assert_string_equal(m.what, "b is wrong");
    assert_int_equal(m.lesson, 2);
    assert_string_equal(m.expect, "a phrase");
    assert_int_equal(m.nedits, 2);
    assert_string_equal(m.edit[0].old_text, "int b = 2;");
    assert_string_equal(m.edit[0].new_text, "int b = 20;\nint d = 4;");
    assert_string_equal(m.edit[1].new_text, ""); /* an empty "with" deletes */
    mutant_free(&m);
}

/* Edits applied to the solution: every one, or (a text no longer in it, or there twice) an error
 * that says so, never a quietly different mutant. */
static void applies_edits_or_says_why_not(void **state)
{
    (void)state;
    const struct {
        const char *what, *edits, *want, *says; /* want: the result; NULL: refused, saying `says` */
    } cases[] = {
        {"two edits", "--- replace\nint b = 2;\n+++ with\nint b = 20;\n--- replace\nint c = 3;\n+++ with\n",
         "int a = 1;\nint b = 20;\n\n", NULL},
        {"a text no longer in the solution", "--- replace\nint z = 9;\n+++ with\nx\n", NULL, "nowhere"},
        {"a text there twice", "--- replace\nint\n+++ with\nlong\n", NULL, "more than once"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[256], err[256] = "";
        snprintf(text, sizeof text, "what: w\nlesson: 1\nexpect: e\n%s", cases[k].edits);
        struct mutant m;
        assert_int_equal(mutant_parse(text, &m, err, sizeof err), 0);
        char *out = mutant_apply(&m, source, err, sizeof err);
        if (cases[k].want ? !out || strcmp(out, cases[k].want) != 0 : out || !strstr(err, cases[k].says))
            fail_msg("%s: made \"%s\", said \"%s\"", cases[k].what, out ? out : "(nothing)", err);
        free(out);
        mutant_free(&m);
    }
}

/* mutant_parse as a reader of refusals.h. */
static int parse_mutant(const char *text, char *err, size_t errlen, int *line)
{
    (void)line;
    struct mutant m;
    int rc = mutant_parse(text, &m, err, errlen);
    mutant_free(&m);
    return rc;
}

REFUSALS_TEST(incomplete_files_are_refused, parse_mutant,
    {"lesson: 1\nexpect: e\n--- replace\na\n+++ with\nb\n", 0, "what:"},
    {"what: w\nexpect: e\n--- replace\na\n+++ with\nb\n", 0, "lesson:"},
    {"what: w\nlesson: 1\n--- replace\na\n+++ with\nb\n", 0, "expect:"},
    {"what: w\nlesson: 1\nexpect: e\n", 0, "replace"},
    {"what: w\nlesson: 1\nexpect: e\n--- replace\na\n", 0, "with"},
    {"what: w\nlesson: 1\nexpect: e\n+++ with\nb\n", 0, "without a '--- replace'"},
    {"what: w\nlesson: 1\nexpect: e\nstray line\n", 0, "line 4"},
    /* an empty alternative would be found in any report */
    {"what: w\nlesson: 1\nexpect: e | \n--- replace\na\n+++ with\nb\n", 0, "empty alternative"},
    {"what: w\nlesson: 1\nexpect: e\nexpect-unlinted:  | f\n--- replace\na\n+++ with\nb\n", 0, "empty alternative"},
    /* a gate's variable the scripts set by name: nothing else */
    {"what: w\nlesson: 1\nexpect: e\ngpu-needs: PATH\n--- replace\na\n+++ with\nb\n", 0, "SANITIZE or PROFILE"},
    {"what: w\nlesson: 1\nexpect: e\nonly: cpu\n--- replace\na\n+++ with\nb\n", 0, "emulator or gpu"},
    {"what: w\nlesson: 1\nexpect: e\ntimeout: 0\n--- replace\na\n+++ with\nb\n", 0, "timeout"},
    {"what: w\nlesson: 1\nexpect: e\nevery-case: no\n--- replace\na\n+++ with\nb\n", 0, "every-case"},
    {"what: w\nlesson: 1\nexpect: e\tf\n--- replace\na\n+++ with\nb\n", 0, "a tab"},
)

UNIT_TESTS_MAIN(
    cmocka_unit_test(parses_header_and_edits),
    cmocka_unit_test(applies_edits_or_says_why_not),
    cmocka_unit_test(incomplete_files_are_refused))
