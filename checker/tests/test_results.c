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

#include "quote.h"
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

/* Every byte of s is well-formed UTF-8 and none is a control character but newline. */
static void assert_clean_utf8(const char *s)
{
    for (size_t i = 0, n = strlen(s); i < n;) {
        uint32_t cp;
        int len = utf8_char((const unsigned char *)s + i, n - i, &cp);
        if (len == 0 || (cp != '\n' && is_control_char(cp)))
            fail_msg("byte %zu (0x%02x) of the text written is not clean UTF-8", i, (unsigned char)s[i]);
        i += (size_t)len;
    }
}

/* A kernel's, a compiler's or a tool's text, as hostile as it gets: ESC sequences, controls,
 * DEL, C1, bytes that are not UTF-8, sequences cut short, overlong forms, surrogates. */
static const char hostile[] = "\x1b[2J\x1b]0;title\x07\r\b\x7f \xc2\x9b|\xff\xfe|\x80|\xe2\x82|\xc0\xaf|"
                              "\xe0\x80\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|caf\xc3\xa9 \xe2\x82\xac|\xe2\x80\xae|"
                              "\xef\xbf\xbe]]> <&\"' \xe2\x82";

static void json_is_utf8_whatever_the_text(void **state)
{
    (void)state;
    struct capture json;
    json_string(capture_start(&json), hostile);
    char *out = capture_text(&json);
    assert_clean_utf8(out);
    assert_string_equal(out, "\"\\u001b[2J\\u001b]0;title\\u0007\\u000d\\u0008\\u007f \\u009b|\\\\xff\\\\xfe|\\\\x80|"
                             "\\\\xe2\\\\x82|\\\\xc0\\\\xaf|\\\\xe0\\\\x80\\\\xaf|\\\\xed\\\\xa0\\\\x80|"
                             "\\\\xf4\\\\x90\\\\x80\\\\x80|caf\xc3\xa9 \xe2\x82\xac|\\u202e|\xef\xbf\xbe]]> <&\\\"' "
                             "\\\\xe2\\\\x82\"");
    free(out);
}

static void xml_is_xml_whatever_the_text(void **state)
{
    (void)state;
    struct capture xml;
    xml_text(capture_start(&xml), hostile);
    char *out = capture_text(&xml);
    assert_clean_utf8(out);
    assert_lacks(out, "\xef\xbf\xbe"); /* U+FFFE: not an XML character */
    assert_lacks(out, "<");
    assert_lacks(out, "]]>");
    assert_string_equal(out, "\\x1b[2J\\x1b]0;title\\x07\\x0d\\x08\\x7f \\u009b|\\xff\\xfe|\\x80|\\xe2\\x82|"
                             "\\xc0\\xaf|\\xe0\\x80\\xaf|\\xed\\xa0\\x80|\\xf4\\x90\\x80\\x80|caf\xc3\xa9 \xe2\x82\xac|"
                             "\\u202e|\\ufffe]]&gt; &lt;&amp;&quot;' \\xe2\\x82");
    free(out);
}

static void junit_copy_keeps_markup_and_drops_what_xml_forbids(void **state)
{
    (void)state;
    char xml[1000];
    snprintf(xml, sizeof xml, "<testsuites>\n<testsuite name=\"a\"><testcase name=\"x\"><failure><![CDATA[%s]]>"
                              "</failure></testcase></testsuite>\n</testsuites>\n", "\x1b[31m\xff\x01 \xc0\xaf ok");
    struct capture suites;
    assert_int_equal(junit_copy_suites(capture_start(&suites), xml), 1);
    char *out = capture_text(&suites);
    assert_clean_utf8(out);
    assert_string_equal(out, "<testsuite name=\"a\"><testcase name=\"x\"><failure><![CDATA[\\x1b[31m\\xff\\x01 "
                             "\\xc0\\xaf ok]]></failure></testcase></testsuite>\n");
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
    cmocka_unit_test(json_is_utf8_whatever_the_text),
    cmocka_unit_test(xml_is_xml_whatever_the_text),
    cmocka_unit_test(junit_copy_keeps_markup_and_drops_what_xml_forbids),
    cmocka_unit_test(copies_suites_only),
    cmocka_unit_test(nothing_to_copy))
