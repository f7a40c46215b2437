/* `workbook time-terms RECORD...`: the time model's terms (time_model.h) of the launches a check's
 * record counted (check_record.h), for checker/model/fit-timed.py, which fits the terms' factors
 * to the GPU's measured speed-ups: so the fit and the judge's prediction are one model. */
#include <stdio.h>
#include <string.h>

#include "check_record.h"
#include "time_model.h"
#include "traffic.h"

#include "commands.h"

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
            if (!record_role_counts(&r, roles[i], &c, &resident))
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
