/* splitmix64: tiny, fast, and good enough to make test matrices that hide nothing. */
#include "rng.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

void rng_seed(struct rng *r, uint64_t run_seed, uint64_t stream)
{
    r->s = run_seed ^ (stream * 0xD1B54A32D192ED03ull);
}

uint64_t rng_next(struct rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void rng_fill_grid(struct rng *r, float *x, size_t n, int bits)
{
    /* At most 24 random bits: every value is exactly representable as a float. */
    for (size_t i = 0; i < n; i++) {
        float u = ldexpf((float)(rng_next(r) >> (64 - bits)), -bits);
        x[i] = 2.0f * u - 1.0f;
    }
}

void rng_fill_uniform(struct rng *r, float *x, size_t n)
{
    rng_fill_grid(r, x, n, 24);
}

uint64_t rng_fresh_seed(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    struct rng r = {(uint64_t)t.tv_sec * 1000000007ull ^ (uint64_t)t.tv_nsec ^ ((uint64_t)getpid() << 32)};
    /* Keep seeds short enough to type back in. */
    return rng_next(&r) % 1000000000ull;
}
