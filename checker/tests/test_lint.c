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

#define KERNEL_OK "__global__ void k(const float *in, float *out, int n)\n{\n    out[0] = in[0];\n}\n"

/* Asserts that `src` is refused at `line` with a message containing `phrase`. */
static void refused(const char *src, int line, const char *phrase)
{
    struct lint_problem p;
    if (lint_kernel_source(src, "k", &p) != 1)
        fail_msg("accepted, but must be refused (\"%s\"):\n%s", phrase, src);
    if (!strstr(p.message, phrase) || p.line != line)
        fail_msg("refused at line %d with \"%s\"; expected line %d and \"%s\"", p.line, p.message, line, phrase);
}

static void accepted(const char *src)
{
    struct lint_problem p;
    if (lint_kernel_source(src, "k", &p) != 0)
        fail_msg("refused at line %d: %s\n%s", p.line, p.message, src);
}

static void allows_kernels_helpers_constants(void **state)
{
    (void)state;
    accepted(KERNEL_OK);
    accepted("// #include <stdio.h> in a comment\n/* int x = system(\"\"); */\n#define TILE 32\n#undef TILE\n"
             "#define TILE 32\n#ifndef SIZE\n#define SIZE (TILE + 1)\n#endif\n"
             "constexpr int kPad = 1;\nstatic constexpr int kRows = 32;\nconst int kCols = sizeof(float) * 8;\n"
             "typedef float real;\nenum { A = 1 };\n"
             "__constant__ float kScale[4] = {1, 2, 3, 4};\n__device__ int g_count;\n"
             "template <int N> __device__ __forceinline__ int twice(int x) { return N * x; }\n"
             "static __device__ int swz(int r, int c) { return c ^ (r % 32); }\n"
             "#define DEV __device__\nDEV float half(float x) { return x / 2; }\n"
             "__global__ void __launch_bounds__(1024) k(const float *in, float *out, int n)\n{\n"
             "    #pragma unroll\n    for (int i = 0; i < 4; i++) out[i] = in[i] + kScale[i];\n"
             "    printf(\"#include <x> %d\\n\", n);\n}\n");
}

static void refuses_preprocessor_tricks(void **state)
{
    (void)state;
    refused("#include <cublas_v2.h>\n" KERNEL_OK, 1, "#include is not allowed");
    refused("\n  #  include \"other.cu\"\n" KERNEL_OK, 2, "#include is not allowed");
    refused("%:include <stdio.h>\n" KERNEL_OK, 1, "#include is not allowed");
    refused("#pragma once\n" KERNEL_OK, 1, "only #pragma unroll");
    refused("#line 1 \"x\"\n" KERNEL_OK, 1, "#line is not allowed");
    refused("#define H __ho ## st__\n" KERNEL_OK, 1, "token pasting");
    refused("#define CTOR __attribute__((constructor))\n" KERNEL_OK, 1, "attributes are not allowed");
    refused("#define LONG \\\n  __asm__(\"nop\")\n" KERNEL_OK, 2, "inline assembly");
}

static void refuses_host_code(void **state)
{
    (void)state;
    refused(KERNEL_OK "int forged = system(\"echo pass\");\n", 5, "host code at file scope");
    refused(KERNEL_OK "static int counter;\n", 5, "at file scope is host code");
    refused(KERNEL_OK "void helper(void) { }\n", 5, "host code at file scope");
    refused(KERNEL_OK "const int x = atoi(\"3\");\n", 5, "host code at file scope");
    refused(KERNEL_OK "auto f = [] { return 1; };\n", 5, "at file scope is host code");
    /* Code that runs at start-up without a call at file scope: a lambda called in a constant's
     * initialiser, a constructor, an inline static member. */
    refused(KERNEL_OK "const int x = [] { return system(\"x\"); }();\n", 5, "at file scope is host code");
    refused(KERNEL_OK "struct S { S() { system(\"x\"); } } s;\n", 5, "struct, class and union types");
    refused("class C { static inline int v = system(\"x\"); };\n" KERNEL_OK, 1, "struct, class and union types");
    refused(KERNEL_OK "__attribute__((constructor)) void early(void) { }\n", 5, "attributes are not allowed");
    refused("__host__ __device__ int both(int x) { return x; }\n" KERNEL_OK, 1, "host code is not allowed");
    refused(KERNEL_OK "int main(void) { return 0; }\n", 5, "a main function");
    refused("extern __shared__ float dyn[];\n" KERNEL_OK, 1, "extern declarations");
    refused(KERNEL_OK "void run(float *a) { k<<<1, 1>>>(a, a, 1); }\n", 5, "kernel launches");
}

static void refuses_libraries(void **state)
{
    (void)state;
    refused("__global__ void k(const float *in, float *out, int n)\n{\n    cublasSgemm(0);\n}\n", 3, "library calls");
    refused("__global__ void k(const float *in, float *out, int n)\n{\n    cudaMemcpyAsync(out, in, n, 0);\n}\n", 3,
            "CUDA runtime calls");
    refused("__global__ void k(const float *in, float *out, int n)\n{\n    out[0] = std::max(in[0], 0.f);\n}\n", 3,
            "library calls");
    refused("__global__ void k(const float *in, float *out, int n)\n{\n    nvcuda::wmma::fill_fragment();\n}\n", 3,
            "WMMA");
    accepted("__device__ int cube(int x) { return x * x * x; }\n" KERNEL_OK); /* "cub" only as a whole name */
}

static void refuses_wrong_kernels(void **state)
{
    (void)state;
    refused("__device__ int f(int x) { return x; }\n", 1, "no __global__ kernel");
    refused(KERNEL_OK "__global__ void other(float *o) { o[0] = 1; }\n", 1, "exactly one kernel, k");
    refused("__global__ void kernel(float *o) { o[0] = 1; }\n", 1, "must be named k");
    /* at the kernel's own line, not the file's first */
    refused("#define TILE 32\n\n__global__ void kernel(float *o) { o[0] = 1; }\n", 3, "must be named k");
    /* a comment that is never closed hides the kernel: named as such, at its line */
    refused("#define TILE 32\n/* the kernel\n" KERNEL_OK, 2, "this comment (/*) is never closed");
}

/* What a compiler sees, the lint must see: each trick once walked past a simpler tokenizer. */
static void sees_what_the_compiler_sees(void **state)
{
    (void)state;
    /* A digit separator is part of its number, not the start of a character literal. */
    refused("static const int big = 1'0; __attribute__((constructor)) static void f() { }\n" KERNEL_OK, 1,
            "attributes are not allowed");
    /* A raw string ends at )delim", whatever quotes it holds. */
    refused("static const char *s = R\"x(\")x\"; __attribute__((constructor)) static void f() { }\n" KERNEL_OK, 1,
            "attributes are not allowed");
    refused("static const char *s = u8R\"(a\nb)\";\n__attribute__((constructor)) static void f() { }\n" KERNEL_OK, 3,
            "attributes are not allowed");
    /* Backslash-newlines are spliced first; the line reported is where the word starts. */
    refused("\n__attri\\\nbute__((constructor)) static void f() { }\n" KERNEL_OK, 2, "attributes are not allowed");
    refused("ex\\\ntern \"C\" int system(const char *);\n" KERNEL_OK, 1, "extern declarations are not allowed");
    /* Attributes in brackets, also spelled with digraphs. */
    refused("[[gnu::constructor]] __device__ void f() { }\n" KERNEL_OK, 1, "attributes ([[...]]) are not allowed");
    refused("<:<:gnu::constructor:>:> __device__ void f() { }\n" KERNEL_OK, 1, "attributes ([[...]]) are not allowed");
    refused("%:include <stdio.h>\n" KERNEL_OK, 1, "#include is not allowed");
    refused("#define J(a, b) a %:%: b\n" KERNEL_OK, 1, "token pasting");
    /* ...while an index inside an index and a char '\'' stay fine. */
    accepted("__global__ void k(const float *in, float *out, int n)\n{\n    int i[2] = {0, 1};\n"
             "    out[i[1]] = in[i[0]] + (float)'\\'';\n}\n");
}

/* Inline assembly (PTX: lesson 10's ldmatrix, mma.sync, cp.async) in a device function's body
 * only: at file scope, in a host function or in a #define it is refused. */
static void asm_only_in_device_functions(void **state)
{
    (void)state;
    accepted("__device__ void wait(void) { asm volatile(\"cp.async.wait_all;\" ::: \"memory\"); }\n" KERNEL_OK);
    accepted("__global__ void k(const float *in, float *out, int n)\n{\n    __asm__(\"bar.sync 0;\");\n}\n");
    accepted("#define DEV __device__\nDEV void f(void) { if (1) { __asm(\"membar.cta;\"); } }\n" KERNEL_OK);
    refused("asm(\".global .u32 state;\");\n" KERNEL_OK, 1, "inline assembly is allowed only in the body");
    refused("void host(void) { asm(\"nop\"); }\n" KERNEL_OK, 1, "inline assembly is allowed only in the body");
    refused("namespace n { asm(\".global .u32 s;\"); }\n" KERNEL_OK, 1, "inline assembly is allowed only");
    refused("__device__ int x;\nvoid f() { asm(\"nop\"); }\n" KERNEL_OK, 2, "inline assembly is allowed only");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(allows_kernels_helpers_constants), cmocka_unit_test(refuses_preprocessor_tricks),
        cmocka_unit_test(refuses_host_code),               cmocka_unit_test(refuses_libraries),
        cmocka_unit_test(refuses_wrong_kernels),           cmocka_unit_test(sees_what_the_compiler_sees),
        cmocka_unit_test(asm_only_in_device_functions),
    };
    return cmocka_run_group_tests_name("lint", tests, NULL, NULL);
}
