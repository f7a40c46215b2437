/* The sizes a family's grains call for (residues.h). */
#include "residues.h"

static int add_size(int *out, int n, int max, int v)
{
    if (v < 1 || n >= max)
        return n;
    int i = n;
    for (int k = 0; k < n; k++)
        if (out[k] == v)
            return n;
    while (i > 0 && out[i - 1] > v) { /* kept ascending */
        out[i] = out[i - 1];
        i--;
    }
    out[i] = v;
    return n + 1;
}

/* The largest grain of a list (1: none). */
static int largest_grain(const int *grains)
{
    int largest = 1;
    for (int k = 0; k < MAX_GRAINS && grains[k] > 0; k++)
        largest = grains[k];
    return largest;
}

int residue_sizes(const int *grains, int *out, int max)
{
    int n = add_size(out, 0, max, 1), largest = largest_grain(grains);
    for (int k = 0; k < MAX_GRAINS && grains[k] > 0 && grains[k] < largest; k++)
        n = add_size(out, n, max, 3 * grains[k]);
    /* A kernel may key on a power of two below a grain (a 16-byte copy of halves taken when
     * N % 4 == 0, where 8 halves make the chunk): 3p for each, a multiple of p and of no more. */
    for (int p = 2; p < largest; p *= 2)
        n = add_size(out, n, max, 3 * p);
    for (int d = -1; d <= 2; d++)
        n = add_size(out, n, max, largest + d);
    return n;
}

static int add_shape(struct shape *out, int n, int max, int rows, int cols)
{
    for (int k = 0; k < n; k++)
        if (out[k].rows == rows && out[k].cols == cols)
            return n;
    if (n < max)
        out[n++] = (struct shape){rows, cols};
    return n;
}

int residue_shapes_stepped(int step, struct shape *shapes, int n)
{
    if (step <= 1)
        return n;
    int kept = 0;
    for (int i = 0; i < n; i++) {
        struct shape s = {(shapes[i].rows + step - 1) / step * step, (shapes[i].cols + step - 1) / step * step};
        int seen = 0;
        for (int k = 0; k < kept; k++)
            seen |= shapes[k].rows == s.rows && shapes[k].cols == s.cols;
        if (!seen)
            shapes[kept++] = s;
    }
    return kept;
}

int residue_shapes(const int grains[2][MAX_GRAINS], int square, struct shape *out, int max)
{
    int r[MAX_RESIDUE_SIZES], c[MAX_RESIDUE_SIZES], n = 0;
    int nr = residue_sizes(grains[0], r, MAX_RESIDUE_SIZES), nc = residue_sizes(grains[square ? 0 : 1], c, MAX_RESIDUE_SIZES);
    if (square) {
        for (int i = 0; i < nr; i++)
            n = add_shape(out, n, max, r[i], r[i]);
        return n;
    }
    int mr = largest_grain(grains[0]), mc = largest_grain(grains[1]);
    for (int i = 0; i < nr; i++)
        n = add_shape(out, n, max, r[i], c[nc - 1 - i % nc]);
    for (int j = 0; j < nc; j++)
        n = add_shape(out, n, max, r[nr - 1 - j % nr], c[j]);
    /* a multiple of a grain beside M + 1 of the other dimension (a multiple of none) */
    for (int i = 0; i < nr; i++)
        if (r[i] % grains[0][0] == 0)
            n = add_shape(out, n, max, r[i], mc + 1);
    for (int j = 0; j < nc; j++)
        if (c[j] % grains[1][0] == 0)
            n = add_shape(out, n, max, mr + 1, c[j]);
    return add_shape(out, n, max, mr, mc); /* both a multiple of every grain */
}
