/* How much of a lesson's solution its stub leaves to the student (make author-check).
 *
 * A stub marks what the student writes with TODO regions: a region opens at a line whose `//`
 * comment starts with "TODO" and closes at the next line whose `//` comment is "END TODO"; more
 * TODO lines inside one region are part of it:
 *     // TODO: load this thread's element of each tile ...
 *     (placeholder code, or none)
 *     // END TODO
 * The stub and the solution are compared as code: comments and blank lines dropped, runs of
 * spaces made one. Their lines are aligned by a longest common subsequence, so a line the stub
 * already has costs the student nothing and the count is the least any alignment gives. A line
 * of the solution that the stub lacks, and that is more than punctuation (a lone `}` is not a
 * line the student writes; `#pragma unroll` is), is one the student writes when the stretch of
 * the stub it replaces, between the lines both files share, touches a region.
 * Lines of the solution that differ outside every region are counted apart: the stub's TODOs
 * do not point at them. */
#ifndef WB_STUDENT_LINES_H
#define WB_STUDENT_LINES_H
#include <stddef.h>

/* Below this, a stub is one expression away from its solution: make author-check refuses the
 * lesson whatever lessons/registry asks (a `return chunk;` made `return chunk ^ (row & 7);`). */
#define STUDENT_LINES_FLOOR 2

struct student_lines {
    int regions;       /* TODO regions in the stub */
    int inside;        /* lines of the solution the student writes, inside them */
    int outside;       /* lines of the solution that differ from the stub outside every region */
    int first_outside; /* the solution's line (1-based) of the first of those, 0 if none */
};

/* The TODO regions of stub against solution (both whole files). Returns 0, or -1 with a sentence
 * in err that names the stub's line: a TODO never closed, an END TODO with no TODO open, no
 * region at all. */
int student_lines_measure(const char *stub, const char *solution, struct student_lines *m, char *err,
                          size_t errlen);

#endif
