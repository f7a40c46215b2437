/* An input the emulator makes page by page (gpu_job.h's lazy_inputs): element e of the input whose
 * seed is s is 2u - 1 for u the top `bits` bits of a hash of s and e, whichever element is made
 * first. The runner makes the pages its sampled blocks read (emu_trace.c); the judge makes the
 * elements its CPU reference needs where those blocks wrote (judge.c): the same values on both
 * sides, and neither holds the whole input of the size a GPU times. */
#ifndef WB_LAZY_INPUT_H
#define WB_LAZY_INPUT_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>

static inline uint64_t lazy_mix(uint64_t x)
{
    x ^= x >> 30, x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27, x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline float lazy_input_value(uint64_t seed, size_t e, int bits)
{
    uint64_t u = lazy_mix(seed ^ lazy_mix((uint64_t)e)) >> (64 - bits);
    return 2.0f * ldexpf((float)u, -bits) - 1.0f;
}

#endif
