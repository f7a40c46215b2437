/* Tests of quiz.c: parsing quiz.txt, judging typed answers, the made-up bank questions (whose
 * answers must agree with the bank arithmetic done by hand), asking from a stream, the
 * Markdown with closed answer blocks, and telling typed answers from a file's or a pipe's. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "quiz.h"
#include "refusals.h"
#include "text.h"
#include "unit.h"

static const char *two = "# a comment\n"
                         "bank-questions: 2\n"
                         "question: How many bytes?\n"
                         "answer: 8\n"
                         "why: Two floats.\n"
                         "\n"
                         "question: Which is a broadcast?\n"
                         "choices: A[row * N + k] | B[k * N + col] | neither\n"
                         "answer: 1\n"
                         "why: All threads of a warp share row.\n";

static void parses_numeric_and_choice(void **state)
{
    (void)state;
    static struct quiz q;
    char err[256];
    assert_int_equal(quiz_parse(two, &q, err, sizeof err), 0);
    assert_int_equal(q.count, 2);
    assert_int_equal(q.generated, 2);
    assert_int_equal(q.kinds, QUIZ_ALL_KINDS); /* no kinds named: all of them */
    assert_string_equal(q.q[0].text, "How many bytes?");
    assert_int_equal(q.q[0].nchoices, 0);
    assert_true(q.q[0].answer == 8.0);
    assert_int_equal(q.q[1].nchoices, 3);
    assert_string_equal(q.q[1].choice[1], "B[k * N + col]");
    assert_string_equal(q.q[1].why, "All threads of a warp share row.");
}

/* quiz_parse as a reader of refusals.h. */
static int parse_quiz(const char *text, char *err, size_t errlen, int *line)
{
    (void)line;
    static struct quiz q;
    return quiz_parse(text, &q, err, errlen);
}

REFUSALS_TEST(refuses_bad_files, parse_quiz,
    {"question: q\nanswer: 1\n", 0, "needs question:, answer: and why:"},
    {"question: q\nanswer: x\nwhy: w\n", 0, "plain number"},
    {"question: q\nchoices: a | b\nanswer: 3\nwhy: w\n", 0, "one of its 2 choices"},
    {"question: q\nchoices: only one\nanswer: 1\nwhy: w\n", 0, "2 to 5 choices"},
    {"question: q\nanswer: 1\nwhy: w\nbogus: 1\n", 0, "line 4"},
    {"# nothing\n", 0, "no questions"},
    {"bank-questions: 2 bank,spiral\nquestion: q\nanswer: 1\nwhy: w\n", 0, "kinds from"},
)

static void bank_question_kinds(void **state)
{
    (void)state;
    static struct quiz q;
    char err[256];
    assert_int_equal(quiz_parse("bank-questions: 3 bank,stride\nquestion: q\nanswer: 1\nwhy: w\n", &q, err, sizeof err), 0);
    assert_int_equal(q.generated, 3);
    assert_int_equal(q.kinds, QUIZ_BANK | QUIZ_STRIDE);
    assert_int_equal(quiz_kinds_named("xor"), QUIZ_XOR);
    assert_int_equal(quiz_kinds_named("column,xor,bank,stride"), QUIZ_ALL_KINDS);
}

static void judges_answers(void **state)
{
    (void)state;
    static struct quiz q;
    char err[256];
    assert_int_equal(quiz_parse(two, &q, err, sizeof err), 0);
    assert_true(quiz_answer_is_right(&q.q[0], "8\n"));
    assert_true(quiz_answer_is_right(&q.q[0], " 8.05"));  /* within 1 % */
    assert_false(quiz_answer_is_right(&q.q[0], "8.2"));
    assert_false(quiz_answer_is_right(&q.q[0], "eight"));
    assert_false(quiz_answer_is_right(&q.q[0], ""));
    assert_true(quiz_answer_is_right(&q.q[1], "a"));
    assert_true(quiz_answer_is_right(&q.q[1], "A"));
    assert_true(quiz_answer_is_right(&q.q[1], "1"));
    assert_false(quiz_answer_is_right(&q.q[1], "b"));
    assert_false(quiz_answer_is_right(&q.q[1], "2"));
}

/* The made-up questions' answers, recomputed by hand from what each question says. */
static void generated_answers_agree_with_hand_arithmetic(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 200; seed++)
        for (int k = 0; k < 4; k++) {
            struct question q;
            quiz_generate(seed, k, &q);
            assert_true(q.text[0] && q.why[0]);
            int w, row, col, stride, m;
            char type[16];
            if (sscanf(q.text, "In `__shared__ %15s s[32][%d];` (starting at bank 0), which bank holds the first 4 "
                               "bytes of `s[%d][%d]`?", type, &w, &row, &col) == 4) {
                int words = strcmp(type, "double") == 0 ? 2 : 1;
                assert_true(q.answer == (double)(((row * w + col) * words) % 32));
            } else if (sscanf(q.text, "A warp reads a column of `__shared__ float tile[32][%d];`: thread i reads "
                                      "`tile[i][%d]`.", &w, &col) == 2) {
                /* 32 rows over the banks: the rows share a bank every 32/gcd(w,32) steps. */
                int g = w, b = 32;
                while (b) { int t = g % b; g = b; b = t; }
                assert_true(q.answer == (double)g);
            } else if (sscanf(q.text, "Thread i of a warp reads `s[i * %d]` of `__shared__ %15s", &stride, type) == 2) {
                /* floats: bank (i*stride) mod 32 repeats every 32/gcd(stride,32) lanes, so gcd words per bank;
                 * doubles cover words 2is and 2is+1: 2*gcd(stride,16) words per bank */
                int dbl = strncmp(type, "double", 6) == 0, mod = dbl ? 16 : 32, g = stride, b = mod;
                while (b) { int t = g % b; g = b; b = t; }
                assert_true(q.answer == (double)(dbl ? 2 * g : g));
            } else if (sscanf(q.text, "A warp reads `tile[i][%d ^ (i & %d)]`", &col, &m) == 2) {
                assert_true(q.answer == 32.0 / (m + 1));
            } else {
                fail_msg("unrecognised generated question: %s", q.text);
            }
        }
}

/* The two questions above asked with `answers` typed, numbered after `from` earlier ones: how
 * many were right, and what was shown in out. */
static int ask_two(const char *answers, int from, char *out, size_t len, int *skipped)
{
    static struct quiz q;
    char err[256];
    assert_int_equal(quiz_parse(two, &q, err, sizeof err), 0);
    q.numbered_from = from;
    FILE *in = fmemopen((void *)answers, strlen(answers), "r");
    FILE *o = fmemopen(out, len, "w");
    *skipped = 0;
    int right = quiz_ask(&q, in, o, skipped);
    fclose(in);
    fclose(o);
    return right;
}

static void asks_and_counts(void **state)
{
    (void)state;
    char out[4096];
    int skipped;
    assert_int_equal(ask_two("8\nb\n", 0, out, sizeof out, &skipped), 1);
    assert_int_equal(skipped, 0);
    assert_contains(out, "Right. Two floats.");
    assert_contains(out, "Not quite: it is a) A[row * N + k].");
    assert_contains(out, "\nQ1. ");
    assert_contains(out, "\nQ2. ");
}

/* Questions asked after others (make quiz's bank questions after the file's) go on counting. */
static void numbers_go_on_after_earlier_questions(void **state)
{
    (void)state;
    char out[4096];
    int skipped;
    assert_int_equal(ask_two("8\nb\n", 11, out, sizeof out, &skipped), 1);
    assert_contains(out, "\nQ12. ");
    assert_contains(out, "\nQ13. ");
    assert_lacks(out, "\nQ1. ");
}

/* A typo is asked again, not counted; Enter alone skips without showing the answer. */
static void typos_are_asked_again_and_empty_lines_skip(void **state)
{
    (void)state;
    static struct quiz q;
    char err[256], out[4096] = "";
    assert_int_equal(quiz_parse(two, &q, err, sizeof err), 0);
    assert_int_equal(quiz_judge_answer(&q.q[0], "8x"), QUIZ_UNREADABLE);
    assert_int_equal(quiz_judge_answer(&q.q[0], "  "), QUIZ_EMPTY);
    assert_int_equal(quiz_judge_answer(&q.q[1], "z"), QUIZ_UNREADABLE);
    assert_int_equal(quiz_judge_answer(&q.q[1], "7"), QUIZ_UNREADABLE);
    int skipped;
    assert_int_equal(ask_two("eight\n8\n\n", 0, out, sizeof out, &skipped), 1);
    assert_int_equal(skipped, 1);
    assert_contains(out, "That is not a number");
    assert_contains(out, "Right. Two floats.");
    assert_contains(out, "Skipped; its answer stays hidden");
    assert_lacks(out, "A[row * N + k].");
}

static void markdown_hides_answers(void **state)
{
    (void)state;
    static struct quiz q;
    char err[256];
    assert_int_equal(quiz_parse(two, &q, err, sizeof err), 0);
    struct capture page;
    quiz_markdown(&q, capture_start(&page));
    char *out = capture_text(&page);
    assert_contains(out, "1. How many bytes?");
    assert_contains(out, "<details>\n    <summary>Answer</summary>");
    assert_lacks(out, "<details open");
    assert_contains(out, "**a) A[row * N + k].**");
    free(out);
}

/* make quiz records every score, marked with how the answers came: a terminal, a file
 * (ANSWERS=file), a pipe. */
static void answers_source_told_apart(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(quiz_answered_on(fds[0]), QUIZ_PIPED);
    close(fds[0]);
    close(fds[1]);
    FILE *file = tmpfile();
    assert_non_null(file);
    assert_int_equal(quiz_answered_on(fileno(file)), QUIZ_FROM_FILE);
    fclose(file);
    int null = open("/dev/null", O_RDONLY);
    assert_true(null >= 0);
    assert_int_equal(quiz_answered_on(null), QUIZ_FROM_FILE); /* no terminal, so not typed */
    close(null);
    /* A terminal: a pseudo-terminal's far end, where this machine has them. */
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0) {
        int tty = open(ptsname(master), O_RDWR | O_NOCTTY);
        if (tty >= 0) {
            assert_int_equal(quiz_answered_on(tty), QUIZ_TYPED);
            close(tty);
        }
    }
    if (master >= 0)
        close(master);
}

/* The note after a score says how its answers came, in one line; typed ones need none. */
static void recorded_note_says_how(void **state)
{
    (void)state;
    const struct {
        enum quiz_answered how;
        const char *says[3]; /* NULL: nothing said at all */
    } cases[] = {
        {QUIZ_FROM_FILE, {"Recorded for make status", "\"from a file\"", "not typed at the terminal"}},
        {QUIZ_PIPED, {"\"piped in\""}},
        {QUIZ_TYPED, {NULL}}, /* the score line says it all */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct capture note;
        quiz_recorded_note(cases[k].how, capture_start(&note));
        char *out = capture_text(&note);
        if (!cases[k].says[0])
            assert_string_equal(out, "");
        else
            assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1); /* one line */
        for (int i = 0; i < 3 && cases[k].says[i]; i++)
            assert_contains(out, cases[k].says[i]);
        free(out);
    }
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(parses_numeric_and_choice),
    cmocka_unit_test(refuses_bad_files),
    cmocka_unit_test(bank_question_kinds),
    cmocka_unit_test(judges_answers),
    cmocka_unit_test(generated_answers_agree_with_hand_arithmetic),
    cmocka_unit_test(asks_and_counts),
    cmocka_unit_test(numbers_go_on_after_earlier_questions),
    cmocka_unit_test(typos_are_asked_again_and_empty_lines_skip),
    cmocka_unit_test(markdown_hides_answers),
    cmocka_unit_test(answers_source_told_apart),
    cmocka_unit_test(recorded_note_says_how))
