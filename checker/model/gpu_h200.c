/* The NVIDIA H200 (SXM, 132 SMs) as the time model sees it (time_model.h). Each figure is measured
 * on the lent H200 (docs/measurements.md) or NVIDIA's. The factors, and the errors below (each
 * lesson's kernels predicted with the factors fitted to the other lessons'), are the lines that
 * `checker/model/fit-timed.py checker/model/calibration/h200-2026-12-05.tsv build/speed-set/emu
 * --emu --fit --cv` prints for this file, over the records of `EMU=1 checker/bench/speed-set.sh`
 * (2026-12-07 12:31 UTC). fit-timed.py reads this file: a figure changed here changes the fit's
 * starting point too. */
#include "time_model.h"

const struct gpu_figures gpu_h200 = {
    .name = "H200",
    .file = __FILE__,
    .sms = 132,
    .clock_hz = 1.98e9,        /* nvidia-smi's SM clock (2026-12-05) */
    .dram_bytes_s = 4.1e12,    /* cudaMemcpy device to device: 3995-4192 GB/s */
    .l2_bytes_s = 8.04e12,     /* a 16 MiB buffer read 64 times (reduce-bandwidth.cu) */
    .l1_sectors_clk = 4,       /* 128 bytes a clock through an SM's L1: a first guess, fitted */
    .shared_wavefronts_clk = 1, /* 32 banks of 4 bytes a clock */
    .issue_clk = 4,            /* four schedulers, a warp instruction a clock each */
    .fma_clk = 4,              /* 128 FP32 lanes: four warp FMAs a clock */
    .hmma_clk = 1,             /* a first guess, fitted */
    /* NVIDIA's throughput of native arithmetic instructions, compute capability 9.0 (the CUDA C++
     * Programming Guide): 64 f64 results a clock an SM, 16 type conversions */
    .fma64_clk = 2,
    .convert_clk = 0.5,
    .load_latency_s = 347e-9,  /* one global load alone from DRAM (reduce-bandwidth.cu) */
    .launch_s = 3e-6,          /* a launch's fixed cost (only the timed size's fit uses it) */
    .factor = {[TIME_L1] = 1.00, [TIME_L2] = 1.00, [TIME_SHARED] = 0.59, [TIME_ISSUE] = 0.84, [TIME_FMA] = 1.00,
               [TIME_TENSOR] = 1.00, [TIME_LATENCY] = 1.00},
    .held_out_median = 0.218,
    .held_out_p90 = 0.966,
    .kernels = 71,
    /* Lesson 11 came after the table: none of its kernels measured. */
    .lesson_error = {[1] = {1.236, 3.040, 4}, [2] = {0.472, 0.485, 7}, [3] = {0.038, 0.684, 7},
                     [4] = {0.127, 3.800, 9}, [5] = {0.052, 0.193, 4}, [6] = {0.557, 1.025, 8},
                     [7] = {0.361, 1.819, 7}, [8] = {0.183, 0.653, 9}, [9] = {0.105, 0.323, 10},
                     [10] = {0.138, 0.966, 6}},
    .calibration = "checker/model/calibration/h200-2026-12-05.tsv",
};
