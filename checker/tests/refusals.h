/* What the tests of a reader (the lint, the registry, .mutant files, quizzes, PTX) share: tables
 * of texts it must refuse, each with a phrase its error must hold (and the line it must name),
 * asserted in one loop that shows the case that failed. Include after <cmocka.h>. */
#ifndef WB_TEST_REFUSALS_H
#define WB_TEST_REFUSALS_H
#include <stdio.h>
#include <string.h>

/* A text the reader must refuse, the line its error must name (0: none, or the reader names no
 * lines) and a phrase of the error. */
struct refusal {
    const char *text;
    int line;
    const char *says;
};

/* A reader under test: 0 where it accepts text; else its error in err and the line the error
 * names in *line (0: none). */
typedef int (*text_reader)(const char *text, char *err, size_t errlen, int *line);

/* The line an error names as "NAME line N:", or 0. */
static inline int line_named(const char *err, const char *name)
{
    char prefix[64];
    int line = 0;
    snprintf(prefix, sizeof prefix, "%s line ", name);
    const char *at = strstr(err, prefix);
    return at && sscanf(at + strlen(prefix), "%d:", &line) == 1 ? line : 0;
}

/* Asserts that read refuses text with an error holding says, at line where line > 0. */
static inline void assert_refused(text_reader read, const char *text, int line, const char *says)
{
    char err[2048] = "";
    int at = 0;
    if (read(text, err, sizeof err, &at) == 0)
        fail_msg("accepted, but must be refused (\"%s\"):\n%s", says, text);
    if (!strstr(err, says) || (line > 0 && at != line))
        fail_msg("refused at line %d with \"%s\"; expected line %d and \"%s\", for:\n%s", at, err, line, says, text);
}

/* A test named name whose body is a table: read refuses each row that follows (struct refusal).
 * The rows are all such a test holds, so the macro writes the rest of it once. */
#define REFUSALS_TEST(name, read, ...)                                       \
    static void name(void **state)                                           \
    {                                                                        \
        (void)state;                                                         \
        static const struct refusal rows[] = {__VA_ARGS__};                  \
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)            \
            assert_refused(read, rows[i].text, rows[i].line, rows[i].says); \
    }

#endif
