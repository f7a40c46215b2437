/* A kernel of a parsed module launched by the interpreter from a unit test (test_ptx_run.c,
 * test_ptx_primer.c): found by its mangled name, its n arguments (pointers and 32-bit integers,
 * each given as 64 bits) laid out as its .param list says. Include after cmocka.h, ptx.h and
 * ptx_exec.h. */
#ifndef WB_TEST_PTX_LAUNCH_H
#define WB_TEST_PTX_LAUNCH_H
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

/* The blocks a launch runs (ptx_launch's sample; 0: all). */
static unsigned ptx_test_sample;

/* Runs kernel name of m (read from file, its messages naming source) on gx blocks of bx threads;
 * ptx_run's result. */
static int ptx_test_launch(const struct ptx_module *m, const char *file, const char *source, const char *name,
                           unsigned gx, unsigned bx, int n, va_list ap)
{
    const struct ptx_kernel *k = ptx_find_kernel(m, name);
    if (!k)
        print_error("no kernel %s in %s\n", name, file);
    assert_non_null(k);
    assert_int_equal(k->nparams, n);
    unsigned char params[256] = {0};
    assert_true(k->param_bytes <= (int)sizeof params);
    for (int i = 0; i < n; i++) {
        uint64_t v = va_arg(ap, uint64_t);
        assert_true(k->params[i].bytes == 4 || k->params[i].bytes == 8);
        memcpy(params + k->params[i].offset, &v, (size_t)k->params[i].bytes); /* little-endian */
    }
    struct ptx_launch L = {m, k, {gx, 1, 1}, {bx, 1, 1}, params, source, 0, ptx_test_sample, 0};
    return ptx_run(&L);
}
#endif
