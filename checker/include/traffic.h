/* Reading memory-traffic counts (counts.h) as a student needs them: a table per kernel, the
 * busiest source lines with their bank conflicts, and a lesson's rules on them. */
#ifndef WB_TRAFFIC_H
#define WB_TRAFFIC_H
#include <stddef.h>

#include "counts.h"

typedef void (*say_fn)(const char *fmt, ...);

/* Extra passes through the banks that conflicts cost (wavefronts beyond the ideal). */
uint64_t conflicts(const struct op_counts *c);
/* Global sectors, loads and stores together. */
uint64_t sectors(const struct mem_counts *c);
/* Shared-memory conflicts, loads and stores together. */
uint64_t all_conflicts(const struct mem_counts *c);

/* One row per kernel: requests, sectors, wavefronts and conflicts. */
void traffic_table(say_fn say, const char *const labels[], const struct mem_counts *counts, int n);
/* Each count of c by its name ("global_ld.sectors" is "global_ld.wavefronts": a global access's
 * wavefronts are its sectors; "issued.float", "least_burst", ...), at most max of them: what a
 * check's record keeps for a time model (check_record.h). Returns how many. */
struct named_count {
    char key[28];
    double value;
};
int counts_named(const struct mem_counts *c, struct named_count *out, int max);
/* The other way: the count named key (counts_named's names) in c set to value; 0 if no count
 * has that name. */
int counts_set_named(struct mem_counts *c, const char *key, double value);
/* The counts of role ("student", "baseline", ...) in a check's record as its whole launch's (a
 * sample of its blocks, blocks_run of blocks_total, scaled to the grid; a record from before
 * global_ld.block_sectors takes every load's sector as its block's first), and the threads an SM
 * holds of it (0: not known). 0 if the record has none of role's. */
struct check_record;
int record_role_counts(const struct check_record *r, const char *role, struct mem_counts *c, double *resident);

/* The warp instructions each issued, by unit (the emulator's counts alone), as a table. */
void issue_table(say_fn say, const char *const labels[], const struct mem_counts *counts, int n);
/* The lines with shared-memory traffic or global traffic, e.g. "...cu:58  shared loads: 2048
 * requests, 65536 wavefronts (31 extra per request: a 32-way bank conflict)". */
void traffic_lines(say_fn say, const struct line_counts *lines, int n);

/* c's counts times k (a sample of a launch's blocks made the whole launch's): every count of
 * work, not the bytes in flight a thread has (a rate, the same in every block). */
void counts_scaled(struct mem_counts *c, double k);

/* The least, over the threads that load from global memory, of each one's most bytes of loads
 * in flight at once; -1 where not measured. */
double least_burst(const struct mem_counts *c);
/* The barriers a thread waits at, on average over the threads launched. */
double barriers_per_thread(const struct mem_counts *c);

/* Where the tensor cores' rule holds: float multiplies on the ordinary cores (an epilogue's
 * scaling, say) up to this share of the product's multiply-adds. */
#define MAX_CORE_MULTIPLY_SHARE 0.01

/* A lesson's rules on the counts (0: no such rule). */
struct traffic_rules {
    double max_sector_ratio;      /* the student's global sectors at most this times the baseline's */
    int no_conflicts;             /* no shared-memory bank conflicts at all */
    double min_loaded_between_barriers; /* every thread that loads from global memory has at least
                                           this many bytes of loads in flight at once */
    double max_barriers_per_thread;/* at most this many barriers per thread */
    double min_tensor_core_share; /* at least this share of `work` done by mma.sync, and at most
                                     MAX_CORE_MULTIPLY_SHARE of it in float multiplies elsewhere */
    double work;                  /* the family's multiply-adds at the counted size */
    double max_instruction_ratio; /* the student's warp instructions at most this times the
                                     baseline's (the emulator's counts; none from Nsight Compute) */
    double max_shared_instruction_ratio; /* the student's shared-memory instructions at most this
                                            times the baseline's (the emulator's counts) */
    double max_float_atomic_warps; /* at most this many warps of a block on one shared word with
                                      float adds between two barriers (the emulator's count) */
    double min_copy_overlap_share; /* at least this share of the tensor cores' multiply-adds issued
                                      while a tensor copy ran ahead (counts.h; the emulator's) */
};
/* Returns 0 if the student's counts keep the rules; else -1 with the broken rules' sentences. A
 * broken sector rule is said with the figures of the table (loads and stores) and its cause, from
 * the student's lines where there are some (the emulator's; NULL: none). */
int traffic_verdict(const struct mem_counts *student, const struct mem_counts *baseline, const struct line_counts *lines,
                    int nlines, const struct traffic_rules *rules, char *why, size_t len);

#endif
