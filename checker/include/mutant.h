/* Wrong kernels for testing the checker, kept as edits of a lesson's solution
 * (checker/mutants/NAME.mutant) so that they follow the solution as it changes, and an edit
 * that no longer applies is an error rather than a silently different mutant. A right kernel of
 * checker/tests/features/ that is a near copy of the solution is kept the same way
 * (NAME/NN_topic/KERNEL.mutant, expect: pass; checker/tools/run-cases.py makes it). Format:
 *
 *   what: one line saying what is wrong
 *   lesson: 2
 *   expect: a phrase the check's report must contain ("a | b": either)
 *   only: emulator      (optional: a mistake only the emulator's order of threads exposes
 *                        every time; on a GPU it may pass by luck, so it is not run there; in
 *                        checker/redteam/, an attack on the interpreter's own code)
 *   gpu-needs: SANITIZE (optional, with only: emulator: on a GPU it is run after all when this
 *                        gate is on, SANITIZE=1 or PROFILE=1, which must then reject it)
 *   expect-unlinted: (checker/redteam/ only) the phrase when the lint is skipped (WB_SKIP_LINT=1),
 *                    so that the gate and the sandbox below it are tried too
 *   may-pass: why    (checker/redteam/ only) the attack has nothing to act on, so a pass is
 *                    fine as long as its side effect did not happen
 *   sentinel: /tmp/wb-redteam-NAME  (checker/redteam/ only) a file the attack tries to make,
 *                    which must not exist after the check
 *   base: checker/tests/features/NAME/NN_topic/file.cu  (optional) the right kernel the edits
 *                    apply to, instead of the lesson's solution: a wrong use of a CUDA feature
 *                    (file.mutant: a right kernel kept as an edit of the solution, made first)
 *   timeout: N       (optional) the emulator's CPU seconds per case, where a kernel that never
 *                    ends is found sooner than at the default
 *   every-case: yes|gpu  (optional) every case runs, not only up to the first failed one (gpu:
 *                    on a GPU only), where the diagnosis comes from a later case or a gate
 *   calibrates: yes  (optional) checker/bench/calibrate.sh times it beside the solution: a
 *                    near miss that sets the lesson's speed threshold
 *   --- replace
 *   exact lines of the solution (must occur exactly once)
 *   +++ with
 *   the lines that take their place
 *   (more --- replace / +++ with pairs may follow)
 */
#ifndef WB_MUTANT_H
#define WB_MUTANT_H
#include <stddef.h>

#define MAX_EDITS 8

struct mutant {
    char what[512];
    int lesson;
    char expect[512];
    char only[32];
    char gpu_needs[32];
    char base[256];
    char expect_unlinted[512];
    char sentinel[256];
    char may_pass[256];
    char every_case[8];
    int timeout;
    int calibrates;
    int nedits;
    struct {
        char *old_text, *new_text;
    } edit[MAX_EDITS];
};

/* Parses a .mutant text (every header above; no field may hold a tab, so that `workbook cases`
 * can print them as columns). Returns 0, or -1 with a sentence in err. */
int mutant_parse(const char *text, struct mutant *m, char *err, size_t errlen);
/* The source with every edit applied (malloc'd), or NULL with a sentence in err. */
char *mutant_apply(const struct mutant *m, const char *source, char *err, size_t errlen);
struct registry;
/* The kernel the .mutant file describes: its edits applied to its base (base:, else the lesson's
 * solution), a base that is a .mutant itself made first. Returns the source (malloc'd), or NULL
 * with a sentence in err; *m holds what parsed of the file either way (mutant_free it). */
char *mutant_make(const char *file, const struct registry *reg, struct mutant *m, char *err, size_t errlen);
void mutant_free(struct mutant *m);

#endif
