/* The sanitized-test step's canary: a heap overflow after sandbox_enter, built as the sanitized
 * runner is (build/asan/canary). Its report must come out whole, with the line it names
 * (checker/tests/steps/sanitized-test.py): a sanitizer that the seccomp filter silenced, or that
 * ended with the filter's exit code instead of its own, would let every real report pass unseen. */
#include <stdio.h>
#include <stdlib.h>

#include "sandbox.h"

int main(int argc, char **argv)
{
    (void)argv;
    int forbidden = -1;
    char why[256];
    /* A size the compiler cannot see (UBSan's object-size check would speak first): ASan's own. */
    volatile int *words = malloc((size_t)(3 + argc) * sizeof *words);
    if (!words || sandbox_enter(&forbidden, why, sizeof why) != 0) {
        fprintf(stderr, "canary: %s\n", words ? why : "no memory");
        return 2;
    }
    words[3 + argc] = 1; /* canary: one word past the end */
    return 0;
}
