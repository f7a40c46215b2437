/* Tests of mutant.c: parsing .mutant files and applying their edits to a solution. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mutant.h"
#include "text.h"

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

static void applies_every_edit(void **state)
{
    (void)state;
    struct mutant m;
    char err[256];
    const char *text = "what: w\nlesson: 1\nexpect: e\n--- replace\nint b = 2;\n+++ with\nint b = 20;\n"
                       "--- replace\nint c = 3;\n+++ with\n";
    assert_int_equal(mutant_parse(text, &m, err, sizeof err), 0);
    char *out = mutant_apply(&m, source, err, sizeof err);
    assert_non_null(out);
    assert_string_equal(out, "int a = 1;\nint b = 20;\n\n");
    free(out);
    mutant_free(&m);
}

/* A mutant whose text is no longer in the solution must fail loudly, not test something else. */
static void stale_edit_is_an_error(void **state)
{
    (void)state;
    struct mutant m;
    char err[256] = "";
    assert_int_equal(mutant_parse("what: w\nlesson: 1\nexpect: e\n--- replace\nint z = 9;\n+++ with\nx\n", &m, err,
                                  sizeof err),
                     0);
    assert_null(mutant_apply(&m, source, err, sizeof err));
    assert_contains(err, "nowhere");
    mutant_free(&m);
}

static void ambiguous_edit_is_an_error(void **state)
{
    (void)state;
    struct mutant m;
    char err[256] = "";
    assert_int_equal(mutant_parse("what: w\nlesson: 1\nexpect: e\n--- replace\nint\n+++ with\nlong\n", &m, err,
                                  sizeof err),
                     0);
    assert_null(mutant_apply(&m, source, err, sizeof err));
    assert_contains(err, "more than once");
    mutant_free(&m);
}

static void incomplete_files_are_refused(void **state)
{
    (void)state;
    struct mutant m;
    char err[256];
    const struct {
        const char *text, *says;
    } bad[] = {
        {"lesson: 1\nexpect: e\n--- replace\na\n+++ with\nb\n", "what:"},
        {"what: w\nexpect: e\n--- replace\na\n+++ with\nb\n", "lesson:"},
        {"what: w\nlesson: 1\n--- replace\na\n+++ with\nb\n", "expect:"},
        {"what: w\nlesson: 1\nexpect: e\n", "replace"},
        {"what: w\nlesson: 1\nexpect: e\n--- replace\na\n", "with"},
        {"what: w\nlesson: 1\nexpect: e\n+++ with\nb\n", "without a '--- replace'"},
        {"what: w\nlesson: 1\nexpect: e\nstray line\n", "line 4"},
        /* an empty alternative would be found in any report */
        {"what: w\nlesson: 1\nexpect: e | \n--- replace\na\n+++ with\nb\n", "empty alternative"},
        {"what: w\nlesson: 1\nexpect: e\nexpect-unlinted:  | f\n--- replace\na\n+++ with\nb\n", "empty alternative"},
        /* a gate's variable the scripts set by name: nothing else */
        {"what: w\nlesson: 1\nexpect: e\ngpu-needs: PATH\n--- replace\na\n+++ with\nb\n", "SANITIZE or PROFILE"},
        {"what: w\nlesson: 1\nexpect: e\nonly: cpu\n--- replace\na\n+++ with\nb\n", "emulator or gpu"},
        {"what: w\nlesson: 1\nexpect: e\ntimeout: 0\n--- replace\na\n+++ with\nb\n", "timeout"},
        {"what: w\nlesson: 1\nexpect: e\nevery-case: no\n--- replace\na\n+++ with\nb\n", "every-case"},
        {"what: w\nlesson: 1\nexpect: e\tf\n--- replace\na\n+++ with\nb\n", "a tab"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(mutant_parse(bad[i].text, &m, err, sizeof err), -1);
        assert_contains(err, bad[i].says);
        mutant_free(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_header_and_edits),
        cmocka_unit_test(applies_every_edit),
        cmocka_unit_test(stale_edit_is_an_error),
        cmocka_unit_test(ambiguous_edit_is_an_error),
        cmocka_unit_test(incomplete_files_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
