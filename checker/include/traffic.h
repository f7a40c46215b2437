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
/* The lines with shared-memory traffic or global traffic, e.g. "...cu:58  shared loads: 2048
 * requests, 65536 wavefronts (31 extra per request: a 32-way bank conflict)". */
void traffic_lines(say_fn say, const struct line_counts *lines, int n);

/* A lesson's rules: student's global sectors at most max_sector_ratio times the baseline's
 * (0: no such rule), and no bank conflicts at all when no_conflicts. Returns 0 if kept; else
 * -1 with the broken rule's sentence in why. */
int traffic_verdict(const struct mem_counts *student, const struct mem_counts *baseline, double max_sector_ratio,
                    int no_conflicts, char *why, size_t len);

#endif
