/* What the tests of text share: assertions that show the whole text when a phrase is missing (or
 * there that should not be), and the text a function writes to a FILE, caught in memory. Include
 * after <cmocka.h>. */
#ifndef WB_TEST_TEXT_H
#define WB_TEST_TEXT_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void assert_contains(const char *text, const char *part)
{
    assert_non_null(text);
    if (!strstr(text, part))
        fail_msg("expected \"%s\" in \"%s\"", part, text);
}

static inline void assert_lacks(const char *text, const char *part)
{
    assert_non_null(text);
    if (strstr(text, part))
        fail_msg("did not expect \"%s\" in \"%s\"", part, text);
}

/* A FILE whose text capture_text then gives: capture_start, write to it, capture_text. */
struct capture {
    FILE *f;
    char *text;
    size_t len;
};

static inline FILE *capture_start(struct capture *c)
{
    c->text = NULL;
    c->len = 0;
    c->f = open_memstream(&c->text, &c->len);
    assert_non_null(c->f);
    return c->f;
}

/* What was written since capture_start: the caller frees it. */
static inline char *capture_text(struct capture *c)
{
    assert_int_equal(fclose(c->f), 0);
    return c->text;
}

#endif
