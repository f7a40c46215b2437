/* What the interpreter's tests on checker/tests/ptx/kernels.cu share (test_ptx_run.c,
 * test_ptx_isa.c): the module made from its PTX, an arena given to the kernels as their buffer
 * (out), the line a mark names (at), the last launch's sentence (said, assert_said), a launch by
 * mangled name (launch, P, I) and the counts of a traced launch (counted). Include after cmocka.h,
 * emu.h, ptx.h, ptx_exec.h, ptx_launch.h and text.h; the test is built with -DWB_PTX_KERNELS and
 * -DWB_PTX_SOURCE (the Makefile's rule). */
#ifndef WB_TEST_PTX_KERNELS_H
#define WB_TEST_PTX_KERNELS_H

#ifndef WB_PTX_KERNELS
#define WB_PTX_KERNELS "build/tests/ptx_kernels.ptx"
#endif
#ifndef WB_PTX_SOURCE
#define WB_PTX_SOURCE "checker/tests/ptx/kernels.cu"
#endif

static struct ptx_module module;

/* 192 floats with room for a guard zone of 64 on each side. */
static float arena[64 * 5];
static float *out = arena + 64;

/* "checker/tests/ptx/kernels.cu:N:" for the line of kernels.cu that carries the mark
 * `L:name` (a comment), as the interpreter's sentences name it (file:line:column). */
static inline const char *at(const char *name)
{
    static char where[4][256];
    static int next;
    static char *source;
    if (!source)
        source = ptx_read_file(WB_PTX_SOURCE, 1 << 20);
    assert_non_null(source);
    char mark[128];
    snprintf(mark, sizeof mark, "/* L:%s */", name);
    const char *p = strstr(source, mark);
    assert_non_null(p);
    assert_lacks(p + 1, mark); /* one line each */
    int line = 1;
    for (const char *c = source; c < p; c++)
        line += *c == '\n';
    char *w = where[next++ % 4];
    snprintf(w, sizeof where[0], "%s:%d:", WB_PTX_SOURCE, line);
    return w;
}

/* The last launch's sentence: the interpreter names its lines itself. */
static inline const char *said(void)
{
    return emu_error();
}

/* Asserts that the last sentence contains s (and shows the sentence where it does not). */
#define assert_said(s)                                                                                            \
    do {                                                                                                          \
        const char *s_ = (s);                                                                                     \
        if (!strstr(said(), s_))                                                                                  \
            print_error("expected \"%s\" in: %s\n", s_, said());                                                  \
        assert_contains(said(), s_);                                                                      \
    } while (0)

/* Asserts a launch's result, showing the sentence when it is not the one expected. */
#define assert_run(call, code)                                                                                    \
    do {                                                                                                          \
        int rc_ = (call);                                                                                         \
        if (rc_ != (code))                                                                                        \
            print_error("%s returned %d (expected %d): %s\n", #call, rc_, (int)(code), said());                   \
        assert_int_equal(rc_, (code));                                                                            \
    } while (0)

/* Launches the kernel of that mangled name on a grid of gx blocks of bx threads, with its n
 * arguments (pointers and 32-bit integers, each given as 64 bits) laid out as its .param list
 * says. */
static inline int launch(const char *name, unsigned gx, unsigned bx, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    int rc = ptx_test_launch(&module, WB_PTX_KERNELS, WB_PTX_SOURCE, name, gx, bx, n, ap);
    va_end(ap);
    return rc;
}

#define P(p) ((uint64_t)(uintptr_t)(p))
#define I(i) ((uint64_t)(uint32_t)(i))

/* The tracer stops any access outside what a kernel was given: the arena is given. */
static inline int give_arena(void **state)
{
    (void)state;
    struct emu_buffer b = {(const char *)out, (const char *)(out + 192), 64 * sizeof(float), "out", 0, 4, 0, 0, 0};
    emu_set_buffers(&b, 1);
    return 0;
}

static inline int setup(void **state)
{
    char *text = ptx_read_file(WB_PTX_KERNELS, 16 << 20);
    if (!text) {
        fprintf(stderr, "cannot read %s (nvcc -ptx -lineinfo -arch=sm_90 -o %s %s)\n", WB_PTX_KERNELS,
                WB_PTX_KERNELS, WB_PTX_SOURCE);
        return -1;
    }
    int rc = ptx_parse(text, &module);
    free(text);
    if (rc) {
        fprintf(stderr, "%s: %s\n", WB_PTX_KERNELS, module.error);
        return -1;
    }
    return give_arena(state);
}

static inline int teardown(void **state)
{
    (void)state;
    ptx_free(&module);
    return 0;
}

/* The counts of the launch traced since emu_trace_start(), whose result rc must be 0: call it as
 * counted(run_...(...)), the launch then runs before the trace stops. */
static inline struct mem_counts counted(int rc)
{
    struct mem_counts c;
    static struct emu_line_counts lines[EMU_MAX_LINES];
    int n;
    emu_trace_stop(&c, lines, &n);
    assert_run(rc, 0);
    return c;
}

#endif
