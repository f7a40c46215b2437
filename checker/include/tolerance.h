/* How far a float result may be from the exact one (the families give each output its
 * tolerance, family.h; the judge compares with it, compare.h). */
#ifndef WB_TOLERANCE_H
#define WB_TOLERANCE_H
#include <stdbool.h>

/* Tolerance |got - want| <= atol + rtol*|want|. Exact (0, 0) for transposes, which only move
 * values. For a K-term float dot product the rounding error of a different but valid
 * summation order grows with K, so both terms scale with K. */
struct tolerance { double atol, rtol; };
struct tolerance tolerance_exact(void);
struct tolerance tolerance_dot(int k);
bool within(float got, double want, struct tolerance tol);

#endif
