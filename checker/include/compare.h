/* Comparing a kernel's output with a reference, and saying in one line what a wrong
 * result looks like (never written, only edge tiles, swapped indices, ...). */
#ifndef WB_COMPARE_H
#define WB_COMPARE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "poison.h"
#include "family.h"
#include "tolerance.h"

/* One wrong element, at (row, col) of the output. */
struct mismatch { int row, col; double want; float got; };

#define MAX_SHOWN_MISMATCHES 5
struct comparison {
    int rows, cols;        /* the output's shape */
    size_t wrong;          /* elements outside the tolerance (NaN included) */
    size_t never_written;  /* elements still holding POISON_BITS */
    size_t never_written_last_row, never_written_last_col; /* of those, in the last row / column */
    size_t guard_values;   /* elements holding GUARD_BITS: copied from outside an input */
    size_t shared_values;  /* elements holding SHARED_POISON_BITS: from unwritten shared memory */
    size_t other_nans;     /* NaNs the kernel computed */
    size_t wrong_inside;   /* wrong elements in tiles that lie wholly inside the matrix */
    int tile;              /* tile width used to tell edge tiles from inner ones (0: no tiles) */
    size_t shown;
    struct mismatch first[MAX_SHOWN_MISMATCHES];
};

/* Compares rows x cols floats (row-major) with a reference. */
void compare_outputs(const float *got, const float *want, int rows, int cols, int tile,
                     struct tolerance tol, struct comparison *c);
/* The same against a double-precision reference given only at some elements (CPU
 * references of large matrices are sampled); idx[i] is the row-major index of want[i]. */
void compare_sampled(const float *got, const double *want, const size_t *idx, size_t n,
                     int rows, int cols, int tile, struct tolerance tol, struct comparison *c);

/* What the checker knows about the expected result beyond the reference itself, so a
 * diagnosis can test the usual mistakes. Any pointer may be NULL when not applicable. */
struct diagnosis_inputs {
    int sums;                  /* the family's elements are sums (family.h: output_is_sum) */
    const float *want;         /* the reference output, rows x cols */
    const float *got;          /* the kernel's output */
    const float *input;        /* where the output moves input elements: the input, which a plain copy reproduces */
    struct tolerance tol;
    int right_elsewhere;       /* the same kernel's output was right at another size: it computes */
    /* The family's likely mistakes (family.h), each as computed and the sentence that names it. */
    const float *likely[FAMILY_MISTAKES];
    const char *likely_what[FAMILY_MISTAKES];
};
/* One sentence saying what the pattern of wrong elements suggests; never NULL. */
const char *diagnose(const struct comparison *c, const struct diagnosis_inputs *in);

#endif
