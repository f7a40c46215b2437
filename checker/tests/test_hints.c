/* Unit tests for checker/src/hints.c: hints_find on small Markdown texts (where each hint
 * starts and ends, what ends the Hints section, texts without hints) and lesson_title; then
 * every real lessons/NN_topic/README.md, which must have a title and at least three hints. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hints.h"
#include "textfile.h"

static const char SAMPLE[] =
    "# Lesson 9: Testing the hints\n"
    "\n"
    "## The idea\n"
    "\n"
    "### Hint 0: not a hint, it is above the Hints section\n"
    "Some text.\n"
    "\n"
    "## Hints\n"
    "\n"
    "Read them one at a time.\n"
    "\n"
    "### Hint 1: First\n"
    "Body one.\n"
    "\n"
    "### Hint 2: Second\n"
    "Body two,\n"
    "\n"
    "with a blank line inside.\n"
    "\n"
    "\n"
    "### Hint 3: Third\n"
    "Body three.\n"
    "\n"
    "## What comes next\n"
    "\n"
    "### Hint 4: not a hint either\n";

static void assert_hint(const struct hints *h, int i, const char *want)
{
    if (h->len[i] != strlen(want) || strncmp(h->start[i], want, h->len[i]) != 0)
        fail_msg("hint %d is \"%.*s\", want \"%s\"", i + 1, (int)h->len[i], h->start[i], want);
}

static void finds_three_hints(void **state)
{
    (void)state;
    struct hints h;
    assert_int_equal(hints_find(SAMPLE, &h), 3);
    assert_int_equal(h.count, 3);
}

static void each_hint_covers_its_block(void **state)
{
    (void)state;
    struct hints h;
    assert_int_equal(hints_find(SAMPLE, &h), 3);
    assert_hint(&h, 0, "### Hint 1: First\nBody one.");
    assert_hint(&h, 1, "### Hint 2: Second\nBody two,\n\nwith a blank line inside.");
    assert_hint(&h, 2, "### Hint 3: Third\nBody three.");
    /* The pointers point into the text itself. */
    assert_true(h.start[0] > SAMPLE && h.start[2] < SAMPLE + sizeof SAMPLE);
    assert_ptr_equal(h.start[0], strstr(SAMPLE, "### Hint 1"));
}

static void hints_as_last_section(void **state)
{
    (void)state;
    const char *text = "# T\n## Hints\n### Hint 1: a\nx\n\n### Hint 2: b\ny\nz\n\n\n";
    struct hints h;
    assert_int_equal(hints_find(text, &h), 2);
    assert_hint(&h, 0, "### Hint 1: a\nx");
    assert_hint(&h, 1, "### Hint 2: b\ny\nz");
}

static void hints_without_final_newline(void **state)
{
    (void)state;
    const char *text = "## Hints\n### Hint 1: only\nthe end";
    struct hints h;
    assert_int_equal(hints_find(text, &h), 1);
    assert_hint(&h, 0, "### Hint 1: only\nthe end");
}

static void level_one_heading_ends_hints(void **state)
{
    (void)state;
    const char *text = "## Hints\n### Hint 1: a\nx\n# Appendix\n### Hint 2: no\n";
    struct hints h;
    assert_int_equal(hints_find(text, &h), 1);
    assert_hint(&h, 0, "### Hint 1: a\nx");
}

static void text_without_hints(void **state)
{
    (void)state;
    struct hints h;
    assert_int_equal(hints_find("# Lesson\n\n## The idea\n\nNo hints here.\n### Hint 1: stray\n", &h), 0);
    assert_int_equal(h.count, 0);
    assert_int_equal(hints_find("", &h), 0);
    /* A Hints section with no "### Hint" in it. */
    assert_int_equal(hints_find("## Hints\n\nNone yet.\n\n## Next\n", &h), 0);
}

static void hint_count_is_capped(void **state)
{
    (void)state;
    char text[2048] = "## Hints\n";
    for (int i = 1; i <= MAX_HINTS + 2; i++) {
        char line[64];
        snprintf(line, sizeof line, "### Hint %d: t\nbody %d\n\n", i, i);
        strcat(text, line);
    }
    struct hints h;
    assert_int_equal(hints_find(text, &h), MAX_HINTS);
    assert_hint(&h, 0, "### Hint 1: t\nbody 1");
    assert_hint(&h, MAX_HINTS - 2, "### Hint 7: t\nbody 7");
    /* The last kept hint is exactly its own block: the ones past the cap are not folded in. */
    assert_hint(&h, MAX_HINTS - 1, "### Hint 8: t\nbody 8");
}

static void title_found(void **state)
{
    (void)state;
    char buf[128];
    const char *t = lesson_title(SAMPLE, buf, sizeof buf);
    assert_ptr_equal(t, buf);
    assert_string_equal(buf, "Lesson 9: Testing the hints");
}

static void title_first_level_one_heading(void **state)
{
    (void)state;
    char buf[128];
    lesson_title("Some preamble\n## Not it\n# The title\n# A later one\n", buf, sizeof buf);
    assert_string_equal(buf, "The title");
    lesson_title("# Last line without newline", buf, sizeof buf);
    assert_string_equal(buf, "Last line without newline");
}

static void title_missing_is_empty(void **state)
{
    (void)state;
    char buf[64];
    memset(buf, 'x', sizeof buf);
    assert_string_equal(lesson_title("## Only level two\n#NoSpace\n", buf, sizeof buf), "");
    assert_string_equal(lesson_title("", buf, sizeof buf), "");
}

static void title_cut_to_buffer(void **state)
{
    (void)state;
    char buf[8];
    lesson_title("# Lesson 12: long\n", buf, sizeof buf);
    assert_string_equal(buf, "Lesson ");
}

static void real_readmes_have_title_and_hints(void **state)
{
    (void)state;
    glob_t g;
    assert_int_equal(glob("lessons/*/README.md", 0, NULL, &g), 0);
    assert_true(g.gl_pathc >= 5); /* one per lesson of lessons/registry */
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i];
        char *text = read_text_file(path);
        if (!text)
            fail_msg("cannot read %s", path);
        char title[256];
        lesson_title(text, title, sizeof title);
        if (strncmp(title, "Lesson", 6) != 0)
            fail_msg("%s: title \"%s\" does not start with \"Lesson\"", path, title);
        struct hints h;
        int n = hints_find(text, &h);
        if (n < 3)
            fail_msg("%s: %d hints, want at least 3", path, n);
        for (int k = 0; k < n; k++) {
            char head[32];
            snprintf(head, sizeof head, "### Hint %d", k + 1);
            if (strncmp(h.start[k], head, strlen(head)) != 0)
                fail_msg("%s: hint %d starts \"%.20s\"", path, k + 1, h.start[k]);
            /* Each hint has a body after its heading, and ends before the next one. */
            const char *nl = memchr(h.start[k], '\n', h.len[k]);
            if (!nl || (size_t)(nl - h.start[k]) + 1 >= h.len[k])
                fail_msg("%s: hint %d has no body", path, k + 1);
            if (h.len[k] > 0 && h.start[k][h.len[k] - 1] == '\n')
                fail_msg("%s: hint %d ends with a blank line", path, k + 1);
            char next[32];
            snprintf(next, sizeof next, "\n### Hint %d", k + 2);
            char *body = strndup(h.start[k], h.len[k]);
            assert_non_null(body);
            if (strstr(body, next) || strstr(body, "\n## "))
                fail_msg("%s: hint %d runs into the next heading", path, k + 1);
            free(body);
        }
        free(text);
    }
    globfree(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_three_hints),
        cmocka_unit_test(each_hint_covers_its_block),
        cmocka_unit_test(hints_as_last_section),
        cmocka_unit_test(hints_without_final_newline),
        cmocka_unit_test(level_one_heading_ends_hints),
        cmocka_unit_test(text_without_hints),
        cmocka_unit_test(hint_count_is_capped),
        cmocka_unit_test(title_found),
        cmocka_unit_test(title_first_level_one_heading),
        cmocka_unit_test(title_missing_is_empty),
        cmocka_unit_test(title_cut_to_buffer),
        cmocka_unit_test(real_readmes_have_title_and_hints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
