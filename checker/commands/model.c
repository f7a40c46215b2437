/* `workbook time-terms RECORD...`: the time model's terms (time_model.h) of the launches a check's
 * record counted (check_record.h), for checker/model/fit-timed.py, which fits the terms' factors
 * to the GPU's measured speed-ups: so the fit and the judge's prediction are one model. */
#include <stdio.h>
#include <string.h>

#include "check_record.h"
#include "time_model.h"
#include "traffic.h"

#include "commands.h"

/* The counts of role in r as a launch's (a sample of its blocks scaled to the whole grid), and
 * the threads an SM holds of it (0: not known); 0 if the record has none of role's. */
static int role_counts(const struct check_record *r, const char *role, struct mem_counts *c, double *resident)
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

int cmd_time_terms(int argc, char **argv)
{
    static const char *const roles[] = {"student", "baseline"};
    printf("record\trole");
    for (int t = 0; t < TIME_TERMS; t++)
        printf("\t%s", time_term_key((enum time_term)t));
    printf("\n");
    int bad = 0;
    for (int a = 0; a < argc; a++) {
        static struct check_record r;
        char err[300];
        if (record_read(argv[a], &r, err, sizeof err) != 0) {
            fprintf(stderr, "workbook time-terms: %s\n", err);
            bad = 1;
            continue;
        }
        for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++) {
            struct mem_counts c;
            double resident, terms[TIME_TERMS];
            if (!role_counts(&r, roles[i], &c, &resident))
                continue;
            time_terms(&c, resident, &gpu_h200, terms);
            printf("%s\t%s", argv[a], roles[i]);
            for (int t = 0; t < TIME_TERMS; t++)
                printf("\t%.9g", terms[t]);
            printf("\n");
        }
        record_free(&r);
    }
    return bad;
}
