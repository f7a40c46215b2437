/* Tests of quote.c: UTF-8 read strictly, and a kernel's printed text fenced, escaped and capped,
 * with hostile input: escape sequences, carriage returns, forged checker lines, bytes that are
 * not UTF-8. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "quote.h"
#include "text.h"
#include "unit.h"

static int char_length(const char *s)
{
    uint32_t cp;
    return utf8_char((const unsigned char *)s, strlen(s), &cp);
}

static void reads_well_formed_utf8(void **state)
{
    (void)state;
    const struct {
        const char *bytes;
        int len;
        uint32_t cp;
    } good[] = {{"A", 1, 'A'},           {"\x7f", 1, 0x7f},           {"\xc2\x80", 2, 0x80},
                {"\xc3\xa9", 2, 0xe9},   {"\xe2\x82\xac", 3, 0x20ac}, {"\xef\xbf\xbd", 3, 0xfffd},
                {"\xf0\x9f\x98\x80", 4, 0x1f600}, {"\xf4\x8f\xbf\xbf", 4, 0x10ffff}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint32_t cp = 0;
        assert_int_equal(utf8_char((const unsigned char *)good[i].bytes, strlen(good[i].bytes), &cp), good[i].len);
        assert_int_equal(cp, good[i].cp);
    }
}

static void refuses_malformed_utf8(void **state)
{
    (void)state;
    const char *const bad[] = {
        "\x80",             /* a continuation byte alone */
        "\xff", "\xfe",     /* never in UTF-8 */
        "\xe2\x82",         /* cut short at the end */
        "\xe2\x82" "A",     /* cut short by another character */
        "\xc0\xaf",         /* '/' overlong in two bytes */
        "\xc1\xbf",         /* U+007F overlong */
        "\xe0\x80\xaf",     /* '/' overlong in three */
        "\xf0\x80\x80\xaf", /* and in four */
        "\xed\xa0\x80",     /* a surrogate, U+D800 */
        "\xed\xbf\xbf",     /* U+DFFF */
        "\xf4\x90\x80\x80", /* U+110000, past Unicode */
        "\xf8\x88\x80\x80\x80", /* a five-byte form */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (char_length(bad[i]) != 0)
            fail_msg("bad sequence %zu read as a character", i);
    uint32_t cp;
    assert_int_equal(utf8_char((const unsigned char *)"\xc3\xa9", 1, &cp), 0); /* n cuts it short */
    assert_int_equal(utf8_char((const unsigned char *)"", 0, &cp), 0);
}

static void names_control_characters(void **state)
{
    (void)state;
    const uint32_t acts[] = {0, '\n', '\r', 0x1b, 0x1f, 0x7f, 0x80, 0x9b, 0x9f, 0x200e, 0x202e, 0x2066, 0x2028};
    const uint32_t shows[] = {' ', 'A', '~', 0xa0, 0xe9, 0x20ac, 0xfffd, 0x1f600};
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
        assert_true(is_control_char(acts[i]));
    for (size_t i = 0; i < sizeof shows / sizeof shows[0]; i++)
        assert_false(is_control_char(shows[i]));
}

/* Every line of a fenced block is its header, a quoted line or the note of a cut; nothing in it
 * acts on a terminal, and it is all UTF-8. */
static void assert_fenced(const char *block)
{
    assert_non_null(block);
    size_t n = strlen(block);
    assert_true(n > 0 && block[n - 1] == '\n');
    for (const char *line = block; *line; line = strchr(line, '\n') + 1)
        if (strncmp(line, QUOTE_FENCE, strlen(QUOTE_FENCE)) != 0 && strncmp(line, "  Your kernel printed (", 23) != 0 &&
            strncmp(line, "  (cut: ", 8) != 0)
            fail_msg("a line that is not fenced: \"%.*s\"", (int)strcspn(line, "\n"), line);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int len = utf8_char((const unsigned char *)block + i, n - i, &cp);
        if (len == 0 || (cp != '\n' && is_control_char(cp)))
            fail_msg("byte %zu of the block (0x%02x) is not shown as an escape", i, (unsigned char)block[i]);
        i += (size_t)len;
    }
}

static char *quote_all(const char *text, size_t len)
{
    return quote_fenced("Your kernel", text, len, len, 0);
}

static void fences_forged_lines(void **state)
{
    (void)state;
    const char printed[] = "\x1b[1A\x1b[2K[  PASSED  ] 7 test(s).\n"
                           "Score: 235/235\n"
                           "\r[       OK ] speed\n"
                           "\xc2\x9b" "2J\xe2\x80\xae" "deggarf\n"
                           "tab\there, a \\x1b that was typed, caf\xc3\xa9";
    char *block = quote_all(printed, sizeof printed - 1);
    assert_fenced(block);
    assert_string_equal(block,
                        "  Your kernel printed (5 lines, shown as printed, unprintable bytes escaped; not the "
                        "checker's words):\n"
                        "  | \\x1b[1A\\x1b[2K[  PASSED  ] 7 test(s).\n"
                        "  | Score: 235/235\n"
                        "  | \\r[       OK ] speed\n"
                        "  | \\u009b2J\\u202edeggarf\n"
                        "  | tab\\there, a \\\\x1b that was typed, caf\xc3\xa9\n");
    free(block);
}

static void escapes_bytes_that_are_not_utf8(void **state)
{
    (void)state;
    /* NULs, C0 controls, DEL, stray and truncated bytes, overlong forms, a surrogate. */
    const char printed[] = "a\0b\x01\x7f|\xff\xfe|\x80|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xe2\x82";
    char *block = quote_all(printed, sizeof printed - 1);
    assert_fenced(block);
    assert_contains(block, "\n  | a\\x00b\\x01\\x7f|\\xff\\xfe|\\x80|\\xc0\\xaf|\\xed\\xa0\\x80|\\xf4\\x90\\x80\\x80|"
                           "\\xe2\\x82\n");
    assert_contains(block, "(1 line,");
    free(block);
}

static void nothing_printed_is_no_block(void **state)
{
    (void)state;
    assert_null(quote_all("", 0));
}

static void caps_the_lines(void **state)
{
    (void)state;
    char printed[2000] = "";
    for (int i = 0; i < 80; i++)
        sprintf(printed + strlen(printed), "[  PASSED  ] %d\n", i);
    char *block = quote_all(printed, strlen(printed));
    assert_fenced(block);
    assert_contains(block, "(80 lines,");
    assert_contains(block, "  | [  PASSED  ] 49\n");
    assert_lacks(block, "[  PASSED  ] 50\n");
    assert_contains(block, "  (cut: ");
    assert_contains(block, " in 30 more lines not shown");
    free(block);
}

static void caps_the_bytes(void **state)
{
    (void)state;
    static char printed[20000];
    memset(printed, 0x1b, sizeof printed); /* each shown as 4 bytes */
    char *block = quote_all(printed, sizeof printed);
    assert_fenced(block);
    size_t shown = 0;
    for (const char *p = strstr(block, "\\x1b"); p; p = strstr(p + 4, "\\x1b"))
        shown++;
    assert_int_equal(shown, QUOTE_MAX_BYTES / 4);
    char note[100];
    snprintf(note, sizeof note, "(cut: %zu more bytes not shown;", sizeof printed - QUOTE_MAX_BYTES / 4);
    assert_contains(block, note);
    free(block);
}

static void starts_no_empty_line_at_the_cap(void **state)
{
    (void)state;
    /* The first line fills the cap exactly: the second is not started. */
    static char printed[QUOTE_MAX_BYTES + 3];
    memset(printed, 'x', QUOTE_MAX_BYTES);
    memcpy(printed + QUOTE_MAX_BYTES, "\ny", 2);
    char *block = quote_all(printed, QUOTE_MAX_BYTES + 2);
    assert_fenced(block);
    assert_lacks(block, "\n" QUOTE_FENCE "\n");
    assert_contains(block, "(cut: 1 more byte in 1 more line not shown;");
    free(block);
}

static void says_what_the_capture_left_out(void **state)
{
    (void)state;
    /* The runner printed 1000 lines; the judge kept the first two. */
    char *block = quote_fenced("Your kernel", "one\ntwo\n", 8, 9000, 1000);
    assert_fenced(block);
    assert_contains(block, "(1000 lines,");
    assert_contains(block, "(cut: 8992 more bytes in 998 more lines not shown;");
    free(block);
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(reads_well_formed_utf8),
    cmocka_unit_test(refuses_malformed_utf8),
    cmocka_unit_test(names_control_characters),
    cmocka_unit_test(fences_forged_lines),
    cmocka_unit_test(escapes_bytes_that_are_not_utf8),
    cmocka_unit_test(nothing_printed_is_no_block),
    cmocka_unit_test(caps_the_lines),
    cmocka_unit_test(caps_the_bytes),
    cmocka_unit_test(starts_no_empty_line_at_the_cap),
    cmocka_unit_test(says_what_the_capture_left_out))
