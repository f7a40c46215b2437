/* What the tests of a reader (the lint, the registry, .mutant files, quizzes, PTX) share: tables
 * of texts it must refuse, each with a phrase its error must hold (and the line it must name),
 * asserted in one loop that shows the case that failed. Include after <cmocka.h>. */
#ifndef WB_TEST_REFUSALS_H
#define WB_TEST_REFUSALS_H
#include <stdio.h>
#include <string.h>

/* A text the reader must refuse, with a phrase of its error. */
struct refusal {
    const char *text, *says;
};

/* The same where the error names a line of the text. */
struct refusal_at {
    const char *text;
    int line;
    const char *says;
};

/* A reader under test: 0 where it accepts text; else its error in err and the line the error
 * names in *line (0: none). */
typedef int (*text_reader)(const char *text, char *err, size_t errlen, int *line);

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

static inline void assert_refuses_each(text_reader read, const struct refusal *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        assert_refused(read, cases[i].text, 0, cases[i].says);
}

static inline void assert_refuses_each_at(text_reader read, const struct refusal_at *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        assert_refused(read, cases[i].text, cases[i].line, cases[i].says);
}

#endif
