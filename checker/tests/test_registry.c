/* Unit tests for checker/src/formats/registry.c: the real lessons/registry (read from the repository
 * root, where make runs the tests), a sample laid out like it (read, and written again, its
 * student_lines column too), comment and blank line handling, every validation error (each a
 * sentence naming the text and the line), registry_find and the point total. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refusals.h"
#include "registry.h"
#include "text.h"
#include "unit.h"

#define GOOD1 "1 01_naive_matmul matmul_naive matmul checker/baselines/matmul_uncoalesced.cu 10 4\n"
#define GOOD2 "2 02_tiled matmul_tiled matmul solutions/01_naive_matmul/matmul_naive.cu 25 4\n"

/* registry_parse of a registry named "test" as a reader of refusals.h: the line its error names
 * ("test line N:"). */
static int parse_registry(const char *text, char *err, size_t errlen, int *line)
{
    struct registry reg;
    int rc = registry_parse(text, "test", &reg, err, errlen);
    *line = line_named(err, "test");
    return rc;
}

/* The registry of text, which must parse. */
static struct registry parsed(const char *text)
{
    struct registry reg;
    char err[512] = "";
    if (registry_parse(text, "test", &reg, err, sizeof err) != 0)
        fail_msg("registry_parse: %s", err);
    return reg;
}

/* The real registry parses, its lessons numbered 1, 2, 3, ... (what each line holds is the
 * sample's test below: this one must not need an edit when a lesson is added). */
static void real_registry_loads(void **state)
{
    (void)state;
    struct registry reg;
    char err[512] = "";
    int rc = registry_load("lessons/registry", &reg, err, sizeof err);
    if (rc != 0)
        fail_msg("registry_load: %s", err);
    assert_true(reg.count >= 1);
    for (int i = 0; i < reg.count; i++)
        assert_int_equal(reg.lessons[i].number, i + 1);
}

/* A registry laid out as lessons/registry is: a header, aligned columns, a baseline of another
 * family. */
#define SAMPLE_HEADER                                                                                                  \
    "# The lesson registry.\n"                                                                                         \
    "#\n"                                                                                                              \
    "# number folder            kernel              family         baseline                                          points student_lines\n"
#define SAMPLE_LINE1 "1        01_naive_matmul   matmul_naive        matmul         checker/baselines/matmul_uncoalesced.cu           10     6\n"
#define SAMPLE_LINE2 "2        02_tiled_matmul   matmul_tiled        matmul         solutions/01_naive_matmul/matmul_naive.cu         25     8\n"
#define SAMPLE_LINE6 "6        06_coarsening     transpose_coarsened transpose_32x8 transpose:solutions/05_swizzle/transpose_swizzled.cu 25     8\n"
#define SAMPLE SAMPLE_HEADER SAMPLE_LINE1 SAMPLE_LINE2 SAMPLE_LINE6

static void sample_registry_read_by_column(void **state)
{
    (void)state;
    struct registry reg;
    char err[512] = "";
    if (registry_parse(SAMPLE, "sample", &reg, err, sizeof err) != 0)
        fail_msg("registry_parse: %s", err);
    assert_int_equal(reg.count, 3);
    const struct lesson *l = &reg.lessons[1];
    assert_int_equal(l->number, 2);
    assert_string_equal(l->folder, "02_tiled_matmul");
    assert_string_equal(l->kernel, "matmul_tiled");
    assert_string_equal(l->family->name, "matmul");
    assert_string_equal(l->baseline, "solutions/01_naive_matmul/matmul_naive.cu");
    assert_string_equal(l->baseline_family->name, "matmul");
    assert_int_equal(l->points, 25);
    assert_int_equal(l->student_lines, 8);
    l = &reg.lessons[2];
    assert_int_equal(l->number, 6);
    assert_string_equal(l->family->name, "transpose_32x8");
    assert_string_equal(l->baseline, "solutions/05_swizzle/transpose_swizzled.cu");
    assert_string_equal(l->baseline_family->name, "transpose");
    assert_int_equal(registry_total_points(&reg), 60);
}

/* Written again: the same text; with some lessons, the header as it was and their lines alone,
 * in the same columns, a baseline moved where it was changed. */
static void sample_registry_written_again(void **state)
{
    (void)state;
    struct registry reg;
    char err[512] = "", *out = NULL;
    size_t size = 0;
    assert_int_equal(registry_parse(SAMPLE, "sample", &reg, err, sizeof err), 0);
    FILE *f = open_memstream(&out, &size);
    registry_write(f, SAMPLE, &reg);
    fclose(f);
    assert_string_equal(out, SAMPLE);
    free(out);

    reg.lessons[0] = reg.lessons[2];
    strcpy(reg.lessons[0].baseline, "checker/baselines/transpose_swizzled.cu");
    reg.count = 1;
    f = open_memstream(&out, &size);
    registry_write(f, "# a comment\r\n" SAMPLE_LINE1 "\n# after the lessons\n" SAMPLE_LINE2 SAMPLE_LINE6, &reg);
    fclose(f);
    assert_string_equal(out, "# a comment\r\n"
                             "6        06_coarsening     transpose_coarsened transpose_32x8 "
                             "transpose:checker/baselines/transpose_swizzled.cu 25     8\n"
                             "\n# after the lessons\n");
    free(out);
}

static void real_registry_files_exist(void **state)
{
    (void)state;
    /* Every folder and baseline the registry names is there. */
    struct registry reg;
    char err[512] = "";
    assert_int_equal(registry_load("lessons/registry", &reg, err, sizeof err), 0);
    for (int i = 0; i < reg.count; i++) {
        char path[512];
        snprintf(path, sizeof path, "lessons/%s/README.md", reg.lessons[i].folder);
        FILE *f = fopen(path, "r");
        if (!f)
            fail_msg("missing %s", path);
        fclose(f);
        f = fopen(reg.lessons[i].baseline, "r");
        if (!f)
            fail_msg("missing baseline %s", reg.lessons[i].baseline);
        fclose(f);
    }
}

static void missing_file_is_an_error(void **state)
{
    (void)state;
    struct registry reg;
    char err[512] = "";
    assert_int_equal(registry_load("lessons/no-such-registry", &reg, err, sizeof err), -1);
    assert_contains(err, "lessons/no-such-registry");
}

static void comments_and_blank_lines_skipped(void **state)
{
    (void)state;
    const char *text = "# a comment\n"
                       "\n"
                       "   \t\n"
                       "   # an indented comment 9 x y z w 1\n"
                       GOOD1
                       "\n"
                       "#2 99_bogus bad-kernel nofamily x.c 0\n"
                       "  " GOOD2; /* indented, and the last line has a newline */
    struct registry reg = parsed(text);
    assert_int_equal(reg.count, 2);
    assert_string_equal(reg.lessons[0].folder, "01_naive_matmul");
    assert_string_equal(reg.lessons[1].folder, "02_tiled");
    assert_string_equal(reg.lessons[1].kernel, "matmul_tiled");
    assert_int_equal(registry_total_points(&reg), 35);
}

static void last_line_without_newline_and_crlf(void **state)
{
    (void)state;
    const char *text = "# registry\r\n"
                       "1 01_a k_a transpose a.cu 7 4\r\n"
                       "2 02_b k_b matmul dir/b.cu 8 4";
    struct registry reg = parsed(text);
    assert_int_equal(reg.count, 2);
    assert_string_equal(reg.lessons[0].family->name, "transpose");
    assert_string_equal(reg.lessons[0].baseline, "a.cu");
    assert_int_equal(reg.lessons[1].points, 8);
    assert_string_equal(reg.lessons[1].baseline, "dir/b.cu");
}

/* "FAMILY:path": a baseline written for another launch of the lesson's contract. */
static void baseline_family_given_or_the_lessons(void **state)
{
    (void)state;
    struct registry reg = parsed("1 01_a k transpose_32x8 transpose:dir/a.cu 5 4\n2 02_b k transpose_32x8 b.cu 5 4\n");
    assert_string_equal(reg.lessons[0].baseline, "dir/a.cu");
    assert_string_equal(reg.lessons[0].baseline_family->name, "transpose");
    assert_string_equal(reg.lessons[0].family->name, "transpose_32x8");
    assert_string_equal(reg.lessons[1].baseline, "b.cu");
    assert_string_equal(reg.lessons[1].baseline_family->name, "transpose_32x8");
    /* The same problem on floats for a lesson whose kernels take halves (lesson 10's baseline). */
    reg = parsed("1 01_a k matmul_f16 matmul_128:a.cu 5 4\n");
    assert_string_equal(reg.lessons[0].baseline_family->name, "matmul_128");
}

/* Numbers increase; a gap is a handout of some lessons (the author check refuses it where
 * solutions/ is). */
static void numbers_may_leave_gaps(void **state)
{
    (void)state;
    struct registry reg = parsed("2 02_x k matmul b.cu 5 4\n4 04_y k transpose b.cu 5 4\n");
    assert_int_equal(reg.count, 2);
    assert_int_equal(reg.lessons[1].number, 4);
}

/* Every way a registry is refused: each text with the line its error names and a phrase of it. */
REFUSALS_TEST(refuses_each_mistake, parse_registry,
    {"# header\n" GOOD1 "2 02_tiled matmul_tiled matmul 25\n", 3, "expected 7 fields"},
    {GOOD1 "\n2 02_tiled matmul_tiled matmul b.cu 25 extra\n", 3, "expected 7 fields"},
    {"1 01_x k matmul b.cu ten 4\n", 1, "expected 7 fields"},
    {GOOD1 GOOD1, 2, "lesson 1 after lesson 1"},
    {"2 02_x k matmul b.cu 5 4\n1 01_x k matmul b.cu 5 4\n", 2, "number them 1, 2, 3"},
    {"1 naive_matmul k matmul b.cu 5 4\n", 1, "folder 'naive_matmul'"},
    {"1 1_naive k matmul b.cu 5 4\n", 1, "two digits"},
    {"1 02_naive k matmul b.cu 5 4\n", 1, "two digits"},
    {"1 01naive k matmul b.cu 5 4\n", 1, "two digits"},
    {"# c\n1 001_naive k matmul b.cu 5 4\n", 2, "two digits"},
    {"1 01_x 9lives matmul b.cu 5 4\n", 1, "kernel '9lives' is not a C identifier"},
    {"\n\n1 01_x my-kernel matmul b.cu 5 4\n", 3, "not a C identifier"},
    {"1 01_x k.cu matmul b.cu 5 4\n", 1, "not a C identifier"},
    {GOOD1 "2 02_x k histogram b.cu 5 4\n", 2, "unknown family 'histogram' ("},
    {"1 01_x k Matmul b.cu 5 4\n", 1, "unknown family"},
    {"1 01_a k transpose transpose_32x8:a.c 5 4\n", 1, "should be a .cu file"},
    {"1 01_x k matmul b.c 5 4\n", 1, "baseline 'b.c' should be a .cu file"},
    {"1 01_x k matmul .cu 5 4\n", 1, "should be a .cu file"},
    {GOOD1 "2 02_x k matmul b.cuh 5 4\n", 2, "should be a .cu file"},
    {"1 01_a k transpose nosuch:a.cu 5 4\n", 1, "the baseline's family 'nosuch' is unknown"},
    {"1 01_a k transpose matmul:a.cu 5 4\n", 1, "takes other arguments than transpose"},
    {"1 01_a k matmul_f16 reduce:a.cu 5 4\n", 1, "takes other arguments than matmul_f16"},
    {"1 01_x k matmul b.cu 0 4\n", 1, "points 0 outside 1..1000"},
    {GOOD1 "2 02_x k matmul b.cu 1001 4\n", 2, "outside 1..1000"},
    {"1 01_x k matmul b.cu -3 4\n", 1, "outside 1..1000"},
    {GOOD1 "2 02_x k matmul b.cu 25 4 extra\n", 2, "expected 7 fields"},
    {"1 01_x k matmul b.cu 5 lines\n", 1, "expected 7 fields"},
    {"1 01_x k matmul b.cu 5 1\n", 1, "student_lines 1 outside 2..10000: a stub fewer than 2 lines away"},
    {GOOD1 "2 02_x k matmul b.cu 5 0\n", 2, "student_lines 0 outside"},
    {"1 01_x k matmul b.cu 5 10001\n", 1, "student_lines 10001 outside"},
)

static void kernel_identifier_forms_accepted(void **state)
{
    (void)state;
    struct registry reg = parsed("1 01_x _k9 matmul b.cu 5 4\n2 02_y K_2x transpose c.cu 6 4\n");
    assert_string_equal(reg.lessons[0].kernel, "_k9");
    assert_string_equal(reg.lessons[1].kernel, "K_2x");
}

static void points_range_limits_accepted(void **state)
{
    (void)state;
    struct registry reg = parsed("1 01_x k matmul b.cu 1 4\n2 02_x k matmul b.cu 1000 4\n");
    assert_int_equal(registry_total_points(&reg), 1001);
}

static void error_no_lessons(void **state)
{
    (void)state;
    const char *texts[] = {"", "# only comments\n\n   \n# more\n"};
    for (size_t i = 0; i < 2; i++) {
        struct registry reg;
        char err[512] = "";
        assert_int_equal(registry_parse(texts[i], "test", &reg, err, sizeof err), -1);
        assert_contains(err, "no lessons");
    }
}

static void error_more_than_max_lessons(void **state)
{
    (void)state;
    static char text[8192];
    size_t n = 0;
    for (int i = 1; i <= MAX_LESSONS + 1; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%d %02d_t k matmul b.cu 1 4\n", i, i);
    char where[64];
    snprintf(where, sizeof where, "more than %d lessons", MAX_LESSONS);
    assert_refused(parse_registry, text, MAX_LESSONS + 1, where);
}

static void find_present_and_absent(void **state)
{
    (void)state;
    struct registry reg;
    char err[512] = "";
    assert_int_equal(registry_load("lessons/registry", &reg, err, sizeof err), 0);
    for (int n = 1; n <= reg.count; n++) {
        const struct lesson *l = registry_find(&reg, n);
        assert_non_null(l);
        assert_int_equal(l->number, n);
        assert_ptr_equal(l, &reg.lessons[n - 1]);
    }
    assert_null(registry_find(&reg, 0));
    assert_null(registry_find(&reg, reg.count + 1));
    assert_null(registry_find(&reg, -1));
    /* A handout's registry may skip lessons. */
    assert_int_equal(registry_parse("2 02_x k matmul b.cu 5 4\n4 04_y k transpose b.cu 5 4\n", "test", &reg, err, sizeof err), 0);
    assert_string_equal(registry_find(&reg, 4)->folder, "04_y");
    assert_null(registry_find(&reg, 3));
}

/* The families register themselves (checker/families/): each is found by its name, and the
 * unknown-family message lists them. */
static void families_found_by_name(void **state)
{
    (void)state;
    assert_string_equal(family_named("matmul")->name, "matmul");
    assert_int_equal(family_named("matmul")->ninputs, 2);
    assert_string_equal(family_named("transpose")->output_name, "out");
    assert_null(family_named("Matmul"));
    assert_contains(family_names(), "matmul");
    assert_contains(family_names(), "transpose");
    /* Two launches of one contract: the same arguments, other threads per block. */
    const struct family *a = family_named("transpose"), *b = family_named("transpose_32x8");
    assert_string_equal(a->params, b->params);
    assert_int_equal(a->block_y, 32);
    assert_int_equal(b->block_y, 8);
    assert_int_equal(b->tile_y, 32);
}

/* The kernel's symbol made from the contract's parameters as nvcc mangles them: the expected
 * symbols are g++'s (nm of `void k2(unsigned int n, ...) {}` compiled, 2026-12-05), back-references
 * and the qualifiers a function's type drops included; a type it cannot name is refused, named. */
static void kernel_symbols_made_from_parameters(void **state)
{
    (void)state;
    char sym[256];
    assert_int_equal(family_kernel_symbol(family_named("matmul"), "matmul_naive", sym, sizeof sym), 0);
    assert_string_equal(sym, "_Z12matmul_naivePKfS0_Pfi");
    assert_int_equal(family_kernel_symbol(family_named("matmul_f16"), "hgemm_swizzled", sym, sizeof sym), 0);
    assert_string_equal(sym, "_Z14hgemm_swizzledPKtS0_Pfi");
    assert_int_equal(family_kernel_symbol(family_named("transpose"), "transpose_shared", sym, sizeof sym), 0);
    assert_string_equal(sym, "_Z16transpose_sharedPKfPfii");
    assert_int_equal(family_kernel_symbol(family_named("reduce_4096"), "slice_sum", sym, sizeof sym), 0);
    assert_string_equal(sym, "_Z9slice_sumPKfPfii");
    static const struct {
        const char *params, *symbol;
    } made[] = {
        {"float *a, const float *b, float *c, const float *d", "_Z2k1PfPKfS_S1_"},
        {"unsigned int n, long long m, unsigned char *p, const signed char *q, const unsigned char *r, unsigned char *s",
         "_Z2k2jxPhPKaPKhS_"},
        {"const float *__restrict__ in, float *const out, const int rows, unsigned short int cols", "_Z2k3PKfPfit"},
        {"const double *a, const double *b, const float *c, const double *d, double *e, double *f, const float *g",
         "_Z2k4PKdS0_PKfS0_PdS3_S2_"},
        /* lesson 11's tensor maps, by value (nvcc -ptx of `const __grid_constant__ CUtensorMap`, 2026-12-06) */
        {"const CUtensorMap A_map, const CUtensorMap B_map, float *C, int N", "_Z2k514CUtensorMap_stS_Pfi"},
        {"const CUtensorMap m, unsigned *out, int x, int y, int bytes", "_Z2k614CUtensorMap_stPjiii"},
    };
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++) {
        struct family f = {.params = made[i].params};
        char name[4];
        snprintf(name, sizeof name, "k%zu", i + 1);
        assert_int_equal(family_kernel_symbol(&f, name, sym, sizeof sym), 0);
        assert_string_equal(sym, made[i].symbol);
    }
    static const char *const refused[] = {"const __half *A", "float **p", "struct pair *p", "void", "",
                                          "long short x", "unsigned signed x", "const float *a b",
                                          "const CUtensorMap *m", "unsigned CUtensorMap m"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        struct family f = {.params = refused[i]};
        assert_int_equal(family_kernel_symbol(&f, "k", sym, sizeof sym), -1);
    }
    struct family f = {.params = "float *out, __half *h, int n"};
    assert_int_equal(family_kernel_symbol(&f, "k", sym, sizeof sym), -1);
    assert_string_equal(sym, " __half *h"); /* the parameter it could not read */
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(kernel_symbols_made_from_parameters),
    cmocka_unit_test(real_registry_loads),
    cmocka_unit_test(sample_registry_read_by_column),
    cmocka_unit_test(sample_registry_written_again),
    cmocka_unit_test(real_registry_files_exist),
    cmocka_unit_test(missing_file_is_an_error),
    cmocka_unit_test(comments_and_blank_lines_skipped),
    cmocka_unit_test(last_line_without_newline_and_crlf),
    cmocka_unit_test(numbers_may_leave_gaps),
    cmocka_unit_test(refuses_each_mistake),
    cmocka_unit_test(kernel_identifier_forms_accepted),
    cmocka_unit_test(baseline_family_given_or_the_lessons),
    cmocka_unit_test(points_range_limits_accepted),
    cmocka_unit_test(error_no_lessons),
    cmocka_unit_test(error_more_than_max_lessons),
    cmocka_unit_test(find_present_and_absent),
    cmocka_unit_test(families_found_by_name))
