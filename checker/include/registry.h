/* The lesson registry (lessons/registry): which lessons exist, in which folders, what kernel
 * each one asks for, what it is compared against, what it is worth and how much of its solution
 * the stub leaves to the student. */
#ifndef WB_REGISTRY_H
#define WB_REGISTRY_H
#include <stddef.h>
#include <stdio.h>

#include "family.h"

#define MAX_LESSONS 32

struct lesson {
    int number;          /* N of `make lessonN` */
    char folder[64];     /* e.g. 03_bank_conflicts, the same under lessons/, exercises/, solutions/ */
    char kernel[64];     /* the student's file is <folder>/<kernel>.cu */
    const struct family *family; /* checker/families/ */
    char baseline[256];  /* a .cu file whose kernel is named like the file */
    /* The family the baseline is written for ("FAMILY:path" in the registry; else the lesson's):
     * another launch of the same contract, e.g. the previous lesson's solution. */
    const struct family *baseline_family;
    int points;
    /* The least number of the solution's lines the stub's TODO regions leave to the student
     * (student_lines.h): make author-check measures them and refuses fewer. */
    int student_lines;
};

struct registry {
    int count;
    struct lesson lessons[MAX_LESSONS];
};

/* Parses registry text. Returns 0, or -1 with a sentence naming the line of name (where the text
 * comes from) in err. */
int registry_parse(const char *text, const char *name, struct registry *reg, char *err, size_t errlen);
/* Reads and parses the file at path. */
int registry_load(const char *path, struct registry *reg, char *err, size_t errlen);
/* Writes registry text again with reg's lessons for its own: each comment and blank line of text
 * as it is, reg's lessons, one a line, where text's first lesson stood (a handout's registry). */
void registry_write(FILE *out, const char *text, const struct registry *reg);
/* The lesson with this number, or NULL. */
const struct lesson *registry_find(const struct registry *reg, int number);
int registry_total_points(const struct registry *reg);

#endif
