/* A lesson's thresholds (lessons/NN_topic/thresholds): what its speed case demands, on a GPU as
 * ratios timed in the same run, in the emulator as rules on the counted memory traffic. The file
 * is their one home: the judge reads it, and make author-check holds the lesson text's quotes of
 * them to it. A line per threshold, "name value", '#' to the end of a line a comment:
 *     min_speedup      1.60     # at least 1.60x the baseline's speed
 *     no_bank_conflicts yes
 * A threshold left out is no rule (0), but for min_speedup, which every lesson has; a value is a plain
 * decimal above 0 (a share of the wavefronts or of the multiply-adds at most 1). */
#ifndef WB_THRESHOLDS_H
#define WB_THRESHOLDS_H
#include <stddef.h>

struct thresholds {
    /* The speed case passes when baseline time / student time >= min_speedup, both measured
     * in the same run (a ratio holds on any GPU; absolute times do not). */
    double min_speedup;
    /* Also at least this share of the throughput of the family's yardstick doing the same work,
     * timed in the same run (family.h: cudaMemcpy for a transpose, cuBLAS for a matmul). */
    double min_limit_share;
    /* The emulator's exact rules, which replace timing there: the student's global memory
     * sectors at most this fraction of the baseline's, no shared-memory bank conflicts at all,
     * every thread loading at least this many bytes from global memory between two of its
     * barriers (traffic.h), at most this many __syncthreads() per thread, at least this share of
     * the family's multiply-adds (its work at the counted size) done by mma.sync. */
    double max_sector_ratio;
    int no_bank_conflicts;
    double min_loaded_between_barriers;
    double max_barriers_per_thread;
    double min_tensor_core_share;
    /* And in the emulator, the student's warp instructions issued (every unit's, of the PTX) at most
     * this fraction of the baseline's, for a lesson whose baseline is bound by issuing them: a kernel
     * that issues that many cannot be the speed-up faster (lesson 10: mma does in one instruction
     * the 2,048 multiply-adds lesson 8 issues 64 FMAs for). */
    double max_instruction_ratio;
    /* And in the emulator, the student's shared-memory instructions (loads, stores, atomics,
     * ldmatrix) at most this fraction of the baseline's: each takes its own turn in the SM's
     * queue to shared memory, and its own latency in the warp's chain (lesson 10: one ldmatrix.x4
     * brings a lane what four 4-byte loads of mma.sync's layout would, and more for B's pairs). */
    double max_shared_instruction_ratio;
    /* And in the emulator, at most this many warps of a block adding floats into one shared word
     * with atomics between two barriers: the GPU runs each such add as a compare-and-swap loop,
     * so the warps on a word take turns (lesson 7: two warps a word as fast as required on an
     * H100, four not). */
    double max_float_atomic_warps;
    /* And in the emulator, at least this share of the tensor cores' products issued while a tensor
     * copy for a later stage is on its way (lesson 11: a pipeline of two stages or more). */
    double min_copy_overlap_share;
    /* On a GPU with PROFILE=1, where no_bank_conflicts is set: Nsight Compute's bank conflicts at
     * most this share of the kernel's shared wavefronts (0: the default, 5%; docs/gates.md). */
    double max_conflict_share;
};

/* How a lesson text quotes a threshold, in bold, on a line that names it in backticks: the number
 * times scale, then suffix ("**1.60x**", "**70%**", "**16 bytes**"). */
struct threshold_quote {
    const char *name;
    double value;
    double scale;
    const char *suffix;
};
/* The thresholds t sets that a text quotes by number, into q (room for n). Returns how many. */
int thresholds_quoted(const struct thresholds *t, struct threshold_quote *q, int n);
/* Whether name is a threshold's, set (nonzero) in t or not. */
int threshold_named(const char *name, const struct thresholds *t, int *set);

/* A plain decimal at s ("16", "1.60"; no sign, exponent or hex), its end in *end. Returns it, or -1
 * (with *end = s) where s does not start with one. */
double plain_decimal(const char *s, const char **end);

/* Parses thresholds text named name (where it comes from). Returns 0, or -1 with a sentence naming
 * the line in err. */
int thresholds_parse(const char *text, const char *name, struct thresholds *t, char *err, size_t errlen);
/* Reads and parses the file at path. */
int thresholds_load(const char *path, struct thresholds *t, char *err, size_t errlen);

#endif
