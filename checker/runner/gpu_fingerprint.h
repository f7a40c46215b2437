/* What the GPU runner measures of device buffers on the GPU itself (gpu_fingerprint.cu), so as
 * not to copy them to the host after every launch: fingerprints, to tell whether a buffer still
 * holds what it held, and the range each element of an output took over many launches. */
#ifndef WB_GPU_FINGERPRINT_H
#define WB_GPU_FINGERPRINT_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
/* A 64-bit fingerprint of `bytes` bytes (a multiple of 4) at device address p, keyed by `key`:
 * a sum over every 32-bit word of a hash of the word, its index and the key. Two different
 * buffers get the same fingerprint with a chance of about 2^-64, and a kernel that never sees
 * the key cannot make one buffer pass for another. Returns a cudaError_t (0: done). */
int gpu_fingerprint(const void *p, size_t bytes, uint64_t key, uint64_t *fingerprint);
/* Widens each element's range [lo, hi] to take in x (first: starts it at x); a NaN in x is kept
 * in both, bits and all, so that poison a launch left is seen as such. n floats, device
 * addresses. Returns a cudaError_t (0: done). */
int gpu_widen_range(float *lo, float *hi, const float *x, size_t n, int first);
#ifdef __cplusplus
}
#endif
#endif
