/* Tests of lint.c: the lesson files' rules. Every rule is shown to refuse a file that breaks
 * it, at the right line (the workbook's own kernels are held to them by make author-check). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lint.h"
#include "refusals.h"

/* The kernel k with body from its line 3 on: what most files below break a rule around or in. */
#define KERNEL_DOING(body) "__global__ void k(const float *in, float *out, int n)\n{\n    " body "\n}\n"
#define KERNEL_OK KERNEL_DOING("out[0] = in[0];")

/* The lint of a file whose kernel must be k, as a reader of refusals.h. */
static int lint_k(const char *src, char *err, size_t errlen, int *line)
{
    struct lint_problem p;
    int bad = lint_kernel_source(src, "k", &p);
    if (bad) {
        snprintf(err, errlen, "%s", p.message);
        *line = p.line;
    }
    return bad;
}

/* Files the lint must refuse, each at its line with a phrase of its message, rule by rule. */
REFUSALS_TEST(refuses_each_breach, lint_k,
    /* The preprocessor: no other files, no tricks that hide a word from the rules below. */
    {"#include <cublas_v2.h>\n" KERNEL_OK, 1, "#include is not allowed"},
    {"\n  #  include \"other.cu\"\n" KERNEL_OK, 2, "#include is not allowed"},
    {"%:include <stdio.h>\n" KERNEL_OK, 1, "#include is not allowed"},
    {"#pragma once\n" KERNEL_OK, 1, "only #pragma unroll"},
    {"#line 1 \"x\"\n" KERNEL_OK, 1, "#line is not allowed"},
    {"#define H __ho ## st__\n" KERNEL_OK, 1, "token pasting"},
    {"#define CTOR __attribute__((constructor))\n" KERNEL_OK, 1, "attributes are not allowed"},
    {"#define LONG \\\n  __asm__(\"nop\")\n" KERNEL_OK, 2, "inline assembly"},
    /* Host code, which would run in the judge: at file scope, or called at start-up. */
    {KERNEL_OK "int forged = system(\"echo pass\");\n", 5, "host code at file scope"},
    {KERNEL_OK "static int counter;\n", 5, "at file scope is host code"},
    {KERNEL_OK "void helper(void) { }\n", 5, "host code at file scope"},
    {KERNEL_OK "const int x = atoi(\"3\");\n", 5, "host code at file scope"},
    {KERNEL_OK "auto f = [] { return 1; };\n", 5, "at file scope is host code"},
    /* Code that runs at start-up without a call at file scope: a lambda called in a constant's
     * initialiser, a constructor, an inline static member. */
    {KERNEL_OK "const int x = [] { return system(\"x\"); }();\n", 5, "at file scope is host code"},
    {KERNEL_OK "struct S { S() { system(\"x\"); } } s;\n", 5, "struct, class and union types"},
    {"class C { static inline int v = system(\"x\"); };\n" KERNEL_OK, 1, "struct, class and union types"},
    {KERNEL_OK "__attribute__((constructor)) void early(void) { }\n", 5, "attributes are not allowed"},
    {"__host__ __device__ int both(int x) { return x; }\n" KERNEL_OK, 1, "host code is not allowed"},
    {KERNEL_OK "int main(void) { return 0; }\n", 5, "a main function"},
    {"extern __shared__ float dyn[];\n" KERNEL_OK, 1, "extern declarations"},
    {KERNEL_DOING("extern int elsewhere;"), 3, "extern declarations"}, /* in a kernel: only __shared__ */
    {KERNEL_DOING("extern \"C\" int f(void);"), 3, "extern declarations"},
    {KERNEL_OK "void run(float *a) { k<<<1, 1>>>(a, a, 1); }\n", 5, "kernel launches"},
    /* Libraries and the CUDA runtime, inside the kernel too. */
    {KERNEL_DOING("cublasSgemm(0);"), 3, "library calls"},
    {KERNEL_DOING("cudaMemcpyAsync(out, in, n, 0);"), 3, "CUDA runtime calls"},
    {KERNEL_DOING("out[0] = std::max(in[0], 0.f);"), 3, "library calls"},
    {KERNEL_DOING("nvcuda::wmma::fill_fragment();"), 3, "WMMA"},
    /* The kernel itself: exactly one, named as the lesson says. */
    {"__device__ int f(int x) { return x; }\n", 1, "no __global__ kernel"},
    {KERNEL_OK "__global__ void other(float *o) { o[0] = 1; }\n", 1, "exactly one kernel, k"},
    {"__global__ void kernel(float *o) { o[0] = 1; }\n", 1, "must be named k"},
    /* at the kernel's own line, not the file's first */
    {"#define TILE 32\n\n__global__ void kernel(float *o) { o[0] = 1; }\n", 3, "must be named k"},
    /* a comment that is never closed hides the kernel: named as such, at its line */
    {"#define TILE 32\n/* the kernel\n" KERNEL_OK, 2, "this comment (/*) is never closed"},
    /* What a compiler sees, the lint must see: each trick once walked past a simpler tokenizer. */
    /* A digit separator is part of its number, not the start of a character literal. */
    {"static const int big = 1'0; __attribute__((constructor)) static void f() { }\n" KERNEL_OK, 1,
     "attributes are not allowed"},
    /* A raw string ends at )delim", whatever quotes it holds. */
    {"static const char *s = R\"x(\")x\"; __attribute__((constructor)) static void f() { }\n" KERNEL_OK, 1,
     "attributes are not allowed"},
    {"static const char *s = u8R\"(a\nb)\";\n__attribute__((constructor)) static void f() { }\n" KERNEL_OK, 3,
     "attributes are not allowed"},
    /* Backslash-newlines are spliced first; the line reported is where the word starts. */
    {"\n__attri\\\nbute__((constructor)) static void f() { }\n" KERNEL_OK, 2, "attributes are not allowed"},
    {"ex\\\ntern \"C\" int system(const char *);\n" KERNEL_OK, 1, "extern declarations are not allowed"},
    /* Attributes in brackets, also spelled with digraphs. */
    {"[[gnu::constructor]] __device__ void f() { }\n" KERNEL_OK, 1, "attributes ([[...]]) are not allowed"},
    {"<:<:gnu::constructor:>:> __device__ void f() { }\n" KERNEL_OK, 1, "attributes ([[...]]) are not allowed"},
    {"#define J(a, b) a %:%: b\n" KERNEL_OK, 1, "token pasting"},
    /* Inline assembly (PTX: lesson 10's ldmatrix, mma.sync, cp.async) outside a device function's
     * body: at file scope, in a host function or in a #define. */
    {"asm(\".global .u32 state;\");\n" KERNEL_OK, 1, "inline assembly is allowed only in the body"},
    {"void host(void) { asm(\"nop\"); }\n" KERNEL_OK, 1, "inline assembly is allowed only in the body"},
    {"namespace n { asm(\".global .u32 s;\"); }\n" KERNEL_OK, 1, "inline assembly is allowed only"},
    {"__device__ int x;\nvoid f() { asm(\"nop\"); }\n" KERNEL_OK, 2, "inline assembly is allowed only"},
    /* Clocks and SM ids: a result must not depend on when or where the kernel runs (issue 45). */
    {KERNEL_DOING("long long t = clock64();"), 3, "`clock64()`: lesson files may not read clocks or SM ids: a "
                                                  "kernel's result must not depend on when or where it runs"},
    {KERNEL_DOING("out[0] = (float)clock ();"), 3, "`clock()`: lesson files may not read clocks"},
    {"#define NOW clock64\n" KERNEL_DOING("out[0] = (float)NOW();"), 4, "`clock64()`"},
    {KERNEL_DOING("unsigned s;\n    asm(\"mov.u32 %0, %%smid;\" : \"=r\"(s));"), 4,
     "`%smid` in inline assembly: lesson files may not read clocks or SM ids"},
    {KERNEL_DOING("asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(out));"), 3, "`%globaltimer` in inline"},
)

/* Files it must pass: what kernels, their helpers and their constants use. */
static const char *const allowed[] = {
    KERNEL_OK,
    "// #include <stdio.h> in a comment\n/* int x = system(\"\"); */\n#define TILE 32\n#undef TILE\n"
    "#define TILE 32\n#ifndef SIZE\n#define SIZE (TILE + 1)\n#endif\n"
    "constexpr int kPad = 1;\nstatic constexpr int kRows = 32;\nconst int kCols = sizeof(float) * 8;\n"
    "typedef float real;\nenum { A = 1 };\n"
    "__constant__ float kScale[4] = {1, 2, 3, 4};\n__device__ int g_count;\n"
    "template <int N> __device__ __forceinline__ int twice(int x) { return N * x; }\n"
    "static __device__ int swz(int r, int c) { return c ^ (r % 32); }\n"
    "#define DEV __device__\nDEV float half(float x) { return x / 2; }\n"
    "__global__ void __launch_bounds__(1024) k(const float *in, float *out, int n)\n{\n"
    "    #pragma unroll\n    for (int i = 0; i < 4; i++) out[i] = in[i] + kScale[i];\n"
    "    printf(\"#include <x> %d\\n\", n);\n}\n",
    "__device__ int cube(int x) { return x * x * x; }\n" KERNEL_OK, /* "cub" only as a whole name */
    /* An index inside an index and a char '\'' (the tokenizer's tricks above, the other way). */
    KERNEL_DOING("int i[2] = {0, 1};\n    out[i[1]] = in[i[0]] + (float)'\\'';"),
    /* The launch's dynamic shared memory (lesson 11), declared in a kernel. */
    KERNEL_DOING("extern __shared__ __align__(1024) unsigned char raw[];\n    out[0] = raw[0];"),
    /* Inline assembly in a device function's body. */
    "__device__ void wait(void) { asm volatile(\"cp.async.wait_all;\" ::: \"memory\"); }\n" KERNEL_OK,
    KERNEL_DOING("__asm__(\"bar.sync 0;\");"),
    "#define DEV __device__\nDEV void f(void) { if (1) { __asm(\"membar.cta;\"); } }\n" KERNEL_OK,
    /* a name that only begins like a clock, and %nsmid, which is the same on every H200 */
    KERNEL_DOING("int clocks = 1; unsigned n;\n    asm(\"mov.u32 %0, %%nsmid; // %%clocked\" : \"=r\"(n));"),
};

static void allows_kernels_helpers_constants(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
        struct lint_problem p;
        if (lint_kernel_source(allowed[i], "k", &p) != 0)
            fail_msg("refused at line %d: %s\n%s", p.line, p.message, allowed[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(allows_kernels_helpers_constants),
        cmocka_unit_test(refuses_each_breach),
    };
    return cmocka_run_group_tests_name("lint", tests, NULL, NULL);
}
