/* Fingerprints of device buffers, computed on the GPU (gpu_fingerprint.cu): the GPU runner's
 * way to tell whether a buffer still holds what it held, without copying it to the host. */
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
#ifdef __cplusplus
}
#endif
#endif
