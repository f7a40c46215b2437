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

static void escapes_json(void **state)
{
    (void)state;
    char buf[256];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    json_string(f, "say \"hi\"\\ now\nand\ttab\x01");
    fclose(f);
    assert_string_equal(buf, "\"say \\\"hi\\\"\\\\ now\\nand\\u0009tab\\u0001\"");
}

static void copies_suites_only(void **state)
{
    (void)state;
    const char *xml = "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<testsuites>\n"
                      "<testsuite name=\"a\" tests=\"1\"><testcase name=\"x\"/></testsuite>\n"
                      "<testsuite name=\"b\" tests=\"1\"><testcase name=\"y\"><failure/></testcase></testsuite>\n"
                      "</testsuites>\n";
    char buf[1024];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_int_equal(junit_copy_suites(f, xml), 2);
    fclose(f);
    assert_lacks(buf, "<?xml");
    assert_lacks(buf, "testsuites");
    assert_contains(buf, "<testsuite name=\"a\"");
    assert_contains(buf, "<failure/>");
}

static void nothing_to_copy(void **state)
{
    (void)state;
    char buf[64] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_int_equal(junit_copy_suites(f, NULL), 0);
    assert_int_equal(junit_copy_suites(f, "<testsuites></testsuites>"), 0);
    fclose(f);
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(escapes_json),
        cmocka_unit_test(copies_suites_only),
        cmocka_unit_test(nothing_to_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
