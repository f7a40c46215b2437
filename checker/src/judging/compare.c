#include "compare.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool tile_inside(int row, int col, int rows, int cols, int tile)
{
    if (tile <= 0)
        return true;
    return (row / tile + 1) * tile <= rows && (col / tile + 1) * tile <= cols;
}

static void start(struct comparison *c, int rows, int cols, int tile)
{
    memset(c, 0, sizeof *c);
    c->rows = rows;
    c->cols = cols;
    c->tile = tile;
}

static void note(struct comparison *c, size_t i, float got, double want)
{
    int row = (int)(i / (size_t)c->cols), col = (int)(i % (size_t)c->cols);
    c->wrong++;
    if (has_bits(got, POISON_BITS)) {
        c->never_written++;
        c->never_written_last_row += row == c->rows - 1;
        c->never_written_last_col += col == c->cols - 1;
    }
    else if (has_bits(got, GUARD_BITS))
        c->guard_values++;
    else if (has_bits(got, SHARED_POISON_BITS))
        c->shared_values++;
    else if (isnan(got))
        c->other_nans++;
    if (tile_inside(row, col, c->rows, c->cols, c->tile))
        c->wrong_inside++;
    if (c->shown < MAX_SHOWN_MISMATCHES)
        c->first[c->shown++] = (struct mismatch){row, col, want, got};
}

void compare_outputs(const float *got, const float *want, int rows, int cols, int tile,
                     struct tolerance tol, struct comparison *c)
{
    start(c, rows, cols, tile);
    size_t n = (size_t)rows * (size_t)cols;
    for (size_t i = 0; i < n; i++)
        if (!within(got[i], want[i], tol))
            note(c, i, got[i], want[i]);
}

void compare_sampled(const float *got, const double *want, const size_t *idx, size_t n,
                     int rows, int cols, int tile, struct tolerance tol, struct comparison *c)
{
    start(c, rows, cols, tile);
    for (size_t i = 0; i < n; i++)
        if (!within(got[idx[i]], want[i], tol))
            note(c, idx[i], got[idx[i]], want[i]);
}

/* got[r][c] == want[c][r] for every element: only meaningful for square outputs. */
static bool equals_transpose(const float *got, const float *want, int n, struct tolerance tol)
{
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
            if (!within(got[(size_t)r * n + c], want[(size_t)c * n + r], tol))
                return false;
    return true;
}

static bool all_zero(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != 0.0f)
            return false;
    return true;
}

static bool equals(const float *got, const float *want, size_t n, struct tolerance tol)
{
    for (size_t i = 0; i < n; i++)
        if (!within(got[i], want[i], tol))
            return false;
    return true;
}

static int by_value(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

/* Every tile that lies wholly inside the matrix and holds a wrong element holds its own right
 * values, moved within it (the same values, sorted, within the tolerance), and there is such a
 * tile: the kernel put a tile's values in other places than where they belong (a tile read with
 * other indices than it was written with). The tiles of the edge are left out (where a tile is
 * partial, a read elsewhere in it finds what nothing wrote); at most MAX_MOVED_TILES are looked at.
 * How many wrong whole tiles there were goes to *tiles. */
#define MAX_MOVED_TILES 4096
static bool values_moved_within_tiles(const struct comparison *c, const float *got, const float *want,
                                      struct tolerance tol, size_t *tiles)
{
    int t = c->tile;
    *tiles = 0;
    if (t <= 0 || t > 64)
        return false;
    float a[64 * 64], b[64 * 64];
    for (int r0 = 0; r0 + t <= c->rows; r0 += t)
        for (int c0 = 0; c0 + t <= c->cols; c0 += t) {
            int n = 0, wrong = 0;
            for (int r = r0; r < r0 + t; r++)
                for (int k = c0; k < c0 + t; k++, n++) {
                    size_t i = (size_t)r * (size_t)c->cols + (size_t)k;
                    a[n] = got[i], b[n] = want[i];
                    wrong |= !within(got[i], want[i], tol);
                    if (isnan(got[i]) || isnan(want[i]))
                        return false; /* a NaN is not moved: it was read from nowhere */
                }
            if (!wrong)
                continue;
            if (++*tiles > MAX_MOVED_TILES)
                return true;
            qsort(a, (size_t)n, sizeof a[0], by_value);
            qsort(b, (size_t)n, sizeof b[0], by_value);
            for (int k = 0; k < n; k++)
                if (!within(a[k], b[k], tol))
                    return false;
        }
    return *tiles > 0;
}

/* Wrong elements the kernel wrote that hold a right value of another place near them: in the same
 * row within MISPLACED_REACH columns, or the same column within as many rows (zeros, which many
 * places hold, left out). Where most of them do, the kernel computed the values and stored them
 * in the wrong places (a thread's store index misread, lesson 10's fragment layout): the places
 * left over are never written, which is not a bounds check too strict. The first such place
 * goes to *at: its row and column, and where its value belongs. At most MISPLACED_LOOKED wrong
 * elements are looked at. */
#define MISPLACED_REACH 32
#define MISPLACED_LOOKED 4096
struct misplaced { size_t looked, moved; int row, col, from_row, from_col; };
static void misplaced_values(const struct comparison *c, const float *got, const float *want, struct tolerance tol,
                             struct misplaced *at)
{
    memset(at, 0, sizeof *at);
    size_t n = (size_t)c->rows * (size_t)c->cols;
    for (size_t i = 0; i < n && at->looked < MISPLACED_LOOKED; i++) {
        if (within(got[i], want[i], tol) || isnan(got[i]) || got[i] == 0.0f)
            continue;
        at->looked++;
        int row = (int)(i / (size_t)c->cols), col = (int)(i % (size_t)c->cols), fr = -1, fc = -1;
        for (int d = 1; d <= MISPLACED_REACH && fr < 0; d++)
            for (int s = -1; s <= 1 && fr < 0; s += 2) {
                int cc = col + s * d, rr = row + s * d;
                if (cc >= 0 && cc < c->cols && within(got[i], want[(size_t)row * (size_t)c->cols + (size_t)cc], tol))
                    fr = row, fc = cc;
                else if (rr >= 0 && rr < c->rows && within(got[i], want[(size_t)rr * (size_t)c->cols + (size_t)col], tol))
                    fr = rr, fc = col;
            }
        if (fr < 0)
            continue;
        if (at->moved++ == 0)
            at->row = row, at->col = col, at->from_row = fr, at->from_col = fc;
    }
}

/* "1 element is" / "2 elements are": the counts in these sentences are often 1. */
static const char *s_(size_t n) { return n == 1 ? "" : "s"; }

/* Some elements never written (still NaN poison), the rest right or not: which ones, into line. */
static const char *never_written(const struct comparison *c, bool whole_tiles, char *line, size_t size)
{
    size_t total = (size_t)c->rows * (size_t)c->cols;
    bool last_row = c->rows > 1 && c->never_written == (size_t)c->cols && c->never_written_last_row == (size_t)c->cols;
    bool last_col = c->cols > 1 && c->never_written == (size_t)c->rows && c->never_written_last_col == (size_t)c->rows;
    if (last_row || last_col)
        snprintf(line, size,
                 "only the last %s was never written (still NaN poison): an off-by-one in a bounds "
                 "check (`< N - 1` where `< N` was meant?).",
                 last_row ? "row" : "column");
    else if (c->wrong_inside == 0 && whole_tiles)
        snprintf(line, size,
                 "%zu element%s in the partial tiles at the edge %s never written (still NaN poison): "
                 "does the kernel handle only sizes that are multiples of %d?",
                 c->never_written, s_(c->never_written), c->never_written == 1 ? "was" : "were", c->tile);
    else
        snprintf(line, size,
                 "%zu of %zu elements %s never written (still NaN poison), the first at row %d, col %d: "
                 "a bounds check that is too strict, or threads returning early?",
                 c->never_written, total, c->never_written == 1 ? "was" : "were", c->first[0].row, c->first[0].col);
    return line;
}

/* Elements the kernel read from memory nobody wrote (their kinds exclude each other), named by
 * what they hold: the first kind there is, into line; NULL where there are none. */
static const char *read_unwritten(const struct comparison *c, char *line, size_t size)
{
    const struct {
        size_t n;
        const char *verb[2], *rest; /* verb: for one element, for several */
    } unwritten[] = {
        {c->shared_values, {"came", "came"},
         "from shared memory that no thread had written yet: the kernel read a tile before it was complete (a "
         "missing __syncthreads() after the loads?)."},
        {c->guard_values, {"holds", "hold"},
         "the guard pattern that surrounds the input: the kernel read past the end of the input (a load without its "
         "bounds check, or one that lets the last index through: `<=` or `>` where `<` or `>=` was meant?)."},
        {c->other_nans, {"is", "are"},
         "NaN where the reference has a number: the kernel read memory nobody wrote (outside an input, or shared "
         "memory a barrier should have waited for)."},
    };
    for (size_t k = 0; k < sizeof unwritten / sizeof unwritten[0]; k++)
        if (unwritten[k].n > 0) {
            snprintf(line, size, "%zu element%s %s %s", unwritten[k].n, s_(unwritten[k].n),
                     unwritten[k].verb[unwritten[k].n != 1], unwritten[k].rest);
            return line;
        }
    return NULL;
}

const char *diagnose(const struct comparison *c, const struct diagnosis_inputs *in)
{
    static char line[400];
    size_t total = (size_t)c->rows * (size_t)c->cols;
    bool square = c->rows == c->cols && c->rows > 1;
    /* Below one tile every tile is an edge tile: "only the edge is wrong" would tell nothing. */
    bool whole_tiles = c->tile > 0 && c->rows >= c->tile && c->cols >= c->tile;

    if (c->wrong == 0)
        return "every element matches the reference.";
    if (c->never_written == total)
        return "every element still holds the NaN poison the output starts with: the kernel wrote nothing "
               "(is a TODO still open, or does every thread return before its store?), or it wrote values "
               "computed from the output itself (C[i] += ..., or atomicAdd(&C[i], ...), reads C before anything "
               "wrote it).";
    if (in && in->got && in->input && equals(in->got, in->input, total, in->tol))
        return "the output equals the input, element for element: the kernel copied instead of "
               "transposing (row and column swapped in the store, or the tile read the way it was written?).";
    if (in && in->got && in->want && in->sums && square &&
        equals_transpose(in->got, in->want, c->rows, in->tol))
        return "the output is the transpose of the right answer: row and col are swapped "
               "(does threadIdx.y pick the column?).";
    for (int k = 0; in && in->got && k < FAMILY_MISTAKES; k++)
        if (in->likely[k] && in->likely_what[k] && equals(in->got, in->likely[k], total, in->tol))
            return in->likely_what[k];
    struct misplaced moved = {0};
    if (in && in->sums && in->got && in->want) /* a moved input's values are a transpose's to judge */
        misplaced_values(c, in->got, in->want, in->tol, &moved);
    if (moved.moved >= 2 && 2 * moved.moved > moved.looked) {
        snprintf(line, sizeof line,
                 "%zu of the %zu wrong elements the kernel wrote%s hold a right value of another place near them "
                 "(row %d, col %d holds row %d, col %d's)%s: the values are computed right and stored in the wrong "
                 "places. Check the store's index: which rows and columns each thread holds.",
                 moved.moved, moved.looked, moved.looked == MISPLACED_LOOKED ? " (the first of them looked at)" : "",
                 moved.row, moved.col, moved.from_row, moved.from_col,
                 c->never_written ? ", and the places nothing was stored in still hold the NaN poison" : "");
        return line;
    }
    if (c->never_written > 0)
        return never_written(c, whole_tiles, line, sizeof line);
    if (c->other_nans == total && in && in->sums) /* NaN in, NaN out: poison + x */
        return "every element is NaN: each sum took in memory nobody wrote. Either values computed from the "
               "output itself (C[i] += ..., or atomicAdd(&C[i], ...), reads C, which starts as whatever the memory "
               "held, before anything wrote it: keep the sum in a register from 0 and store it once, or write 0 "
               "there first, a barrier before the atomics), or loads past the end of an input (the checker surrounds "
               "every input with NaN: is a load missing its bounds check?).";
    const char *unwritten = read_unwritten(c, line, sizeof line);
    if (unwritten)
        return unwritten;
    /* Stored, but never computed: a stub's TODO, unless the kernel computed at another size, where a
     * count or a bound that is 0 at this size is likelier (issue 47: lesson 9 taking its last slice's
     * length as cols % 4096, which is 0 where cols is a multiple of 4096). */
    if (in && in->got && all_zero(in->got, total) && in->right_elsewhere)
        return "every element is 0, though the kernel's output was right at another size: at this size nothing "
               "was added into any of them, so a count or a bound is 0 here (a length taken as a remainder, "
               "cols % SLICE say, is 0 where cols is a multiple of SLICE).";
    if (in && in->got && all_zero(in->got, total))
        return "every element is 0: the kernel stored zeros instead of computing them (is a TODO still open?), "
               "or added nothing at this size (a count that is 0 here?).";
    if (c->tile == 0) {
        snprintf(line, sizeof line,
                 "%zu of %zu elements are wrong, the first at row %d, col %d (listed above with what was expected): "
                 "compare their values with the reference's to see what the kernel added, or missed.",
                 c->wrong, total, c->first[0].row, c->first[0].col);
        return line;
    }
    if (!whole_tiles) {
        snprintf(line, sizeof line,
                 "%zu of %zu elements are wrong; this matrix is smaller than one %dx%d tile, so the size says "
                 "nothing of where the mistake is: compare the first differences above with a larger size's.",
                 c->wrong, total, c->tile, c->tile);
        return line;
    }
    if (c->wrong_inside == 0)
        return "only tiles at the edge of the matrix are wrong: check the bounds (loads outside the "
               "matrix must give 0, stores outside it must be skipped), and that threads outside the "
               "matrix still do their share of the loads: a load, a loop or a barrier inside "
               "`if (row < N && col < N)` skips it.";
    size_t tiles;
    if (in && in->got && in->want && values_moved_within_tiles(c, in->got, in->want, in->tol, &tiles)) {
        snprintf(line, sizeof line, "%zu of %zu elements are wrong, and each wrong %dx%d tile inside the matrix holds "
                 "its own right values, in the wrong places: the tile is read with other indices than it was written "
                 "with (a swizzle where it is written but not where it is read, or the other way round, or indices "
                 "swapped in one of the two?).",
                 c->wrong, total, c->tile, c->tile);
        return line;
    }
    snprintf(line, sizeof line, "%zu of %zu elements are wrong, some of them well inside the matrix: a "
             "mistake in what an element computes, not only in the bounds.", c->wrong, total);
    return line;
}
