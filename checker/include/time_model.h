/* The time model (issue 46): a launch's time on a GPU predicted from the emulator's counts of it,
 * as the busiest of the SM's and the memory's resources, each its work over its rate (Little's law
 * for the loads' latency). The judge says the predicted speed-up and where the time goes; the
 * fit against the GPU's measured times (checker/model/fit-timed.py, through `workbook time-terms`)
 * reads the same terms, so the model exists once. A GPU's figures: one file each (gpu_h200.c). */
#ifndef WB_TIME_MODEL_H
#define WB_TIME_MODEL_H

#include "counts.h"

enum time_term {
    TIME_L1,      /* every global sector through an SM's L1 */
    TIME_L2,      /* the sectors a block reads first, and every store's, through L2 */
    TIME_SHARED,  /* shared-memory wavefronts, one a clock a SM */
    TIME_ISSUE,   /* warp instructions, four schedulers a SM */
    TIME_FMA,     /* float instructions on the FMA units */
    TIME_TENSOR,  /* the tensor cores' work, in mma.sync m16n8k16s */
    TIME_LATENCY, /* the loads' bytes over what the resident threads keep in flight, a latency each */
    TIME_TERMS
};

/* The predicted speed-up's error over one lesson's kernels (fit-timed.py --cv: predicted with the
 * factors fitted to the other lessons'), and how many kernels it stands on (0: none measured). */
struct model_error {
    double median, p90;
    int kernels;
};

/* A GPU's figures (measured here where a measurement stands behind them; else its maker's), the
 * factor the fit found for each term, and the fit's error: what the judge may say of itself. */
struct gpu_figures {
    const char *name, *file; /* "H200", and the file of its figures */
    double sms, clock_hz;
    double dram_bytes_s, l2_bytes_s;
    double l1_sectors_clk, shared_wavefronts_clk, issue_clk, fma_clk, hmma_clk; /* per SM */
    double fma64_clk, convert_clk; /* warp instructions a clock an SM: f64 arithmetic, conversions */
    double load_latency_s, launch_s;
    double factor[TIME_TERMS];
    /* The predicted speed-up's error leaving each lesson out of the fit in turn (fit-timed.py
     * --cv), over the kernels of the table but its baselines timed as the student's file (whose
     * prediction is 1 by construction): its median and 90th percentile, over how many kernels, of
     * which table; and each lesson's own (by lesson number). */
    double held_out_median, held_out_p90;
    int kernels;
#define MODEL_LESSONS 16
    struct model_error lesson_error[MODEL_LESSONS];
    const char *calibration;
};
extern const struct gpu_figures gpu_h200;

/* "L1", "L2", "shared-memory wavefronts", ... as a report says them; the fit's short keys. */
const char *time_term_name(enum time_term t);
const char *time_term_key(enum time_term t);

/* Each term's work for the launch counted in c, in seconds at g's rates before its factor;
 * resident_threads: how many of the kernel's threads an SM holds at once (0: not known, 2048). */
void time_terms(const struct mem_counts *c, double resident_threads, const struct gpu_figures *g,
                double terms[TIME_TERMS]);
/* The launch's predicted time: its busiest term times that term's factor; which one in *bound. */
double time_predicted(const double terms[TIME_TERMS], const struct gpu_figures *g, enum time_term *bound);

#endif
