/* Unit tests for checker/src/teaching/student_lines.c: what a stub's TODO regions leave to the
 * student of its solution. Lines the solution adds inside a region count, and nothing else does:
 * comments, blank lines and spacing, lines the stub already has, lone braces; a solution's change
 * outside every region is counted apart, with its line; a region left open, an END TODO with no
 * TODO and a stub without a region are refused, each naming the stub's line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "student_lines.h"
#include "text.h"
#include "unit.h"

static struct student_lines measured(const char *stub, const char *solution)
{
    struct student_lines m;
    char err[300] = "";
    if (student_lines_measure(stub, solution, &m, err, sizeof err) != 0)
        fail_msg("student_lines_measure: %s", err);
    return m;
}

/* The refusal's sentence, which must hold phrase. */
static void assert_refused_stub(const char *stub, const char *phrase)
{
    struct student_lines m;
    char err[300] = "";
    assert_int_equal(student_lines_measure(stub, "int x;\n", &m, err, sizeof err), -1);
    assert_contains(err, phrase);
}

#define STUB                                                                                                           \
    "__global__ void k(float *out, int n)\n"                                                                           \
    "{\n"                                                                                                              \
    "    int t = threadIdx.x;\n"                                                                                       \
    "    // TODO: store t * 2 into out[t], where t < n.\n"                                                             \
    "    //       (a second line of the same TODO)\n"                                                                  \
    "    (void)out;\n"                                                                                                 \
    "    // END TODO\n"                                                                                                \
    "}\n"

/* Two lines written where the region stands; the stub's placeholder is not the student's. */
static void lines_added_in_a_region_count(void **state)
{
    (void)state;
    struct student_lines m = measured(STUB, "__global__ void k(float *out, int n)\n"
                                            "{\n"
                                            "    int t = threadIdx.x;\n"
                                            "    if (t < n)\n"
                                            "        out[t] = t * 2;\n"
                                            "}\n");
    assert_int_equal(m.regions, 1);
    assert_int_equal(m.inside, 2);
    assert_int_equal(m.outside, 0);
    assert_int_equal(m.first_outside, 0);
}

/* A one-expression change is one line: what make author-check refuses (STUDENT_LINES_FLOOR). */
static void one_expression_is_one_line(void **state)
{
    (void)state;
    const char *stub = "int f(int r, int c)\n{\n    // TODO: where chunk c goes\n    return c;\n    // END TODO\n}\n";
    struct student_lines m = measured(stub, "int f(int r, int c)\n{\n    return c ^ (r & 7);\n}\n");
    assert_int_equal(m.inside, 1);
    assert_true(m.inside < STUDENT_LINES_FLOOR);
}

/* Comments (both kinds), blank lines, spacing, lines the stub has and lone braces are no lines of
 * the student's; `#pragma unroll` is one; a literal's `//` starts no comment. */
static void only_code_the_stub_lacks_counts(void **state)
{
    (void)state;
    struct student_lines m = measured(STUB, "/* a solution says more */\n"
                                            "__global__ void k(float *out,   int n)  // spacing differs\n"
                                            "{\n"
                                            "    int t = threadIdx.x;   // kept from the stub\n"
                                            "\n"
                                            "    /* a comment\n"
                                            "       over lines: out[t] = 1; */\n"
                                            "#pragma unroll\n"
                                            "    for (int i = 0; i < 1; i++)\n"
                                            "    {\n"
                                            "        if (t < n) { out[t] = t * 2; }\n"
                                            "    }\n"
                                            "    printf(\"// not a comment\");\n"
                                            "}\n");
    assert_int_equal(m.inside, 4); /* the pragma, the loop, the store and the printf */
    assert_int_equal(m.outside, 0);
}

/* A line the solution changes where no region stands is counted apart, its line named. (One that
 * replaces a stretch of the stub touching a region is the region's: the stub's own line just
 * above the TODO, changed, counts inside.) */
static void changes_outside_the_regions_are_counted_apart(void **state)
{
    (void)state;
    struct student_lines m = measured("__global__ void k(float *out, int n)\n"
                                      "{\n"
                                      "    int t = threadIdx.x;\n"
                                      "    int u = 1;\n"
                                      "    // TODO: store u into out[t]\n"
                                      "    // END TODO\n"
                                      "}\n",
                                      "#define PAD 4\n"
                                      "__global__ void k(float *out, int n)\n"
                                      "{\n"
                                      "    int t = threadIdx.x + PAD;\n"
                                      "    int u = 1;\n"
                                      "    out[t] = u;\n"
                                      "}\n");
    assert_int_equal(m.inside, 1);  /* the store */
    assert_int_equal(m.outside, 2); /* the #define and the changed index */
    assert_int_equal(m.first_outside, 1);
}

/* Several regions add up. */
static void regions_add_up(void **state)
{
    (void)state;
    const char *stub = "int a;\n// TODO: one\n// END TODO\nint b;\n// TODO: two\nint c;\n// END TODO\nint d;\n";
    struct student_lines m = measured(stub, "int a;\nint x;\nint b;\nint y;\nint z;\nint d;\n");
    assert_int_equal(m.regions, 2);
    assert_int_equal(m.inside, 3);
    assert_int_equal(m.outside, 0);
}

static void broken_regions_are_refused(void **state)
{
    (void)state;
    assert_refused_stub("int a;\n\n// TODO: never closed\nint b;\n", "line 3: this TODO's region is never closed");
    assert_refused_stub("int a;\n// END TODO\n", "line 2: an END TODO with no TODO open above it");
    assert_refused_stub("int a; /* TODO: in a block comment */\n", "no TODO region");
    assert_refused_stub("int a; // a TODO in the middle of a comment\n", "no TODO region");
}

UNIT_TESTS_MAIN(cmocka_unit_test(lines_added_in_a_region_count), cmocka_unit_test(one_expression_is_one_line),
                cmocka_unit_test(only_code_the_stub_lacks_counts),
                cmocka_unit_test(changes_outside_the_regions_are_counted_apart), cmocka_unit_test(regions_add_up),
                cmocka_unit_test(broken_regions_are_refused))
