/* Unit tests for checker/src/teaching/hints.c: hints_find on small Markdown texts (where each hint
 * starts and ends, what ends the Hints section, texts without hints) and lesson_title; where a
 * lesson keeps its hints (hints_misplaced) and how the site folds them (hint_markdown); folded
 * answers to predictions; quoted line numbers against their markers, stale ones included. Then
 * every real lesson: a README with a title, no hints and its predictions' answers folded, a
 * hints.md with at least three hints, and every line number quoted right. */
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
#include "registry.h"
#include "textfile.h"
#include "text.h"
#include "unit.h"

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

static void assert_hint(const char *what, const struct hints *h, int i, const char *want)
{
    if (h->len[i] != strlen(want) || strncmp(h->start[i], want, h->len[i]) != 0)
        fail_msg("%s: hint %d is \"%.*s\", want \"%s\"", what, i + 1, (int)h->len[i], h->start[i], want);
}

/* hints_find on small texts: how many hints, and each one's block, exactly. */
static void finds_each_hint_block(void **state)
{
    (void)state;
    const struct {
        const char *what, *text;
        int count;
        const char *hint[3];
    } cases[] = {
        {"three hints among other sections", SAMPLE, 3,
         {"### Hint 1: First\nBody one.", "### Hint 2: Second\nBody two,\n\nwith a blank line inside.",
          "### Hint 3: Third\nBody three."}},
        {"hints as the last section", "# T\n## Hints\n### Hint 1: a\nx\n\n### Hint 2: b\ny\nz\n\n\n", 2,
         {"### Hint 1: a\nx", "### Hint 2: b\ny\nz"}},
        {"no newline at the end", "## Hints\n### Hint 1: only\nthe end", 1, {"### Hint 1: only\nthe end"}},
        {"a level-one heading ends them", "## Hints\n### Hint 1: a\nx\n# Appendix\n### Hint 2: no\n", 1,
         {"### Hint 1: a\nx"}},
        {"no Hints section", "# Lesson\n\n## The idea\n\nNo hints here.\n### Hint 1: stray\n", 0, {NULL}},
        {"an empty text", "", 0, {NULL}},
        {"a Hints section with no \"### Hint\" in it", "## Hints\n\nNone yet.\n\n## Next\n", 0, {NULL}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct hints h;
        int n = hints_find(cases[k].text, &h);
        if (n != cases[k].count || h.count != cases[k].count)
            fail_msg("%s: %d hints (count %d), not %d", cases[k].what, n, h.count, cases[k].count);
        for (int i = 0; i < n; i++)
            assert_hint(cases[k].what, &h, i, cases[k].hint[i]);
    }
}

/* The hints found point into the text itself. */
static void hints_point_into_the_text(void **state)
{
    (void)state;
    struct hints h;
    assert_int_equal(hints_find(SAMPLE, &h), 3);
    assert_true(h.start[0] > SAMPLE && h.start[2] < SAMPLE + sizeof SAMPLE);
    assert_ptr_equal(h.start[0], strstr(SAMPLE, "### Hint 1"));
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
    assert_hint("past the cap", &h, 0, "### Hint 1: t\nbody 1");
    assert_hint("past the cap", &h, MAX_HINTS - 2, "### Hint 7: t\nbody 7");
    /* The last kept hint is exactly its own block: the ones past the cap are not folded in. */
    assert_hint("past the cap", &h, MAX_HINTS - 1, "### Hint 8: t\nbody 8");
}

/* lesson_title: the first level-one heading's text, cut to the buffer, "" without one; always
 * into the buffer given. */
static void titles(void **state)
{
    (void)state;
    const struct {
        const char *text;
        size_t size;
        const char *want;
    } cases[] = {
        {SAMPLE, 128, "Lesson 9: Testing the hints"},
        {"Some preamble\n## Not it\n# The title\n# A later one\n", 128, "The title"},
        {"# Last line without newline", 128, "Last line without newline"},
        {"## Only level two\n#NoSpace\n", 64, ""},
        {"", 64, ""},
        {"# Lesson 12: long\n", 8, "Lesson "},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char buf[128];
        memset(buf, 'x', sizeof buf);
        const char *t = lesson_title(cases[k].text, buf, cases[k].size);
        assert_ptr_equal(t, buf);
        if (strcmp(buf, cases[k].want) != 0)
            fail_msg("the title of \"%s\" is \"%s\", not \"%s\"", cases[k].text, buf, cases[k].want);
    }
}

/* ---- where the hints live ---- */

static void hints_misplaced_cases(void **state)
{
    (void)state;
    const char *hints = "## Hints\n\n### Hint 1: a\nx\n";
    assert_null(hints_misplaced("# Lesson 1\n\nStuck? make hint.\n", hints));
    /* A README that still has the section, with hints or without, is refused. */
    assert_non_null(hints_misplaced("# Lesson 1\n\n## Hints\n\n### Hint 1: a\nx\n", hints));
    assert_non_null(hints_misplaced("# Lesson 1\n## Hints\n", hints));
    assert_non_null(hints_misplaced("# Lesson 1\n## Hints \nlater\n", hints));
    /* So is a missing hints.md, an empty one, and one without a single hint. */
    assert_non_null(hints_misplaced("# Lesson 1\n", NULL));
    assert_non_null(hints_misplaced("# Lesson 1\n", ""));
    assert_non_null(hints_misplaced("# Lesson 1\n", "## Hints\n\nNone yet.\n"));
    /* A heading that only starts like it is another heading. */
    assert_null(hints_misplaced("# Lesson 1\n## Hintsy things\n", hints));
}

static void hint_markdown_folds_each(void **state)
{
    (void)state;
    struct hints h;
    assert_int_equal(hints_find(SAMPLE, &h), 3);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    hint_markdown(&h, 1, out);
    fclose(out);
    /* "Hint 2" only in the summary (a title can give a hint away); Markdown inside is parsed. */
    assert_string_equal(buf, "<details>\n<summary>Hint 2</summary>\n\n**Second**\n\nBody two,\n\nwith a blank line inside.\n"
                             "\n</details>\n\n");
    free(buf);
}

/* ---- folded answers to predictions ---- */

static int folded_problems(const char *text)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    int n = predictions_folded_check(text, "t.md", out);
    fclose(out);
    free(buf);
    return n;
}

static void predictions_folded_cases(void **state)
{
    (void)state;
    const char *good = "## What to measure\n\n**Prediction 1: x.** Guess.\n\n<details>\n<summary>What we measured</summary>\n\n"
                       "| a |\n|---|\n| 1 |\n\n```text\n</details>\n```\n\nText.\n\n</details>\n\n**Try it.** Go.\n";
    assert_int_equal(folded_problems(good), 0);
    /* The answer right below the question, as the lessons had it. */
    assert_int_equal(folded_problems("## What to measure\n\n**Prediction 1: x.** Guess.\n\nMeasured: 3.\n"), 1);
    /* No blank line after the summary, or before </details>: Markdown inside would not be parsed. */
    assert_int_equal(folded_problems("## What to measure\n\n**Prediction 1.** G.\n\n<details>\n<summary>What we measured"
                                     "</summary>\nMeasured.\n\n</details>\n"), 1);
    assert_int_equal(folded_problems("## What to measure\n\n**Prediction 1.** G.\n\n<details>\n<summary>What we measured"
                                     "</summary>\n\nMeasured.\n</details>\n"), 1);
    /* Never closed before the next prediction. */
    assert_int_equal(folded_problems("## What to measure\n\n**Prediction 1.** G.\n\n<details>\n<summary>What we measured"
                                     "</summary>\n\nM.\n\n**Prediction 2.** H.\n\n<details>\n<summary>What we measured"
                                     "</summary>\n\nN.\n\n</details>\n"), 1);
    /* Predictions outside that section are not the rule's. */
    assert_int_equal(folded_problems("## The idea\n\n**Prediction 1.** G.\n\nAnswer.\n"), 0);
}

/* ---- quoted line numbers ---- */

/* Two files: k.cu ("line 3" holds s[t] += s[t + d];) and gone/ (missing on purpose). */
static char *fake_file(const char *path, int *absent_ok, void *ctx)
{
    (void)ctx;
    *absent_ok = strncmp(path, "gone/", 5) == 0;
    if (strcmp(path, "k.cu") == 0)
        return strdup("// k.cu\nint t;\n    s[t] += s[t + d];\n}\n");
    return NULL;
}

static int quote_problems(const char *text, char *said, size_t len)
{
    struct line_source src = {fake_file, NULL};
    FILE *out = fmemopen(said, len, "w");
    int n = line_quotes_check(text, "t.md", &src, out);
    fclose(out);
    return n;
}

static void line_quotes_cases(void **state)
{
    (void)state;
    char said[2048];
    /* A quote, its marker, the code there. */
    assert_int_equal(quote_problems("The sum is on line 3<!-- line: k.cu 3 s[t] += s[t + d]; -->.\n", said, sizeof said), 0);
    assert_int_equal(quote_problems("Report:\n\n```text\nk.cu:3:5 loads\n\nk.cu:3:9 stores\n```\n"
                                    "<!-- line: k.cu 3 s[t] += -->\n", said, sizeof said), 0);
    /* Stale: the code moved to line 3, the text and its marker still say 2. */
    assert_int_equal(quote_problems("It is line 2 <!-- line: k.cu 2 s[t] += s[t + d]; -->.\n", said, sizeof said), 1);
    assert_contains(said, "t.md:1:");
    assert_contains(said, "that is line 3 now");
    /* Gone altogether. */
    assert_int_equal(quote_problems("Line 3<!-- line: k.cu 3 s[i] -= 1; -->.\n", said, sizeof said), 1);
    assert_contains(said, "no such line");
    /* The text's number and its marker's disagree. */
    assert_int_equal(quote_problems("(k.cu:4)<!-- line: k.cu 3 s[t] -->\n", said, sizeof said), 1);
    assert_contains(said, "quotes line 4, but its marker says k.cu line 3");
    /* A quote without a marker: at the paragraph's end, or before another quote. */
    assert_int_equal(quote_problems("See line 3.\n\nMore.\n", said, sizeof said), 1);
    assert_contains(said, "t.md:1: quotes line 3 with no marker");
    assert_int_equal(quote_problems("k.cu:2 and k.cu:3<!-- line: k.cu 3 s[t] -->\n", said, sizeof said), 1);
    /* A marker without a quote, a missing file, a marker not closed, a marker without code. */
    assert_int_equal(quote_problems("Text.<!-- line: k.cu 3 s[t] -->\n", said, sizeof said), 1);
    assert_int_equal(quote_problems("line 3<!-- line: nope.cu 3 s[t] -->\n", said, sizeof said), 1);
    assert_int_equal(quote_problems("line 3<!-- line: k.cu 3 s[t]\n-->\n", said, sizeof said), 2);
    assert_int_equal(quote_problems("line 3<!-- line: k.cu 3 -->\n", said, sizeof said), 1);
    /* A file missing on purpose (solutions/ in a handout): the numbers still agree, that is all. */
    assert_int_equal(quote_problems("line 7<!-- line: gone/x.cu 7 anything -->\n", said, sizeof said), 0);
    /* Not quotes: file:line:column, a word ending in "line", other comments. */
    assert_int_equal(quote_problems("As file:line:column, outline 3, deadline 4. <!-- a note 5 -->\n", said, sizeof said),
                     0);
}

/* ---- the real lessons ---- */

static void real_lessons_keep_hints_apart(void **state)
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
        char hints_path[512];
        snprintf(hints_path, sizeof hints_path, "%.*s/hints.md", (int)(strrchr(path, '/') - path), path);
        char *hints_md = read_text_file(hints_path);
        const char *misplaced = hints_misplaced(text, hints_md);
        if (misplaced)
            fail_msg("%s %s", path, misplaced);
        if (lesson_text_check(text, path, hints_md, hints_path, stdout) != 0)
            fail_msg("%s or %s breaks the authors' rules (above)", path, hints_path);
        free(hints_md);
        free(text);
    }
    globfree(&g);
}

static void real_lessons_fold_measured_answers(void **state)
{
    (void)state;
    glob_t g;
    assert_int_equal(glob("lessons/*/README.md", 0, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char *text = read_text_file(g.gl_pathv[i]);
        assert_non_null(text);
        if (predictions_folded_check(text, g.gl_pathv[i], stdout) != 0)
            fail_msg("%s: an answer to a prediction is not folded (above)", g.gl_pathv[i]);
        free(text);
    }
    globfree(&g);
}

/* The authors' rules refuse texts that break them, each with its sentence. */
static void lesson_text_rules_refuse(void **state)
{
    (void)state;
    const char *good_readme = "# Lesson 9: x\n\n## What to measure\n\n**Prediction 1.** a\n\n**Prediction 2.** b\n";
    const char *good_hints = "## Hints\n\n### Hint 1: a\nQ?\n\n### Hint 2: b\nR.\n\n### Hint 3: c\nS.";
    FILE *out = tmpfile();
    assert_non_null(out);
    assert_int_equal(lesson_text_check(good_readme, "r.md", good_hints, "h.md", out), 0);
    assert_int_equal(lesson_text_check("# Notes\n\n**Prediction 1.** a\n", "r.md", NULL, NULL, out), 2);
    assert_int_equal(lesson_text_check(NULL, NULL, "## Hints\n\n### Hint 1: a\nQ?", "h.md", out), 1);
    assert_int_equal(lesson_text_check(NULL, NULL, "## Hints\n\n### Hint 1: a\nQ?\n\n### Hint 3: c\nS.\n\n### Hint 2: b\nR.",
                                       "h.md", out), 2);
    assert_int_equal(lesson_text_check(NULL, NULL, "## Hints\n\n### Hint 1: a\n\n### Hint 2: b\nR.\n\n### Hint 3: c\nS.",
                                       "h.md", out), 1);
    rewind(out);
    char text[4000];
    size_t n = fread(text, 1, sizeof text - 1, out);
    text[n] = '\0';
    fclose(out);
    assert_non_null(strstr(text, "r.md: its title \"Notes\" does not start with \"Lesson\""));
    assert_non_null(strstr(text, "r.md: 1 prediction, where a lesson asks at least 2"));
    assert_non_null(strstr(text, "h.md: 1 hint, where a lesson gives at least 3"));
    assert_non_null(strstr(text, "h.md: hint 2 is out of order"));
    assert_non_null(strstr(text, "h.md: hint 1 has no body after its heading"));
}

/* The lessons as lessons/registry lists them. */
static struct registry *real_registry(void)
{
    static struct registry reg;
    char err[512];
    if (registry_load("lessons/registry", &reg, err, sizeof err) != 0)
        fail_msg("%s", err);
    return &reg;
}

static void real_lessons_quote_lines_right(void **state)
{
    (void)state;
    struct line_source src = {lesson_file_text, real_registry()};
    glob_t g;
    assert_int_equal(glob("lessons/*/*.md", 0, NULL, &g), 0);
    int markers = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char *text = read_text_file(g.gl_pathv[i]);
        assert_non_null(text);
        if (line_quotes_check(text, g.gl_pathv[i], &src, stdout) != 0)
            fail_msg("%s: a quoted line number is wrong or has no marker (above)", g.gl_pathv[i]);
        for (const char *p = strstr(text, "<!-- line: "); p; p = strstr(p + 1, "<!-- line: "))
            markers++;
        free(text);
    }
    globfree(&g);
    assert_true(markers >= 10); /* the lessons quote their code: lessons 1, 2, 3 and 7 at least */
}

/* The stub's and the solution's CONTRACT comments: the same wording passes, a changed word or a
 * longer comment is found at its line, and a file without one is refused. */
static void contract_one_wording(void **state)
{
    (void)state;
    const char *stub = "/*\n * Lesson 1\n * CONTRACT\n *   Computes C = A B\n */\n\nTODO: write it\n";
    const char *same = "/*\n * Lesson 1\n * CONTRACT\n *   Computes C = A B\n */\n\nthe kernel\n";
    const char *reworded = "/*\n * Lesson 1\n * CONTRACT\n *   Computes C = B A\n */\n";
    const char *longer = "/*\n * Lesson 1\n * CONTRACT\n *   Computes C = A B\n *   More.\n */\n";
    const char *no_contract = "/*\n * Lesson 1\n */\n";
    assert_int_equal(contract_mismatch(stub, same), 0);
    assert_int_equal(contract_mismatch(stub, reworded), 4);
    assert_int_equal(contract_mismatch(stub, longer), 5);
    assert_int_equal(contract_mismatch(stub, no_contract), -1);
    assert_int_equal(contract_mismatch("__global__ void k() {}\n", same), -1);
}

/* Every lesson's stub and solution share their CONTRACT word for word. */
static void real_lessons_share_contracts(void **state)
{
    (void)state;
    const struct registry *reg = real_registry();
    for (int i = 0; i < reg->count; i++) {
        char stub[512], solution[512];
        snprintf(stub, sizeof stub, "exercises/%s/%s.cu", reg->lessons[i].folder, reg->lessons[i].kernel);
        snprintf(solution, sizeof solution, "solutions/%s/%s.cu", reg->lessons[i].folder, reg->lessons[i].kernel);
        char *a = read_text_file(stub), *b = read_text_file(solution);
        assert_non_null(a);
        assert_non_null(b);
        int line = contract_mismatch(a, b);
        if (line != 0)
            fail_msg("%s and %s: the CONTRACT differs at line %d", stub, solution, line);
        free(a);
        free(b);
    }
}

/* The CONTRACT's Signature against the family's parameters: wrapped over comment lines and spaced
 * otherwise it is the same; another type, name or parameter is not, and is given back as one line. */
static void contract_signature_against_family(void **state)
{
    (void)state;
    char said[256];
    const char *params = "const float *in, float *out, int rows, int cols";
    const char *wrapped = "/*\n * CONTRACT\n *   Signature  __global__ void t(const float *in, float *out,\n"
                          " *                                int rows, int cols);\n */\n";
    assert_int_equal(contract_signature_mismatch(wrapped, "t", params, said, sizeof said), 0);
    assert_string_equal(said, "__global__ void t(const float *in, float *out, int rows, int cols)");
    const char *spaced = "/* CONTRACT Signature __global__ void t( const float* in,float * out, int rows,int cols ); */";
    assert_int_equal(contract_signature_mismatch(spaced, "t", params, said, sizeof said), 0);
    const char *other_type = "/* CONTRACT\n   Signature __global__ void t(const double *in, float *out,\n"
                             " *   int rows, int cols); */";
    assert_int_equal(contract_signature_mismatch(other_type, "t", params, said, sizeof said), 1);
    assert_string_equal(said, "__global__ void t(const double *in, float *out, int rows, int cols)");
    assert_int_equal(contract_signature_mismatch(wrapped, "u", params, said, sizeof said), 1);
    assert_int_equal(contract_signature_mismatch(wrapped, "t", "const float *in, float *out, int rows", said,
                                                 sizeof said), 1);
    /* No Signature in the CONTRACT, or none before the comment ends, or no CONTRACT at all. */
    assert_int_equal(contract_signature_mismatch("/* CONTRACT */ Signature __global__ void t();", "t", params, said,
                                                 sizeof said), -1);
    assert_int_equal(contract_signature_mismatch("/* CONTRACT: Signature is below */", "t", params, said,
                                                 sizeof said), -1);
    assert_int_equal(contract_signature_mismatch("__global__ void t();", "t", params, said, sizeof said), -1);
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(contract_signature_against_family),
    cmocka_unit_test(finds_each_hint_block),
    cmocka_unit_test(hints_point_into_the_text),
    cmocka_unit_test(hint_count_is_capped),
    cmocka_unit_test(titles),
    cmocka_unit_test(hints_misplaced_cases),
    cmocka_unit_test(hint_markdown_folds_each),
    cmocka_unit_test(predictions_folded_cases),
    cmocka_unit_test(line_quotes_cases),
    cmocka_unit_test(lesson_text_rules_refuse),
    cmocka_unit_test(real_lessons_keep_hints_apart),
    cmocka_unit_test(real_lessons_fold_measured_answers),
    cmocka_unit_test(real_lessons_quote_lines_right),
    cmocka_unit_test(contract_one_wording),
    cmocka_unit_test(real_lessons_share_contracts))
