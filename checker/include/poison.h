/* The bit patterns the runners write into memory around and before a kernel's launch, and the
 * judge looks for in what comes back (compare.h): the ground floor both share. A runner scans
 * its guard zones (guard_scan) and reports what it found; the judge decides what that means. */
#ifndef WB_POISON_H
#define WB_POISON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bit patterns the harness writes into device memory. Both are NaNs, so any arithmetic on
 * them shows; they differ from every NaN that arithmetic produces, so a copy of one shows too. */
#define POISON_BITS 0xFFFFFFFFu /* the output before each launch: "never written" */
#define GUARD_BITS 0x7FDADBADu  /* the bytes around every buffer: "read from outside a buffer" */
/* The emulator fills shared memory with this before each block. A CPU keeps a NaN's bits
 * through arithmetic, so an output holding them was computed from shared memory no thread had
 * written. (A GPU neither fills shared memory nor keeps NaN bits.) */
#define SHARED_POISON_BITS 0x7FE0FEEDu

/* Scans one guard zone of `n` floats that should all hold GUARD_BITS; `first` is the element
 * offset of zone[0] from the start of the guarded buffer (negative for the zone before it).
 * Adds the overwritten ones to *writes and keeps in *nearest the offset of the one closest to
 * the buffer (the likeliest off-by-one). */
void guard_scan(const float *zone, size_t n, long first, size_t buffer_elems, size_t *writes, long *nearest);

/* True when the float holds exactly this bit pattern. */
bool has_bits(float x, uint32_t bits);

#endif
