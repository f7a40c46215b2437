/* The time model (time_model.h). */
#include "time_model.h"

#include <stddef.h>

const char *time_term_name(enum time_term t)
{
    static const char *const names[TIME_TERMS] = {"L1", "L2", "shared-memory wavefronts", "warp instructions issued",
                                                  "float instructions", "the tensor cores' work",
                                                  "the loads' latency"};
    return t < TIME_TERMS ? names[t] : "?";
}

const char *time_term_key(enum time_term t)
{
    static const char *const keys[TIME_TERMS] = {"l1", "l2", "shared", "issue", "fma", "tensor", "latency"};
    return t < TIME_TERMS ? keys[t] : "?";
}

/* Seconds for n of something an SM does per_clock of a clock, all SMs at once. */
static double per_sm(double n, double per_clock, const struct gpu_figures *g)
{
    return n / (g->sms * per_clock * g->clock_hz);
}

void time_terms(const struct mem_counts *c, double resident_threads, const struct gpu_figures *g,
                double terms[TIME_TERMS])
{
    double ld = (double)c->op[GLOBAL_LD].wavefronts, st = (double)c->op[GLOBAL_ST].wavefronts;
    double issued = 0;
    for (int k = 0; k < ISSUE_KINDS; k++)
        issued += (double)c->issued[k];
    /* A block's loads of sectors it read before hit its SM's L1; the first reads, and the
     * stores, go on to L2. */
    terms[TIME_L1] = per_sm(ld + st, g->l1_sectors_clk, g);
    terms[TIME_L2] = ((double)c->block_ld_sectors + st) * 32 / g->l2_bytes_s;
    terms[TIME_SHARED] = per_sm((double)(c->op[SHARED_LD].wavefronts + c->op[SHARED_ST].wavefronts),
                                g->shared_wavefronts_clk, g);
    terms[TIME_ISSUE] = per_sm(issued, g->issue_clk, g);
    /* The float units' work: f32, f64 (at its own rate) and conversions (at theirs), one after the other. */
    terms[TIME_FMA] = per_sm((double)c->issued[ISSUE_FLOAT], g->fma_clk, g) +
                      (g->fma64_clk > 0 ? per_sm((double)c->issued[ISSUE_DOUBLE], g->fma64_clk, g) : 0) +
                      (g->convert_clk > 0 ? per_sm((double)c->issued[ISSUE_CONVERT], g->convert_clk, g) : 0);
    /* In m16n8k16s (2,048 multiply-adds): a wgmma is many of them. */
    terms[TIME_TENSOR] = per_sm((double)c->mma_multiply_adds / 2048, g->hmma_clk, g);
    /* Little's law: the loads' bytes over the bytes the resident threads keep in flight (the
     * least busy loading thread's, each time it waits), one latency each. No loading thread: none. */
    double inflight = c->burst_threads ? (double)c->min_burst_bytes : 0;
    double resident = resident_threads > 0 ? resident_threads : 2048;
    terms[TIME_LATENCY] = inflight > 0 ? ld * 32 * g->load_latency_s / (inflight * resident * g->sms) : 0;
}

double time_predicted(const double terms[TIME_TERMS], const struct gpu_figures *g, enum time_term *bound)
{
    enum time_term worst = TIME_L1;
    for (int t = 1; t < TIME_TERMS; t++)
        if (terms[t] * g->factor[t] > terms[worst] * g->factor[worst])
            worst = (enum time_term)t;
    if (bound)
        *bound = worst;
    return terms[worst] * g->factor[worst];
}
