/* The correctness sizes a family's grains call for (issue: a fast path chosen by a typo, or a
 * float4 path taken when N is merely even, goes wrong only in one residue class of the sizes;
 * a fixed list of sizes can miss that class in every judge). A grain is a tile edge a kernel of
 * the family may work in: its block, its tiles, its vector width. */
#ifndef WB_RESIDUES_H
#define WB_RESIDUES_H

#define MAX_GRAINS 8   /* per dimension, 0-terminated in a family's list */
#define MAX_RESIDUE_SIZES 16
#define MAX_RESIDUE_SHAPES 40

/* The sizes of one dimension that put it in every class its grains (ascending, 0-terminated)
 * make: 1; for each grain g below the largest, and each power of two below it (a kernel may key
 * on a part of a grain), 3g (a multiple of g and of no larger grain); the
 * largest grain M itself, and M - 1, M + 1, M + 2 (-1, 1 and 2 modulo every grain; with M, all
 * four residues modulo 4). Ascending, no repeats; returns how many (at most max). */
int residue_sizes(const int *grains, int *out, int max);

struct shape {
    int rows, cols;
};

/* The shapes: square (rows = cols, one dimension's grains): each size once. Otherwise each size
 * of either dimension beside a size of the other from the far end of its list (so that rows
 * that are a multiple of a grain meet cols that are not, and the other way round), and both
 * dimensions at their largest grain. Returns how many (at most max). */
int residue_shapes(const int grains[2][MAX_GRAINS], int square, struct shape *out, int max);

/* The n shapes rounded up to multiples of step (a family's size_step: a tensor map's rows are
 * whole 16-byte units), each kept once, in place; returns how many are left (step <= 1: n). */
int residue_shapes_stepped(int step, struct shape *shapes, int n);

#endif
