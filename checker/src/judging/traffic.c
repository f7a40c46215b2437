#include "traffic.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check_record.h"

static const char *const op_names[MEM_OPS] = {"shared loads", "shared stores", "global loads", "global stores"};

uint64_t conflicts(const struct op_counts *c)
{
    return c->wavefronts > c->ideal ? c->wavefronts - c->ideal : 0;
}

uint64_t sectors(const struct mem_counts *c)
{
    return c->op[GLOBAL_LD].wavefronts + c->op[GLOBAL_ST].wavefronts;
}

uint64_t all_conflicts(const struct mem_counts *c)
{
    return conflicts(&c->op[SHARED_LD]) + conflicts(&c->op[SHARED_ST]);
}

void traffic_table(say_fn say, const char *const labels[], const struct mem_counts *counts, int n)
{
    say("    %-19s %-21s %-21s %-31s %s\n", "", "global loads", "global stores", "shared loads", "shared stores");
    say("    %-19s %9s %11s %9s %11s %9s %10s %10s %9s %10s %10s\n", "", "requests", "sectors", "requests", "sectors",
        "requests", "wavefronts", "conflicts", "requests", "wavefronts", "conflicts");
    for (int i = 0; i < n; i++) {
        const struct op_counts *o = counts[i].op;
        say("    %-19s %9" PRIu64 " %11" PRIu64 " %9" PRIu64 " %11" PRIu64 " %9" PRIu64 " %10" PRIu64 " %10" PRIu64
            " %9" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n",
            labels[i], o[GLOBAL_LD].requests, o[GLOBAL_LD].wavefronts, o[GLOBAL_ST].requests, o[GLOBAL_ST].wavefronts,
            o[SHARED_LD].requests, o[SHARED_LD].wavefronts, conflicts(&o[SHARED_LD]), o[SHARED_ST].requests,
            o[SHARED_ST].wavefronts, conflicts(&o[SHARED_ST]));
    }
}

static const char *const units[ISSUE_KINDS] = {"float", "double", "convert", "integer", "special", "warp",
                                               "shared", "global", "local", "tensor", "control"};

/* Each plain count of c by its name, and where it sits in c (least_burst, a count made of two,
 * apart): the one list counts_named and counts_set_named read. Returns how many. */
#define PLAIN_COUNTS (MEM_OPS * 4 + ISSUE_KINDS + 8)
struct count_field {
    char key[sizeof ((struct named_count *)0)->key];
    uint64_t *at;
};
static int count_fields(struct mem_counts *c, struct count_field *f)
{
    static const char *const ops[MEM_OPS] = {"shared_ld", "shared_st", "global_ld", "global_st"};
    int n = 0;
#define FIELD(fmt, arg, where)                                                                                       \
    do {                                                                                                             \
        if (n < PLAIN_COUNTS) { /* (one FIELD more than PLAIN_COUNTS is dropped: the round-trip test fails) */   \
            snprintf(f[n].key, sizeof f[n].key, fmt, arg);                                                           \
            f[n++].at = &(where);                                                                                    \
        }                                                                                                            \
    } while (0)
    for (int o = 0; o < MEM_OPS; o++) {
        FIELD("%s.requests", ops[o], c->op[o].requests);
        FIELD("%s.wavefronts", ops[o], c->op[o].wavefronts);
        FIELD("%s.ideal", ops[o], c->op[o].ideal);
        FIELD("%s.bytes", ops[o], c->op[o].bytes);
    }
    for (int k = 0; k < ISSUE_KINDS; k++)
        FIELD("issued.%s", units[k], c->issued[k]);
    FIELD("%s", "barrier_arrivals", c->barrier_arrivals);
    FIELD("%s", "threads", c->threads);
    FIELD("%s", "mma_multiply_adds", c->mma_multiply_adds);
    FIELD("%s", "core_multiplies", c->core_multiplies);
    FIELD("%s", "mma_ahead_multiply_adds", c->mma_ahead_multiply_adds);
    FIELD("%s", "float_atomic_warps", c->float_atomic_warps);
    FIELD("%s", "global_ld.block_sectors", c->block_ld_sectors);
    FIELD("%s", "global.launch_sectors", c->launch_sectors);
#undef FIELD
    return n;
}

int counts_named(const struct mem_counts *c, struct named_count *out, int max)
{
    struct mem_counts copy = *c;
    struct count_field f[PLAIN_COUNTS];
    int n = 0, nf = count_fields(&copy, f);
    for (int i = 0; i < nf && n < max; i++, n++) {
        memcpy(out[n].key, f[i].key, sizeof out[n].key);
        out[n].value = (double)*f[i].at;
    }
    if (n < max) {
        snprintf(out[n].key, sizeof out[n].key, "least_burst");
        out[n++].value = least_burst(c);
    }
    return n;
}

int counts_set_named(struct mem_counts *c, const char *key, double value)
{
    if (strcmp(key, "least_burst") == 0) { /* -1: no thread loads */
        c->min_burst_bytes = value >= 0 ? (uint64_t)value : 0;
        c->burst_threads = value >= 0;
        return 1;
    }
    struct count_field f[PLAIN_COUNTS];
    for (int i = 0, nf = count_fields(c, f); i < nf; i++)
        if (strcmp(f[i].key, key) == 0) {
            *f[i].at = value > 0 ? (uint64_t)(value + 0.5) : 0;
            return 1;
        }
    return 0;
}

int record_role_counts(const struct check_record *r, const char *role, struct mem_counts *c, double *resident)
{
    double total = 0, run = 0;
    int found = 0, block_sectors = 0;
    memset(c, 0, sizeof *c);
    *resident = 0;
    for (int i = 0; i < r->ncounts; i++) {
        const struct record_count *k = &r->counts[i];
        if (strcmp(k->role, role) != 0)
            continue;
        found = 1;
        if (strcmp(k->key, "blocks_total") == 0)
            total = k->value;
        else if (strcmp(k->key, "blocks_run") == 0)
            run = k->value;
        else if (strcmp(k->key, "resident_threads") == 0)
            *resident = k->value;
        else if (counts_set_named(c, k->key, k->value))
            block_sectors |= strcmp(k->key, "global_ld.block_sectors") == 0;
    }
    if (!block_sectors) /* a record from before the count: every load's sector its block's first */
        c->block_ld_sectors = c->op[GLOBAL_LD].wavefronts;
    if (run > 0 && total > run)
        counts_scaled(c, total / run);
    return found;
}

void issue_table(say_fn say, const char *const labels[], const struct mem_counts *counts, int n)
{
    say("    %-19s", "");
    for (int k = 0; k < ISSUE_KINDS; k++)
        say(" %9s", units[k]);
    say("\n");
    for (int i = 0; i < n; i++) {
        say("    %-19s", labels[i]);
        for (int k = 0; k < ISSUE_KINDS; k++)
            say(" %9" PRIu64, counts[i].issued[k]);
        say("\n");
    }
}

void traffic_lines(say_fn say, const struct line_counts *lines, int n)
{
    for (int i = 0; i < n; i++)
        for (int o = 0; o < MEM_OPS; o++) {
            const struct op_counts *c = &lines[i].op[o];
            if (c->requests == 0)
                continue;
            if (o == SHARED_LD || o == SHARED_ST) {
                uint64_t extra = conflicts(c), ideal = c->ideal ? c->ideal : c->requests;
                /* n-way: the wavefronts over the conflict-free ones (a float4 access needs 4 even then). */
                double ways = (double)c->wavefronts / (double)ideal;
                double per = (double)c->wavefronts / (double)c->requests, want = (double)ideal / (double)c->requests;
                if (!extra)
                    say("    %-44s %s: %" PRIu64 " requests, %" PRIu64 " wavefronts: no bank conflicts\n",
                        lines[i].where, op_names[o], c->requests, c->wavefronts);
                else if (lines[i].atomic)
                    say("    %-44s %s: %" PRIu64 " requests, %" PRIu64 " wavefronts: %.1f per request where %.1f "
                        "would do: these are atomics, and the lanes of one atomic on the same word (or bank) take a "
                        "pass each\n",
                        lines[i].where, op_names[o], c->requests, c->wavefronts, per, want);
                else if (ideal > c->requests) /* wider than 4 bytes a lane: several passes even without conflicts */
                    say("    %-44s %s: %" PRIu64 " requests, %" PRIu64 " wavefronts: %.1f per request where %.1f "
                        "would do (%.0f-way bank conflicts)\n",
                        lines[i].where, op_names[o], c->requests, c->wavefronts, per, want, ways);
                else
                    say("    %-44s %s: %" PRIu64 " requests, %" PRIu64 " wavefronts: %.0f-way bank conflicts "
                        "(%.0f extra wavefront%s per request)\n",
                        lines[i].where, op_names[o], c->requests, c->wavefronts, ways, (double)extra / (double)c->requests,
                        extra == c->requests ? "" : "s");
            } else {
                say("    %-44s %s: %" PRIu64 " requests, %" PRIu64 " sectors (%.1f per request)\n", lines[i].where,
                    op_names[o], c->requests, c->wavefronts, (double)c->wavefronts / (double)c->requests);
            }
        }
    for (int i = 0; i < n; i++)
        if (lines[i].float_atomic_warps > 1)
            say("    %-44s float atomic adds, or compare-and-swaps or exchanges in a loop, on shared memory: %d warps "
                "of a block on one word between two barriers, taking turns (each a compare-and-swap loop on the GPU)\n",
                lines[i].where, lines[i].float_atomic_warps);
}

static uint64_t times(uint64_t n, double k)
{
    return (uint64_t)((double)n * k + 0.5);
}

void counts_scaled(struct mem_counts *c, double k)
{
    for (int o = 0; o < MEM_OPS; o++) {
        struct op_counts *x = &c->op[o];
        x->requests = times(x->requests, k), x->wavefronts = times(x->wavefronts, k);
        x->ideal = times(x->ideal, k), x->bytes = times(x->bytes, k);
    }
    c->barrier_arrivals = times(c->barrier_arrivals, k), c->threads = times(c->threads, k);
    c->burst_threads = times(c->burst_threads, k);
    c->mma_multiply_adds = times(c->mma_multiply_adds, k), c->core_multiplies = times(c->core_multiplies, k);
    c->mma_ahead_multiply_adds = times(c->mma_ahead_multiply_adds, k);
    c->block_ld_sectors = times(c->block_ld_sectors, k);
    c->launch_sectors = times(c->launch_sectors, k);
    for (int u = 0; u < ISSUE_KINDS; u++)
        c->issued[u] = times(c->issued[u], k);
}

/* Warp instructions issued, every unit's. */
static uint64_t all_issued(const struct mem_counts *c)
{
    uint64_t n = 0;
    for (int k = 0; k < ISSUE_KINDS; k++)
        n += c->issued[k];
    return n;
}

double least_burst(const struct mem_counts *c)
{
    return c->burst_threads ? (double)c->min_burst_bytes : -1.0;
}

double barriers_per_thread(const struct mem_counts *c)
{
    return c->threads ? (double)c->barrier_arrivals / (double)c->threads : 0.0;
}

/* Appends one broken rule to why ("...; and ..."). */
static void broken(char *why, size_t len, const char *rule)
{
    size_t used = strlen(why);
    if (used < len)
        snprintf(why + used, len - used, "%s%s", used ? "; and " : "", rule);
}

/* Why a kernel's global sectors are many, from its lines (the emulator's), in a few words (a
 * failure's sentence is shown whole only up to about a thousand characters): the line whose
 * sectors hold the most bytes beyond those its lanes asked for, or, where every line's sectors are
 * about as many as its bytes fill, the bytes themselves. */
static void sector_cause(const struct line_counts *lines, int n, char *out, size_t len)
{
    int worst = -1, worst_op = 0, others = 0;
    uint64_t excess = 0, total = 0;
    for (int i = 0; i < n; i++)
        for (int o = GLOBAL_LD; o <= GLOBAL_ST; o++) {
            const struct op_counts *c = &lines[i].op[o];
            total += c->wavefronts;
            /* (a quarter more than the bytes: a row's edge or a misaligned start, not the pattern) */
            if (!c->requests || !c->bytes || c->wavefronts * 32 * 4 <= c->bytes * 5)
                continue;
            others += worst >= 0;
            if (c->wavefronts * 32 - c->bytes > excess)
                worst = i, worst_op = o, excess = c->wavefronts * 32 - c->bytes;
        }
    if (worst >= 0) {
        const struct op_counts *c = &lines[worst].op[worst_op];
        snprintf(out, len, ": %s %s fetch %.1f times the bytes they ask for (%.1f sectors of 32 bytes a request, for "
                 "%.0f bytes: its lanes use little of each sector they touch, and other requests fetch the same "
                 "sectors again)%s",
                 lines[worst].where, op_names[worst_op], (double)c->wavefronts * 32 / (double)c->bytes,
                 (double)c->wavefronts / (double)c->requests, (double)c->bytes / (double)c->requests,
                 others == 1 ? "; so does 1 more line" : others > 1 ? "; so do more lines" : "");
    } else if (total)
        snprintf(out, len, ": every line's sectors hold little more than the bytes it asks for, so it is the bytes "
                 "themselves (an input element loaded more times than the tiles need, or data the result does not "
                 "use)");
    else if (len)
        out[0] = '\0';
}

int traffic_verdict(const struct mem_counts *student, const struct mem_counts *baseline, const struct line_counts *lines,
                    int nlines, const struct traffic_rules *rules, char *why, size_t len)
{
    char rule[1600];
    if (len)
        why[0] = '\0';
    if (rules->no_conflicts && all_conflicts(student) > 0) {
        snprintf(rule, sizeof rule, "%" PRIu64 " shared-memory bank conflicts where none are allowed", all_conflicts(student));
        broken(why, len, rule);
    }
    if (rules->max_sector_ratio > 0) {
        double ratio = sectors(baseline) ? (double)sectors(student) / (double)sectors(baseline) : 0.0;
        if (ratio > rules->max_sector_ratio) {
            char cause[400];
            sector_cause(lines, lines ? nlines : 0, cause, sizeof cause);
            snprintf(rule, sizeof rule,
                     "%" PRIu64 " global memory sectors (%" PRIu64 " loaded, %" PRIu64 " stored), %.2f of the baseline's "
                     "%" PRIu64 " (%" PRIu64 ", %" PRIu64 "), where at most %.2f is allowed%s",
                     sectors(student), student->op[GLOBAL_LD].wavefronts, student->op[GLOBAL_ST].wavefronts, ratio,
                     sectors(baseline), baseline->op[GLOBAL_LD].wavefronts, baseline->op[GLOBAL_ST].wavefronts,
                     rules->max_sector_ratio, cause);
            broken(why, len, rule);
        }
    }
    double burst = least_burst(student), want = rules->min_loaded_between_barriers;
    if (want > 0 && burst >= 0 && burst < want) {
        snprintf(rule, sizeof rule,
                 "a thread has %.0f bytes of global loads in flight each time it waits for them, on average, where "
                 "at least %.0f are required: it uses each loaded value before it issues the next load (a loop the "
                 "compiler keeps rolled, an address that depends on a loaded value, or a barrier or fence between "
                 "the loads), so each load waits for the one before",
                 burst, want);
        broken(why, len, rule);
    }
    double waits = barriers_per_thread(student);
    if (rules->max_barriers_per_thread > 0 && waits > rules->max_barriers_per_thread) {
        snprintf(rule, sizeof rule,
                 "%.1f barriers per thread, where at most %.0f are allowed: every __syncthreads() stops the whole block "
                 "until its slowest warp arrives",
                 waits, rules->max_barriers_per_thread);
        broken(why, len, rule);
    }
    double on_tensor_cores = rules->work > 0 ? (double)student->mma_multiply_adds / rules->work : 0;
    if (rules->min_tensor_core_share > 0 && on_tensor_cores < rules->min_tensor_core_share) {
        snprintf(rule, sizeof rule,
                 "%.2f of the multiply-adds on the tensor cores (mma.sync: %" PRIu64 " of %.0f), where at least %.2f "
                 "is required: the lesson's products must come from mma.sync",
                 on_tensor_cores, student->mma_multiply_adds, rules->work, rules->min_tensor_core_share);
        broken(why, len, rule);
    }
    double ahead = student->mma_multiply_adds ? (double)student->mma_ahead_multiply_adds / (double)student->mma_multiply_adds : 0;
    if (rules->min_copy_overlap_share > 0 && ahead < rules->min_copy_overlap_share) {
        snprintf(rule, sizeof rule,
                 "%.2f of the tensor cores' multiply-adds were issued while a tensor copy for a later stage was on its "
                 "way, where at least %.2f is required: the copies do not run ahead of the products (one stage, or a "
                 "copier that waits for each stage to be read before it copies the next), so the tensor cores wait "
                 "for every copy and the copies for every product",
                 ahead, rules->min_copy_overlap_share);
        broken(why, len, rule);
    }
    /* ... and not beside them: mma.sync run for show while the ordinary cores make the product. */
    double on_cores = rules->work > 0 ? (double)student->core_multiplies / rules->work : 0;
    if (rules->min_tensor_core_share > 0 && on_cores > MAX_CORE_MULTIPLY_SHARE) {
        snprintf(rule, sizeof rule,
                 "%" PRIu64 " float multiplies on the ordinary cores (fma, mad, mul), %.2f of the product's %.0f "
                 "multiply-adds, where at most %.2f is allowed: the products must come from the tensor cores, not "
                 "from both",
                 student->core_multiplies, on_cores, rules->work, MAX_CORE_MULTIPLY_SHARE);
        broken(why, len, rule);
    }
    if (rules->max_float_atomic_warps > 0 && (double)student->float_atomic_warps > rules->max_float_atomic_warps) {
        const char *at = NULL;
        for (int i = 0; lines && i < nlines; i++)
            if (lines[i].float_atomic_warps == student->float_atomic_warps || (!at && lines[i].float_atomic_warps))
                at = lines[i].where;
        snprintf(rule, sizeof rule,
                 "%" PRIu64 " warps of a block update one shared word with float atomicAdd, or atomicCAS or "
                 "atomicExch in a loop, between two barriers%s%s%s, where at most %.0f may: the GPU runs a float add on "
                 "shared memory as a compare-and-swap loop (load the word, swap in the sum if nobody changed it, else "
                 "again), as such a loop of your own does, so those warps take turns on the word",
                 student->float_atomic_warps, at ? " (" : "", at ? at : "", at ? ")" : "", rules->max_float_atomic_warps);
        broken(why, len, rule);
    }
    uint64_t issued = all_issued(student), baseline_issued = all_issued(baseline);
    double issue_ratio = baseline_issued ? (double)issued / (double)baseline_issued : 0;
    if (rules->max_instruction_ratio > 0 && issue_ratio > rules->max_instruction_ratio) {
        int most = 0;
        for (int k = 1; k < ISSUE_KINDS; k++)
            most = student->issued[k] > student->issued[most] ? k : most;
        snprintf(rule, sizeof rule,
                 "%" PRIu64 " warp instructions issued, %.2f of the baseline's %" PRIu64 ", where at most %.2f is "
                 "allowed: the baseline's time is spent issuing instructions, so a kernel that issues this many "
                 "cannot be the speed-up faster; most of yours are %s instructions (%" PRIu64 ", the table of units "
                 "above)",
                 issued, issue_ratio, baseline_issued, rules->max_instruction_ratio, units[most],
                 student->issued[most]);
        broken(why, len, rule);
    }
    uint64_t shared = student->issued[ISSUE_SHARED], baseline_shared = baseline->issued[ISSUE_SHARED];
    double shared_ratio = baseline_shared ? (double)shared / (double)baseline_shared : 0;
    if (rules->max_shared_instruction_ratio > 0 && shared_ratio > rules->max_shared_instruction_ratio) {
        snprintf(rule, sizeof rule,
                 "%" PRIu64 " shared-memory instructions issued, %.2f of the baseline's %" PRIu64 ", where at most %.2f "
                 "is allowed: each waits its turn in the SM's queue to shared memory and adds its latency to the "
                 "warp's chain, so wider reads do more a turn: one ldmatrix.x4 gives each lane its share of four 8 x 8 "
                 "matrices, one 16-byte load four words",
                 shared, shared_ratio, baseline_shared, rules->max_shared_instruction_ratio);
        broken(why, len, rule);
    }
    return len && why[0] ? -1 : 0;
}
