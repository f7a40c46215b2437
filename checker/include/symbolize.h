/* Code addresses as file:line, for the judge: the emulator's runner reports addresses as marks
 * ("{pc:0x1a2b}", offsets in its program file, gpu_job.h's PC_MARK_FORMAT) because it may
 * start no programs; llvm-symbolizer, run here on that program, names their source lines. */
#ifndef WB_SYMBOLIZE_H
#define WB_SYMBOLIZE_H
#include <stddef.h>
#include <stdint.h>

/* where[i] = "file.cu:31" for offsets[i] in the program exe, or "?" where it is not known;
 * with_column: "file.cu:31:18", which tells apart two accesses on one line (A[...] * B[...]). */
void symbolize(const char *exe, const uint64_t *offsets, int n, char (*where)[96], int with_column);

/* text with every mark replaced by its file:line, into out. */
void symbolize_marks(const char *exe, const char *text, char *out, size_t len);

#endif
