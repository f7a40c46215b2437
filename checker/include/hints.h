/* Hints live in each lesson's README.md, under "## Hints", one "### Hint k: title" each. */
#ifndef WB_HINTS_H
#define WB_HINTS_H
#include <stddef.h>

#define MAX_HINTS 8

struct hints {
    int count;
    const char *start[MAX_HINTS]; /* each from its "### Hint" line */
    size_t len[MAX_HINTS];
};

/* Finds the hints in a lesson text (which must outlive h). Returns the number found. */
int hints_find(const char *text, struct hints *h);
/* The text's first level-1 heading without the "# ", or "" if none, into buf. */
const char *lesson_title(const char *text, char *buf, size_t len);

#endif
