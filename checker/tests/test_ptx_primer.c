/* The PTX primer's examples (docs/ptx.md), run in the PTX interpreter (checker/runner/ptx/): every
 * ```cuda block of the page is a run of lines of checker/tests/ptx/primer.cu, and each kernel there
 * computes what the page says: inline assembly's operands, a shared address from
 * __cvta_generic_to_shared, cp.async double buffering with commit and wait groups, ldmatrix's
 * registers (plain and .trans) and mma.sync m16n8k16 fed by plain loads where the fragment layout
 * puts each element. The page's three pictures of which lane holds which element in which
 * register half are drawn here from what the interpreter returned (ldmatrix's) or from the layout
 * the mma kernel was right with (its C), and must stand in the page as drawn.
 *
 * Built with the paths of the PTX, its source and the page, relative to the repository's root,
 * where the test runs: -DWB_PTX_PRIMER='"build/tests/ptx_primer.ptx"'
 * -DWB_PTX_PRIMER_SOURCE='"checker/tests/ptx/primer.cu"' -DWB_PTX_PRIMER_PAGE='"docs/ptx.md"' */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emu.h"
#include "half.h"
#include "ptx.h"
#include "ptx_exec.h"
#include "ptx_launch.h"

#ifndef WB_PTX_PRIMER
#define WB_PTX_PRIMER "build/tests/ptx_primer.ptx"
#endif
#ifndef WB_PTX_PRIMER_SOURCE
#define WB_PTX_PRIMER_SOURCE "checker/tests/ptx/primer.cu"
#endif
#ifndef WB_PTX_PRIMER_PAGE
#define WB_PTX_PRIMER_PAGE "docs/ptx.md"
#endif

static struct ptx_module module;

/* The kernels' memory: their inputs (filled here, read-only to them) and their outputs, each
 * with a guard zone of 256 bytes on each side. */
#define GUARD 256
#define BYTES 8192
static _Alignas(16) unsigned char arena[2][GUARD + BYTES + GUARD];
static unsigned char *const input = arena[0] + GUARD, *const output = arena[1] + GUARD;

static int setup(void **state)
{
    (void)state;
    char *text = ptx_read_file(WB_PTX_PRIMER, 16 << 20);
    if (!text) {
        fprintf(stderr, "cannot read %s (make %s)\n", WB_PTX_PRIMER, WB_PTX_PRIMER);
        return -1;
    }
    int rc = ptx_parse(text, &module);
    free(text);
    if (rc) {
        fprintf(stderr, "%s: %s\n", WB_PTX_PRIMER, module.error);
        return -1;
    }
    struct emu_buffer b[2] = {{(const char *)input, (const char *)input + BYTES, GUARD, "in", 1, 4, 0, 0, 0},
                              {(const char *)output, (const char *)output + BYTES, GUARD, "out", 0, 4, 0, 0, 0}};
    emu_set_buffers(b, 2);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ptx_free(&module);
    return 0;
}

/* Launches the kernel of that mangled name on one warp (grid 1, block 32), with its n arguments
 * (pointers and 32-bit integers, each given as 64 bits). Its result must be 0. */
static void launch(const char *name, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    int rc = ptx_test_launch(&module, WB_PTX_PRIMER, WB_PTX_PRIMER_SOURCE, name, 1, 32, n, ap);
    va_end(ap);
    if (rc != 0)
        print_error("%s: %s\n", name, emu_error());
    assert_int_equal(rc, 0);
}

#define P(p) ((uint64_t)(uintptr_t)(p))
#define I(i) ((uint64_t)(uint32_t)(i))

/* ---- the page ---- */

/* The page's text, read once. */
static const char *page(void)
{
    static char *text;
    if (!text)
        text = ptx_read_file(WB_PTX_PRIMER_PAGE, 1 << 20);
    assert_non_null(text);
    return text;
}

/* Every ```cuda block of the page stands in primer.cu, line for line. */
static void every_example_is_the_tested_code(void **state)
{
    (void)state;
    char *source = ptx_read_file(WB_PTX_PRIMER_SOURCE, 1 << 20);
    assert_non_null(source);
    int blocks = 0;
    for (const char *p = strstr(page(), "\n```cuda\n"); p; p = strstr(p, "\n```cuda\n")) {
        p += strlen("\n```cuda\n");
        const char *end = strstr(p, "\n```");
        assert_non_null(end);
        char *block = strndup(p, (size_t)(end - p) + 1); /* with its last newline */
        if (!strstr(source, block))
            print_error("this example of %s is not in %s as it stands:\n%s", WB_PTX_PRIMER_PAGE,
                        WB_PTX_PRIMER_SOURCE, block);
        assert_non_null(strstr(source, block));
        free(block);
        blocks++;
        p = end;
    }
    assert_true(blocks >= 6);
    free(source);
}

/* A picture of a matrix of rows x 8 cells, as the page draws it (each cell 6 characters wide):
 *             col 0  col 1 ...
 *     row 0    0.lo   0.hi ...                                                                  */
static const char *picture(char cell[][8][8], int rows)
{
    static char text[4096];
    size_t n = (size_t)snprintf(text, sizeof text, "       ");
    for (int c = 0; c < 8; c++)
        n += (size_t)snprintf(text + n, sizeof text - n, "  col %d", c);
    n += (size_t)snprintf(text + n, sizeof text - n, "\n");
    for (int r = 0; r < rows; r++) {
        n += (size_t)snprintf(text + n, sizeof text - n, "row %-3d", r);
        for (int c = 0; c < 8; c++)
            n += (size_t)snprintf(text + n, sizeof text - n, "  %5s", cell[r][c]);
        n += (size_t)snprintf(text + n, sizeof text - n, "\n");
    }
    return text;
}

/* The picture stands in the page, as drawn. */
static void assert_drawn(const char *what, const char *pic)
{
    if (!strstr(page(), pic))
        print_error("%s: %s lacks this picture of %s:\n%s", WB_PTX_PRIMER_PAGE, WB_PTX_PRIMER_PAGE, what, pic);
    assert_non_null(strstr(page(), pic));
}

/* ---- the examples ---- */

/* add ("=r", "r"), accumulate ("+f"), pack ("h": the first operand the low half), load_global ("l"). */
static void inline_operands_compute_what_the_page_says(void **state)
{
    (void)state;
    int *in = (int *)input, *out = (int *)output;
    for (int i = 0; i < 96; i++)
        in[i] = 7 * i - 50;
    launch("_Z8operandsPKiPi", 2, P(in), P(out));
    for (int t = 0; t < 32; t++) {
        assert_int_equal(out[t], in[t] + in[32 + t]);
        float f;
        memcpy(&f, &out[32 + t], 4);
        assert_true(f == 1.5f * (float)t + 2.0f);
        assert_int_equal((uint32_t)out[64 + t], (uint32_t)t | (uint32_t)(100 + t) << 16);
        assert_int_equal(out[96 + t], in[64 + t]);
    }
}

/* st.shared at the address __cvta_generic_to_shared gave: the neighbour's word, after the barrier. */
static void a_shared_address_reaches_the_tile(void **state)
{
    (void)state;
    int *out = (int *)output;
    launch("_Z12shared_storePi", 1, P(out));
    for (int t = 0; t < 32; t++)
        assert_int_equal(out[t], 10 * ((t + 1) % 32));
}

/* Chunk i + 1 in flight while chunk i is read; every chunk read after its wait_group. */
static void double_buffering_adds_every_chunk(void **state)
{
    (void)state;
    for (int chunks = 1; chunks <= 5; chunks++) {
        float *in = (float *)input, *out = (float *)output;
        for (int i = 0; i < 32 * chunks; i++)
            in[i] = (float)(i % 32 + 100 * (i / 32));
        launch("_Z13double_bufferPKfPfi", 3, P(in), P(out), I(chunks));
        for (int t = 0; t < 32; t++) {
            float want = 0.0f;
            for (int i = 0; i < chunks; i++)
                want += in[32 * i + (t + 1) % 32];
            assert_true(out[t] == want);
        }
    }
}

/* Who holds element (r, c) of each of ldmatrix's four matrices: register j of lane l holds two
 * elements of matrix j (element (r, c) of the 32 x 8 rows is 8r + c); each is drawn as "l.lo" or
 * "l.hi", the half of the register it is in, and the four matrices must look alike. */
static const char *ldmatrix_picture(int trans)
{
    static char cell[8][8][8];
    unsigned short *m = (unsigned short *)input;
    uint32_t *out = (uint32_t *)output;
    for (int i = 0; i < 32 * 8; i++)
        m[i] = (unsigned short)i;
    launch(trans ? "_Z19ldmatrix_four_transPKtPj" : "_Z13ldmatrix_fourPKtPj", 2, P(m), P(out));
    memset(cell, 0, sizeof cell);
    for (int j = 0; j < 4; j++) {
        char seen[8][8][8] = {{{0}}};
        for (int l = 0; l < 32; l++)
            for (int half = 0; half < 2; half++) {
                unsigned v = (out[4 * l + j] >> (16 * half)) & 0xffff, r = v / 8 - 8 * (unsigned)j, c = v % 8;
                assert_true(r < 8); /* register j holds matrix j's */
                assert_int_equal(seen[r][c][0], 0);
                snprintf(seen[r][c], 8, "%d.%s", l, half ? "hi" : "lo");
            }
        if (j == 0)
            memcpy(cell, seen, sizeof cell);
        assert_memory_equal(cell, seen, sizeof cell);
    }
    return picture(cell, 8);
}

/* The layout the page claims for each 8 x 8 of mma's A (rows g, k 2t and 2t + 1) and B (k 2t and
 * 2t + 1, column g), drawn as ldmatrix's are. */
static const char *fragment_picture(int b)
{
    static char cell[8][8][8];
    memset(cell, 0, sizeof cell);
    for (int l = 0; l < 32; l++)
        for (int half = 0; half < 2; half++) {
            int g = l / 4, t = l % 4;
            if (b)
                snprintf(cell[2 * t + half][g], 8, "%d.%s", l, half ? "hi" : "lo");
            else
                snprintf(cell[g][2 * t + half], 8, "%d.%s", l, half ? "hi" : "lo");
        }
    return picture(cell, 8);
}

/* ldmatrix gives lane l row l / 4 (with .trans, column l / 4), the lower element in the lower
 * half; the page draws both, and mma's A and B fragments are those same pictures. */
static void ldmatrix_deals_the_pictured_layout(void **state)
{
    (void)state;
    char plain[4096], trans[4096];
    snprintf(plain, sizeof plain, "%s", ldmatrix_picture(0));
    snprintf(trans, sizeof trans, "%s", ldmatrix_picture(1));
    assert_drawn("ldmatrix's registers", plain);
    assert_drawn("ldmatrix's registers with .trans", trans);
    assert_string_equal(fragment_picture(0), plain);
    assert_string_equal(fragment_picture(1), trans);
}

/* mma.sync with each lane's fragments packed where the page says: D = A B exactly (small integers),
 * and the C picture (lane l's c0, c1 in row l / 4, c2, c3 eight rows down) is where the kernel's
 * stores, by that layout, put the right sums. */
static void mma_fed_by_the_layout_multiplies(void **state)
{
    (void)state;
    unsigned short *A = (unsigned short *)input, *B = A + 256;
    float *D = (float *)output;
    for (int m = 0; m < 16; m++)
        for (int k = 0; k < 16; k++)
            A[16 * m + k] = float_to_half((float)((3 * m + 5 * k) % 11 - 5), 0);
    for (int k = 0; k < 16; k++)
        for (int n = 0; n < 8; n++)
            B[8 * k + n] = float_to_half((float)((2 * k + 7 * n) % 9 - 4), 0);
    for (int i = 0; i < 128; i++)
        D[i] = -1e9f;
    launch("_Z13mma_fragmentsPKtS0_Pf", 3, P(A), P(B), P(D));
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 8; n++) {
            float want = 0.0f;
            for (int k = 0; k < 16; k++)
                want += half_to_float(A[16 * m + k]) * half_to_float(B[8 * k + n]);
            assert_true(D[8 * m + n] == want);
        }
    static char cell[16][8][8];
    for (int l = 0; l < 32; l++)
        for (int i = 0; i < 4; i++)
            snprintf(cell[l / 4 + 8 * (i / 2)][2 * (l % 4) + i % 2], 8, "%d.c%d", l, i);
    assert_drawn("mma's C fragment", picture(cell, 16));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_example_is_the_tested_code),
        cmocka_unit_test(inline_operands_compute_what_the_page_says),
        cmocka_unit_test(a_shared_address_reaches_the_tile),
        cmocka_unit_test(double_buffering_adds_every_chunk),
        cmocka_unit_test(ldmatrix_deals_the_pictured_layout),
        cmocka_unit_test(mma_fed_by_the_layout_multiplies),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
