#include "stats.h"

#include <stdlib.h>
#include <string.h>

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between order statistics, q in [0, 1]. */
static double quantile_sorted(const float *s, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    double frac = pos - (double)lo;
    return s[lo] + frac * (s[hi] - s[lo]);
}

static double quantile(const float *x, size_t n, double q)
{
    if (n == 0)
        return 0.0;
    float *s = malloc(n * sizeof *s);
    if (!s)
        return 0.0;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_float);
    double v = quantile_sorted(s, n, q);
    free(s);
    return v;
}

double stats_median(const float *x, size_t n)
{
    return quantile(x, n, 0.5);
}

double stats_rel_spread(const float *x, size_t n)
{
    double med = stats_median(x, n);
    if (med <= 0.0)
        return 0.0;
    return (quantile(x, n, 0.75) - quantile(x, n, 0.25)) / 2.0 / med;
}

double stats_speedup(double reference_ms, double kernel_ms)
{
    if (reference_ms <= 0.0 || kernel_ms <= 0.0)
        return 0.0;
    return reference_ms / kernel_ms;
}
