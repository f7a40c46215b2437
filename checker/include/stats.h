/* Timing statistics: medians and the spread of repeated launches. */
#ifndef WB_STATS_H
#define WB_STATS_H
#include <stddef.h>

/* Median of n samples (n >= 1); the input is left unsorted. */
double stats_median(const float *x, size_t n);
/* Half the distance between the 25th and 75th percentiles, relative to the median:
 * how far a typical launch strays from the median (0.02 = 2 %). */
double stats_rel_spread(const float *x, size_t n);
/* Speed-up of a kernel over a reference: reference time / kernel time, 0 if either is not positive. */
double stats_speedup(double reference_ms, double kernel_ms);

#endif
