/* CPU references in double precision: the judge of the judge (the reference solution must
 * agree with these too), and the source of "what a common mistake would have produced". */
#ifndef WB_REFERENCE_H
#define WB_REFERENCE_H
#include <stddef.h>
#include <stdint.h>

/* C[row][col] of C = A*B, N x N row-major, accumulated in double. */
double ref_matmul_at(const float *A, const float *B, int N, int row, int col);
/* ref_matmul_at of the n elements at[] (row-major indices into C, sorted), into out[], bit for
 * bit: one row's elements at once, each B row read along (not a column down, per element). */
void ref_matmul_each(const float *A, const float *B, int N, const uint64_t *at, size_t n, double *out);
/* All of B*A rounded to float: what a kernel with A and B swapped computes. */
void ref_matmul_swapped(const float *A, const float *B, int N, float *BA);
/* Element out[i] of the transpose of in (rows x cols), i.e. of a cols x rows matrix. */
double ref_transpose_at(const float *in, int rows, int cols, size_t i);

/* Which output elements a CPU reference checks: all of them when there are at most
 * max_full, else every element of the last row and last column (where bounds bugs live),
 * the corners, and `random` more spread by seed. Returns the count written to idx
 * (idx must hold max(max_full, random + 2*(rows+cols))). */
size_t reference_sample(int rows, int cols, size_t max_full, size_t random, unsigned long long seed, size_t *idx);

#endif
