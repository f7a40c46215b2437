#include "tolerance.h"

#include <float.h>
#include <math.h>

struct tolerance tolerance_exact(void)
{
    return (struct tolerance){0.0, 0.0};
}

struct tolerance tolerance_dot(int k)
{
    /* Two valid summation orders of K terms differ by about sqrt(K) roundings in practice
     * and K in the worst case; 2*K*eps keeps a wide margin over both while one missing or
     * doubled term (about |a*b| ~ 0.3 for inputs in [-1, 1)) is still far outside it. */
    double t = 2.0 * (k > 0 ? k : 1) * FLT_EPSILON;
    return (struct tolerance){t, t};
}

bool within(float got, double want, struct tolerance tol)
{
    if (isnan(got) || isnan(want))
        return false;
    return fabs((double)got - want) <= tol.atol + tol.rtol * fabs(want);
}
