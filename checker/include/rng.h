/* Reproducible random inputs: one 64-bit seed gives the same matrices on any machine. */
#ifndef WB_RNG_H
#define WB_RNG_H
#include <stddef.h>
#include <stdint.h>

struct rng { uint64_t s; };

/* Seeds a generator for one test case: the run's seed mixed with the case's index,
 * so each case gets its own stream and any one case can be replayed alone. */
void rng_seed(struct rng *r, uint64_t run_seed, uint64_t stream);
uint64_t rng_next(struct rng *r);
/* Uniform in [-1, 1): products stay O(1) and sums of K of them grow like sqrt(K). */
void rng_fill_uniform(struct rng *r, float *x, size_t n);
/* The same with `bits` random bits (1 to 24): multiples of 2^(1 - bits) in [-1, 1), so that a
 * sum of up to 2^(24 - bits) of them is exact in any order. 24 is rng_fill_uniform. */
void rng_fill_grid(struct rng *r, float *x, size_t n, int bits);
/* A seed for a run nobody asked to replay: time and pid, never a fixed constant. */
uint64_t rng_fresh_seed(void);

#endif
