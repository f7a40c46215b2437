/* Tests of results.c: JSON string escaping for results.json, and gathering cmocka's JUnit
 * test suites into one document. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "results.h"
#include "text.h"
#include "unit.h"

static void escapes_json(void **state)
{
    (void)state;
    struct capture json;
    json_string(capture_start(&json), "say \"hi\"\\ now\nand\ttab\x01");
    char *out = capture_text(&json);
    assert_string_equal(out, "\"say \\\"hi\\\"\\\\ now\\nand\\u0009tab\\u0001\"");
    free(out);
}

static void copies_suites_only(void **state)
{
    (void)state;
    const char *xml = "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<testsuites>\n"
                      "<testsuite name=\"a\" tests=\"1\"><testcase name=\"x\"/></testsuite>\n"
                      "<testsuite name=\"b\" tests=\"1\"><testcase name=\"y\"><failure/></testcase></testsuite>\n"
                      "</testsuites>\n";
    struct capture suites;
    assert_int_equal(junit_copy_suites(capture_start(&suites), xml), 2);
    char *out = capture_text(&suites);
    assert_lacks(out, "<?xml");
    assert_lacks(out, "testsuites");
    assert_contains(out, "<testsuite name=\"a\"");
    assert_contains(out, "<failure/>");
    free(out);
}

static void nothing_to_copy(void **state)
{
    (void)state;
    struct capture none;
    FILE *f = capture_start(&none);
    assert_int_equal(junit_copy_suites(f, NULL), 0);
    assert_int_equal(junit_copy_suites(f, "<testsuites></testsuites>"), 0);
    char *out = capture_text(&none);
    assert_string_equal(out, "");
    free(out);
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(escapes_json),
    cmocka_unit_test(copies_suites_only),
    cmocka_unit_test(nothing_to_copy))
