/* Memory traffic judged: the emulator's counting case, its speed case (the counts of the
 * student's kernel and the baseline at the family's counting size and at one the seed draws, the
 * lesson's traffic rules, the map of each conflicted line's worst request), and the occupancy line
 * both judges print. Built once and linked into each lesson's judge; main.c, a layer above it,
 * calls it (docs/architecture.md). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bankmap.h"
#include "check_run.h"
#include "counting.h"
#include "judge.h"
#include "objgate.h"
#include "occupancy.h"
#include "time_model.h"
#include "traffic.h"

/* Under a GPU judge's "Why:" (WB_EXPLAINING, set by make check's explainer): the GPU has just
 * timed the kernel, so the model judges nothing there. */
static int explaining(void)
{
    const char *v = getenv("WB_EXPLAINING");
    return v && strcmp(v, "1") == 0;
}

/* The time model's error that a prediction must be below the threshold by before it fails the
 * speed case: 1 in 10 of the lesson's kernels, each predicted by a fit to the other lessons', were
 * off by more (gpu_h200.c), and never less than 1 in 10 of all the kernels were: a lesson of four
 * measured kernels (lessons 1 and 5) says little of a fifth unlike them. -1: never measured. */
static double model_band(void)
{
    int n = checking.lesson->number;
    const struct model_error *e = n > 0 && n < MODEL_LESSONS ? &gpu_h200.lesson_error[n] : NULL;
    if (!e || !e->kernels)
        return -1;
    return e->p90 > gpu_h200.held_out_p90 ? e->p90 : gpu_h200.held_out_p90;
}

/* The lesson's traffic rules in their one wording, for the counts case and the list of the
 * cases: how many, each a sentence without its full stop; the solution's bank conflicts said
 * beside that rule where solution_conflicts >= 0. */
int traffic_rules(char rules[TRAFFIC_RULES][RULE_TEXT], long long solution_conflicts)
{
    int n = 0;
    const struct thresholds *t = &checking.limits;
    if (t->max_sector_ratio > 0)
        snprintf(rules[n++], RULE_TEXT, "global memory sectors at most %.2f of the baseline's", t->max_sector_ratio);
    if (t->no_bank_conflicts && solution_conflicts >= 0)
        snprintf(rules[n++], RULE_TEXT, "no shared-memory bank conflicts (the solution has %lld)", solution_conflicts);
    else if (t->no_bank_conflicts)
        snprintf(rules[n++], RULE_TEXT, "no shared-memory bank conflicts");
    if (t->min_loaded_between_barriers > 0)
        snprintf(rules[n++], RULE_TEXT, "every thread that loads has at least %.0f bytes of loads in flight each time "
                 "it waits for them, on average", t->min_loaded_between_barriers);
    if (t->max_barriers_per_thread > 0)
        snprintf(rules[n++], RULE_TEXT, "at most %.0f barriers per thread", t->max_barriers_per_thread);
    if (t->min_tensor_core_share > 0)
        snprintf(rules[n++], RULE_TEXT, "at least %.2f of the multiply-adds on the tensor cores",
                 t->min_tensor_core_share);
    if (t->max_instruction_ratio > 0)
        snprintf(rules[n++], RULE_TEXT, "warp instructions issued at most %.2f of the baseline's",
                 t->max_instruction_ratio);
    if (t->max_shared_instruction_ratio > 0)
        snprintf(rules[n++], RULE_TEXT, "shared-memory instructions issued at most %.2f of the baseline's",
                 t->max_shared_instruction_ratio);
    if (t->min_copy_overlap_share > 0)
        snprintf(rules[n++], RULE_TEXT, "at least %.2f of the tensor cores' multiply-adds issued while a tensor copy "
                 "runs ahead", t->min_copy_overlap_share);
    if (t->max_float_atomic_warps > 0)
        snprintf(rules[n++], RULE_TEXT, "at most %.0f warps of a block adding into one shared word with float atomics, "
                 "or compare-and-swap or exchange in a loop, between two barriers", t->max_float_atomic_warps);
    double band = model_band();
    if (band >= 0 && !explaining())
        snprintf(rules[n++], RULE_TEXT, "the time model's predicted speed-up above %.2fx: the %.2fx required, less "
                 "the model's error (1 in 10 of its predictions off by more than %.0f%%)", t->min_speedup / (1 + band),
                 t->min_speedup, 100 * band);
    return n;
}

/* The map of each conflicted line's worst request (bankmap.h), at the first counting size where
 * the line has one, in the report and as an SVG beside it (build/SRC/NN/bank-map-N.svg, those of
 * an earlier check removed first). On a GPU, make check shows the same maps under its "Why:", from
 * the emulator's count of the same file (the emulator's judge writes the SVGs). */
#define MAX_MAPS (2 * MAX_COUNTED_LINES)
static void bank_maps(const struct line_counts *lines, int n)
{
    static char mapped[MAX_MAPS][sizeof lines->where + 2];
    static int nmapped = -1;
    char path[1024], shown[1024];
    if (nmapped < 0) {
        for (int k = 1; k <= MAX_MAPS; k++) {
            snprintf(path, sizeof path, "%s/bank-map-%d.svg", checking.here, k);
            remove(path);
        }
        nmapped = 0;
    }
    char cwd[800];
    size_t cl = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
    for (int i = 0; i < n; i++)
        for (int o = SHARED_LD; o <= SHARED_ST && nmapped < MAX_MAPS; o++) {
            char key[sizeof mapped[0]];
            snprintf(key, sizeof key, "%d %.*s", o, (int)sizeof lines->where - 1, lines[i].where);
            int k = 0;
            while (k < nmapped && strcmp(mapped[k], key) != 0)
                k++;
            if (k < nmapped)
                continue;
            char *text = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&text, &len);
            int drawn = f && bankmap_request_text(f, &lines[i].worst[o], (enum mem_op)o, lines[i].where);
            if (f)
                fclose(f);
            if (drawn) {
                snprintf(mapped[nmapped++], sizeof mapped[0], "%s", key);
                snprintf(path, sizeof path, "%s/bank-map-%d.svg", checking.here, nmapped);
                FILE *svg = fopen(path, "w");
                int saved = svg && bankmap_request_svg(svg, &lines[i].worst[o], (enum mem_op)o, lines[i].where);
                if (svg && fclose(svg) != 0)
                    saved = 0;
                /* Named from where make was run, as the student typed it. */
                snprintf(shown, sizeof shown, "%s", cl && strncmp(path, cwd, cl) == 0 && path[cl] == '/' ? path + cl + 1 : path);
                say("%s", text);
                if (saved)
                    say("    Drawn as %s.\n", shown);
            }
            free(text);
        }
}

/* The blocks of role r's launch at rows x cols, and how many of them a sample of `sample` ran. */
static double launch_blocks(int r, int rows, int cols, int sample, double *ran)
{
    const struct family *f = r == ROLE_BASELINE ? checking.lesson->baseline_family : checking.lesson->family;
    unsigned grid[2];
    family_grid(f, rows, cols, grid);
    double blocks = (double)grid[0] * grid[1];
    *ran = sample > 0 && sample < blocks ? sample : blocks;
    return blocks;
}

/* The counts at the first counting size into the check's record, by name (check_record.h), with
 * each launch's blocks and how many of them ran (all, but where WB_SAMPLE_BLOCKS sampled them). */
static void record_counts(const char *sz, const struct gpu_job *job)
{
    static const char *const roles[ROLE_COUNT] = {"student", "solution", "baseline"};
    struct named_count named[64];
    snprintf(checking.record.count_size, sizeof checking.record.count_size, "%s", sz);
    for (int r = 0; r < ROLE_COUNT; r++)
        if (role_present(r)) {
            for (int i = 0, n = counts_named(&job->rep.counts[r], named, 64); i < n; i++)
                record_add_count(&checking.record, roles[r], named[i].key, named[i].value);
            double ran, blocks = launch_blocks(r, job->rows, job->cols, job->sample_blocks, &ran);
            record_add_count(&checking.record, roles[r], "blocks_total", blocks);
            record_add_count(&checking.record, roles[r], "blocks_run", ran);
        }
}

/* The lesson's thresholds as the rules on counts at rows x cols. */
static struct traffic_rules lesson_rules(int rows, int cols)
{
    const struct thresholds *t = &checking.limits;
    return (struct traffic_rules){.max_sector_ratio = t->max_sector_ratio,
                                  .no_conflicts = t->no_bank_conflicts,
                                  .min_loaded_between_barriers = t->min_loaded_between_barriers,
                                  .max_barriers_per_thread = t->max_barriers_per_thread,
                                  .min_tensor_core_share = t->min_tensor_core_share,
                                  .work = checking.lesson->family->work(rows, cols),
                                  .max_instruction_ratio = t->max_instruction_ratio,
                                  .max_shared_instruction_ratio = t->max_shared_instruction_ratio,
                                  .max_float_atomic_warps = t->max_float_atomic_warps,
                                  .min_copy_overlap_share = t->min_copy_overlap_share};
}

/* What one counting size counted: each role's counts as the launch ran them, the factor that
 * makes them the whole grid's (a sample of blocks: COUNT_AT_SPEED_SIZE with WB_SAMPLE_BLOCKS;
 * else 1), and the size ("N=256"). */
struct counted {
    struct mem_counts c[ROLE_COUNT];
    double whole[ROLE_COUNT];
    char size[32];
};

/* Counts at one of the two counting sizes (drawn: the seed's) and shows it; the broken rules
 * into why (empty: none), what it counted into out. */
static void counts_at(int drawn, uint64_t stream, char *why, size_t len, struct counted *out)
{
    char *sz = out->size;
    struct job_mem m = counted_job(1, drawn, stream, sz, sizeof out->size);
    const struct gpu_report *rep = &m.job->rep;
    const char *names[ROLE_COUNT] = {"your kernel", "reference solution", "baseline"};
    const char *labels[ROLE_COUNT];
    struct mem_counts shown[ROLE_COUNT];
    int nshown = 0;
    for (int r = 0; r < ROLE_COUNT; r++)
        if (role_present(r)) {
            labels[nshown] = names[r];
            shown[nshown++] = rep->counts[r];
        }
    say("  Memory traffic at %s, counted by the emulator (as Nsight Compute counts it):\n", sz);
    traffic_table(say, labels, shown, nshown);
    if (!drawn)
        record_counts(sz, m.job);
    say("  Warp instructions issued (of the PTX, which ptxas turns into the GPU's own), by the unit that runs "
        "them:\n");
    issue_table(say, labels, shown, nshown);
    say("  Baseline: %s.\n  Your kernel, line by line:\n", lesson.baseline_is);
    traffic_lines(say, rep->lines, rep->nlines);
    bank_maps(rep->lines, rep->nlines);
    const struct traffic_rules rules = lesson_rules(m.job->rows, m.job->cols);
    char broken[2400];
    if (traffic_verdict(&rep->counts[ROLE_STUDENT], &rep->counts[ROLE_BASELINE], rep->lines, rep->nlines, &rules, broken,
                        sizeof broken))
        snprintf(why + strlen(why), len - strlen(why), "%sat %s: %s", *why ? "; " : "", sz, broken);
    if (checking.limits.min_loaded_between_barriers > 0) {
        say("  Global bytes the least busy thread has in flight each time it waits for them, on average (loads issued "
            "before it must wait for one):\n");
        /* (Threads that load nothing at all are left out: idle threads are for timing to judge.) */
        for (int i = 0; i < nshown; i++)
            say("    %-19s %6.0f\n", labels[i], least_burst(&shown[i]));
    }
    if (checking.limits.max_barriers_per_thread > 0) {
        say("  Barriers (__syncthreads) each thread waits at:\n");
        for (int i = 0; i < nshown; i++)
            say("    %-19s %6.1f\n", labels[i], barriers_per_thread(&shown[i]));
    }
    if (checking.limits.max_float_atomic_warps > 0) {
        say("  The most warps of a block that add into one shared word with float atomics, or compare-and-swap or "
            "exchange in a loop, between two barriers (each a compare-and-swap loop on the GPU):\n");
        for (int i = 0; i < nshown; i++)
            say("    %-19s %6" PRIu64 "\n", labels[i], shown[i].float_atomic_warps);
    }
    if (checking.limits.min_tensor_core_share > 0) {
        say("  Multiply-adds done by mma.sync on the tensor cores, as a share of the %.0f the product needs:\n",
            rules.work);
        for (int i = 0; i < nshown; i++)
            say("    %-19s %6.2f\n", labels[i], (double)shown[i].mma_multiply_adds / rules.work);
    }
    if (checking.limits.min_copy_overlap_share > 0) {
        say("  The tensor cores' multiply-adds issued while a tensor copy for a later stage was on its way, as a share "
            "of theirs:\n");
        for (int i = 0; i < nshown; i++)
            say("    %-19s %6.2f\n", labels[i], shown[i].mma_multiply_adds ?
                (double)shown[i].mma_ahead_multiply_adds / (double)shown[i].mma_multiply_adds : 0.0);
    }
    for (int r = 0; r < ROLE_COUNT; r++) {
        double ran = 1, blocks = role_present(r) ? launch_blocks(r, m.job->rows, m.job->cols, m.job->sample_blocks, &ran) : 1;
        out->c[r] = rep->counts[r];
        out->whole[r] = role_present(r) && ran > 0 ? blocks / ran : 1;
    }
    job_free(&m);
}

/* The student's kernel on an SM, from what ptxas gave it (the cubin both judges build): how many
 * blocks an H200's SM holds at once, and what stops one more. Returns the threads it holds (0: not
 * known). */
int say_occupancy(void)
{
    char path[1000];
    int regs;
    size_t shared;
    snprintf(path, sizeof path, "%s/student.cubin", checking.here);
    const struct family *f = checking.lesson->family;
    if (cubin_resources(path, checking.lesson->kernel, f, &regs, &shared) != 0)
        return 0;
    struct occupancy o = occupancy_sm90(f->block_x * f->block_y, regs, shared);
    record_add_count(&checking.record, "student", "resident_threads", (double)o.blocks * f->block_x * f->block_y);
    say("  On an H200's SM: your kernel as ptxas compiled it has %d registers a thread and %zu bytes of static shared "
        "memory a block; %d block%s of %d threads at once (%d of %d warps), limited by %s.\n",
        regs, shared, o.blocks, o.blocks == 1 ? "" : "s", f->block_x * f->block_y, o.warps, o.max_warps,
        occupancy_limit_name(o.limit));
    return o.blocks * f->block_x * f->block_y;
}

/* The time model's prediction (time_model.h) from the counts at the first counting size (each
 * launch's whole grid): the student's speed-up over the baseline beside the lesson's threshold,
 * where the student's time goes, and the model's own error. A verdict only one way: a prediction
 * below the threshold by more than the model's error (model_band) fails the speed case, into why;
 * otherwise the rules judge (issue 46: on the calibration tables of an H200 and an H100, no
 * kernel a GPU found fast enough was below by that much). Under a GPU judge's "Why:" no threshold
 * (explaining). Kept in the record for scripts. */
static void say_prediction(const struct counted *at, int resident, char *why, size_t len)
{
    const struct gpu_figures *g = &gpu_h200;
    struct mem_counts mine_c = at->c[ROLE_STUDENT], base_c = at->c[ROLE_BASELINE];
    counts_scaled(&mine_c, at->whole[ROLE_STUDENT]);
    counts_scaled(&base_c, at->whole[ROLE_BASELINE]);
    double mine[TIME_TERMS], base[TIME_TERMS];
    enum time_term bound;
    time_terms(&mine_c, resident, g, mine);
    time_terms(&base_c, 0, g, base); /* (its occupancy not known: 2048 threads, as in the fit) */
    double t = time_predicted(mine, g, &bound), tb = time_predicted(base, g, NULL);
    if (t <= 0 || tb <= 0) /* a launch that did nothing the model can price */
        return;
    int n = checking.lesson->number;
    double speedup = tb / t, need = checking.limits.min_speedup, band = model_band();
    const struct model_error *e = n > 0 && n < MODEL_LESSONS ? &g->lesson_error[n] : NULL;
    record_add_count(&checking.record, "student", "model_speedup", speedup);
    say("  Predicted by the time model for an %s (%s), from the counts at %s: your kernel %.2fx the baseline's "
        "speed", g->name, g->file, at->size, speedup);
    /* Beside the threshold only by more than the model's error (model_band). */
    if (explaining())
        say(".\n");
    else if (band < 0)
        say(", where a GPU requires %.2fx: the model's error on this lesson's kernels was never measured on this GPU: "
            "only a GPU can tell.\n", need);
    else
        say(", where a GPU requires %.2fx: %s.\n", need,
            speedup >= need * (1 + band)   ? "above it by more than the model's error"
            : speedup * (1 + band) <= need ? "below it by more than the model's error: too slow"
                                           : "within the model's error: only a GPU can tell");
    if (!explaining() && band >= 0 && speedup * (1 + band) <= need)
        snprintf(why + strlen(why), len - strlen(why),
                 "%sthe time model predicts %.2fx the baseline's speed on an %s, bound by %s: below the %.2fx required "
                 "by more than the model's error (1 in 10 of its predictions off by more than %.0f%%), so too slow "
                 "(what bounds it, above)", *why ? "; " : "", speedup, g->name, time_term_name(bound), need, 100 * band);
    say("  Where your kernel's time goes, as the model sees it: bound by %s", time_term_name(bound));
    /* The others, busiest first, each as a share of the time the bound takes. */
    double busy[TIME_TERMS];
    int order[TIME_TERMS], nb = 0;
    for (int k = 0; k < TIME_TERMS; k++) {
        busy[k] = mine[k] * g->factor[k] / t;
        if (k != (int)bound && busy[k] >= 0.05) {
            int i = nb++;
            for (; i > 0 && busy[order[i - 1]] < busy[k]; i--)
                order[i] = order[i - 1];
            order[i] = k;
        }
    }
    for (int i = 0; i < nb; i++)
        say("%s %s %.0f%%", i ? "," : "; the other resources busy that long:", time_term_name((enum time_term)order[i]),
            100 * busy[order[i]]);
    say(".\n  The model's error, each lesson's kernels predicted by a fit to the other lessons' (%d kernels timed on "
        "an %s): a median of %.0f%%, and 1 in 10 off by more than %.0f%%", g->kernels, g->name,
        100 * g->held_out_median, 100 * g->held_out_p90);
    if (e && e->kernels)
        say("; on this lesson's %d: a median of %.0f%%, 1 in 10 off by more than %.0f%%", e->kernels, 100 * e->median,
            100 * e->p90);
    if (explaining())
        say(".\n");
    else
        say(". Below the threshold by more than the larger of the two, the kernel is too slow; else the emulator "
            "judges by the rules on the counts, a GPU by its timing.\n");
}

/* At the size the GPU times, a sample of each launch's blocks (family.h's timed_sample), their
 * counts scaled to the whole grid and held to the same rules; and the student's loads and stores
 * must cover the inputs and the output: a kernel that does less there skips work a GPU would see
 * as a wrong output. The broken rules into why. */
static void counts_timed(const struct check_case *timed, uint64_t stream, char *why, size_t len)
{
    const struct family *f = checking.lesson->family;
    if (checking.count_rows) /* (COUNT_AT_SPEED_SIZE: the first size is this one) */
        return;
    if (!f->timed_sample) {
        /* Its output alone: counted_judge fails the case if wrong. Not where the rules above were
         * already broken: the case's points are gone whatever this finds, and a kernel that keeps
         * lesson 10's product off the tensor cores would spend 20 s of the emulator's on one block. */
        if (f->timed_output_blocks && !*why) {
            char sz[32];
            struct job_mem m = sampled_output_job(timed->rows, timed->cols, f->timed_output_blocks, stream, sz, sizeof sz);
            job_free(&m);
        }
        return;
    }
    char sz[32];
    struct job_mem m = sampled_job(timed->rows, timed->cols, f->timed_sample, stream, sz, sizeof sz);
    const char *names[ROLE_COUNT] = {"your kernel", "reference solution", "baseline"};
    const char *labels[ROLE_COUNT];
    struct mem_counts shown[ROLE_COUNT];
    int nshown = 0, student = -1, baseline = -1;
    double blocks = 0, ran = 0;
    for (int r = 0; r < ROLE_COUNT; r++)
        if (role_present(r)) {
            double b = launch_blocks(r, timed->rows, timed->cols, f->timed_sample, &ran);
            blocks = r == ROLE_STUDENT ? b : blocks;
            shown[nshown] = m.job->rep.counts[r];
            counts_scaled(&shown[nshown], b / ran);
            student = r == ROLE_STUDENT ? nshown : student;
            baseline = r == ROLE_BASELINE ? nshown : baseline;
            labels[nshown++] = names[r];
        }
    say("  Memory traffic at %s, the size a GPU times, from %d of your launch's %.0f blocks (its corners and blocks "
        "the seed draws; each launch its own), scaled to the whole grid:\n",
        sz, f->timed_sample, blocks);
    traffic_table(say, labels, shown, nshown);
    char broken[2400] = "";
    const struct traffic_rules rules = lesson_rules(timed->rows, timed->cols);
    traffic_verdict(&shown[student], &shown[baseline], NULL, 0, &rules, broken, sizeof broken);
    /* What the launch must move at the least: every input element read, every output element
     * written (sectors of 32 bytes; 1% for rounding). */
    int esize = f->input_half ? 2 : 4;
    double in_bytes = (double)(m.job->in_elems[0] + m.job->in_elems[1]) * esize, out_bytes = (double)m.job->out_elems * 4;
    double loaded = 32.0 * (double)shown[student].op[GLOBAL_LD].wavefronts;
    double stored = 32.0 * (double)shown[student].op[GLOBAL_ST].wavefronts;
    size_t used = strlen(broken);
    int short_loads = loaded < 0.99 * in_bytes;
    if (short_loads || stored < 0.99 * out_bytes)
        snprintf(broken + used, sizeof broken - used,
                 "%sits blocks %s %.0f bytes, scaled to the grid, where the %s %.0f: at this size the kernel skips "
                 "work (a path taken only at some sizes or grids?), and its output there cannot be right",
                 used ? "; and " : "", short_loads ? "load" : "store", short_loads ? loaded : stored,
                 short_loads ? "inputs alone hold" : "output alone holds", short_loads ? in_bytes : out_bytes);
    if (*broken)
        snprintf(why + strlen(why), len - strlen(why), "%sat %s (a sample of %d blocks): %s", *why ? "; " : "", sz,
                 f->timed_sample, broken);
    job_free(&m);
}

/* The emulator's speed case: the traffic rules at the family's counting size and at a size drawn
 * from the seed, which no kernel can expect (one that behaves only at a size it knows breaks the
 * rules at the other), and, from a sample of blocks, at the size a GPU times. */
void case_counts(const struct check_case *timed, uint64_t stream)
{
    char why[4800] = "";
    static struct counted first, drawn;
    counts_at(0, stream, why, sizeof why, &first);
    /* At the drawn size only what the rules need: the student's kernel and the baseline, the
     * output judged against the CPU's reference alone (as in a handout, which has no solution). */
    int had = checking.have_solution;
    checking.have_solution = 0;
    counts_at(1, stream + 1, why, sizeof why, &drawn);
    counts_timed(timed, stream + 2, why, sizeof why);
    checking.have_solution = had;
    say_prediction(&first, say_occupancy(), why, sizeof why);
    char rules[TRAFFIC_RULES][RULE_TEXT];
    for (int i = 0, n = traffic_rules(rules, solution_present() ? (long long)all_conflicts(&first.c[ROLE_SOLUTION]) : -1);
         i < n; i++)
        say("  Required: %s.\n", rules[i]);
    if (*why)
        case_fail("%s", why);
}
