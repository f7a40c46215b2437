/* SVG pictures of a warp's column read of a 32x32 tile: which bank each thread's word is in,
 * for tile[32][32], tile[32][33] and the XOR-swizzled tile[32][32]; and of one ldmatrix phase
 * on a tile of 128-byte rows, plain and swizzled: drawn from the bank model the emulator grades
 * with. */
#ifndef WB_BANKMAP_H
#define WB_BANKMAP_H
#include <stdio.h>

#include "counts.h"

enum bank_layout { LAYOUT_PLAIN, LAYOUT_PADDED, LAYOUT_SWIZZLED };

/* The layout named "32x32", "32x33" or "xor"; -1 if none. */
int bank_layout_named(const char *name);
/* Word index of tile element [row][col] in the layout. */
int bank_layout_word(enum bank_layout layout, int row, int col);
/* Writes the picture: rows are the 32 threads of a warp reading column `col`, columns are the
 * 32 banks; the caption gives the wavefronts the bank model counts. */
void bankmap_svg(FILE *out, enum bank_layout layout, int col);
/* The same for lesson 10: one ldmatrix phase (8 rows of 16 bytes, chunk `chunk` of rows 0-7) of
 * a tile with 128-byte rows, plain or XOR-swizzled (chunk ^ row): 8 wavefronts or 1. */
void bankmap_ldmatrix_svg(FILE *out, int swizzled, int chunk);

/* The map of a request of the student's own kernel (counts.h: a line's worst shared load or store,
 * as the emulator recorded it), redrawn from its lanes with the bank model: for the terminal,
 * the words each bank is asked for in each phase of the request and, for the banks asked for
 * more than one, which lanes want which words; and as an SVG, a row per lane. `where` names the
 * line as the line table does ("file.cu:69:9 (tile)"). Draws nothing and returns 0 where the
 * request has no conflict or no lane that can be read (any field may be a runner's forgery: each
 * lane is checked); 1 when drawn. */
struct shared_request;
int bankmap_request_text(FILE *out, const struct shared_request *r, enum mem_op op, const char *where);
int bankmap_request_svg(FILE *out, const struct shared_request *r, enum mem_op op, const char *where);

#endif
