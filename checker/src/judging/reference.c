#include "reference.h"

#include "rng.h"

double ref_matmul_at(const float *A, const float *B, int N, int row, int col)
{
    double acc = 0.0;
    for (int k = 0; k < N; k++)
        acc += (double)A[(size_t)row * N + k] * (double)B[(size_t)k * N + col];
    return acc;
}

void ref_matmul_each(const float *A, const float *B, int N, const uint64_t *at, size_t n, double *out)
{
    size_t n_ = (size_t)N;
    for (size_t i = 0; i < n; i++)
        out[i] = 0.0;
    for (size_t first = 0, end; first < n; first = end) { /* the elements of one row: [first, end) */
        size_t row = at[first] / n_;
        for (end = first; end < n && at[end] / n_ == row; end++)
            ;
        for (size_t k = 0; k < n_; k++) { /* in ref_matmul_at's order: k ascending, one sum each */
            double a = A[row * n_ + k];
            const float *b = B + k * n_;
            for (size_t i = first; i < end; i++)
                out[i] += a * (double)b[at[i] % n_];
        }
    }
}

void ref_matmul_swapped(const float *A, const float *B, int N, float *BA)
{
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            BA[(size_t)r * N + c] = (float)ref_matmul_at(B, A, N, r, c);
}

double ref_transpose_at(const float *in, int rows, int cols, size_t i)
{
    /* out is cols x rows: out[c][r] = in[r][c] */
    size_t c = i / (size_t)rows, r = i % (size_t)rows;
    return in[r * (size_t)cols + c];
}

size_t reference_sample(int rows, int cols, size_t max_full, size_t random, unsigned long long seed, size_t *idx)
{
    size_t total = (size_t)rows * (size_t)cols, n = 0;
    if (total <= max_full) {
        for (size_t i = 0; i < total; i++)
            idx[n++] = i;
        return n;
    }
    for (int c = 0; c < cols; c++)
        idx[n++] = (size_t)(rows - 1) * cols + c;
    for (int r = 0; r < rows - 1; r++)
        idx[n++] = (size_t)r * cols + (cols - 1);
    idx[n++] = 0;
    struct rng g;
    rng_seed(&g, seed, 0x5A3D1E);
    for (size_t k = 0; k < random; k++)
        idx[n++] = rng_next(&g) % total;
    return n;
}
