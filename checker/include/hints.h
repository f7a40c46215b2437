/* The lesson texts beside the code: each lesson's hints, which live in lessons/NN_topic/hints.md
 * under "## Hints", one "### Hint k: title" each (never in README.md, so that reading the lesson
 * does not read the answer: `make hint` gives them one at a time); the lesson's title; the
 * answers to its predictions, folded; and the line numbers a text quotes from the lesson's
 * files, each held to its line by a marker. */
#ifndef WB_HINTS_H
#define WB_HINTS_H
#include <stddef.h>
#include <stdio.h>

#include "thresholds.h"

#define MAX_HINTS 8

struct hints {
    int count;
    const char *start[MAX_HINTS]; /* each from its "### Hint" line */
    size_t len[MAX_HINTS];
};

/* Finds the hints in a text (which must outlive h): those under its "## Hints" heading. Returns
 * the number found. */
int hints_find(const char *text, struct hints *h);
/* The text's first level-1 heading without the "# ", or "" if none, into buf. */
const char *lesson_title(const char *text, char *buf, size_t len);

/* What is wrong with where a lesson keeps its hints, as a sentence, or NULL: the README (NULL:
 * missing) must have no "## Hints" section, and hints.md (NULL: missing) must hold at least one
 * hint. The author check refuses a lesson for it. */
const char *hints_misplaced(const char *readme, const char *hints_md);

/* One hint as a folded block for the web page: "<details><summary>Hint k</summary>", its title in
 * bold and its text, so that the page shows one hint at a time, like make hint. */
void hint_markdown(const struct hints *h, int k, FILE *out);

/* The answers to a lesson's predictions, folded. In the text's "## What to measure" section each
 * "**Prediction k" paragraph is followed by what we measured, inside
 *     <details>
 *     <summary>What we measured</summary>
 *     (blank line) ... (blank line)
 *     </details>
 * so that a reader predicts before reading the answer (the blank lines let Markdown inside be
 * parsed). Prints each problem to out as "  name:LINE: ..."; returns their number. */
int predictions_folded_check(const char *text, const char *name, FILE *out);

/* The rules of a lesson's two texts, the author check's (and nowhere else's): the README's title
 * starts "Lesson", it asks at least MIN_PREDICTIONS predictions; hints.md holds at least MIN_HINTS
 * hints, "### Hint k" in order, each with a body, none ending in a blank line or running into the
 * next heading. Prints each problem to out as "  name: ..."; returns their number. */
#define MIN_HINTS 3
#define MIN_PREDICTIONS 2
int lesson_text_check(const char *readme, const char *readme_name, const char *hints_md, const char *hints_name,
                      FILE *out);

/* The CONTRACT a lesson's stub and solution both open with: each file's leading comment, from its
 * first line to the first close of a comment, holding the word CONTRACT. It has one wording in
 * both files (the student reads the stub's; the solution is the one that keeps it), so the
 * author check compares them. Returns 0 when they agree, the first line where they differ, or -1
 * when either file lacks such a comment. */
int contract_mismatch(const char *stub, const char *solution);

/* The CONTRACT's Signature entry (from the word Signature to its ';', the comment's " * " line
 * starts and runs of spaces made one) against `__global__ void KERNEL(PARAMS)`, the family's own
 * parameters (family.h): the student copies it, so it must be the one the judges look for.
 * Returns 0 when it is that, 1 when it differs (said gets the entry as written, made one line),
 * or -1 when the CONTRACT has no such entry. */
int contract_signature_mismatch(const char *text, const char *kernel, const char *params, char *said, size_t len);

/* Quoted line numbers. A lesson text that quotes a line of a lesson's code ("block_sum.cu:64",
 * "line 64") follows the quote, before the next quote or blank line, with a marker
 *     <!-- line: PATH N FRAGMENT -->
 * naming the file, the line and a piece of code that line must contain (PATH may be a wrong
 * kernel of checker/mutants/: then it is the solution with that mutant's edits made). A quote goes stale
 * silently when the code above it moves; the marker makes the author check notice. Several quotes
 * of the same line in a row (a report's lines in a code block) share one marker. */
struct line_source {
    /* The text of PATH (malloc'd, freed by the caller), or NULL: *absent_ok set when the file is
     * missing on purpose (solutions/ in a handout), left 0 when it should be there. */
    char *(*read)(const char *path, int *absent_ok, void *ctx);
    void *ctx;
};
/* A line_source over the workbook's own files (run from its top folder; ctx: the struct registry),
 * which reads a checker/mutants/ path as the solution with that mutant's edits made (without the
 * header line make mutants adds). A handout lacks solutions/ and the mutants on purpose. */
char *lesson_file_text(const char *path, int *absent_ok, void *ctx);
/* Checks every quote and marker of text, named name in what it prints to out, one problem a line
 * ("  name:LINE: ..."). Returns the number of problems. */
int line_quotes_check(const char *text, const char *name, const struct line_source *src, FILE *out);

/* Quoted thresholds. A line of a lesson text that names a threshold in backticks (`min_speedup`)
 * shows its value in bold on the same line, as the lesson's thresholds file has it ("at least
 * **1.60x** ... (`min_speedup` in lessons/06_coarsening/thresholds)"), and names none that the
 * file leaves unset; the text names every number the file sets at least once (yes/no ones need
 * not be named). Figures a text gives without naming the threshold are not checked.
 * Prints each problem to out as "  name:LINE: ..." (from: the thresholds file's path); returns
 * their number. */
int threshold_quotes_check(const char *text, const char *name, const struct thresholds *t, const char *from,
                           FILE *out);
/* The workbook's README.md (text, named name) sums each lesson up in a table row, "| N `folder` | what
 * you write | what the check demands |": a figure of that last cell followed by "x" is the lesson's
 * min_speedup, one followed by "%" its min_limit_share (x 100). Prints each problem to out; returns
 * their number. A missing row is one where row_required (the authors' copy; a handout's README has
 * no such table). */
int threshold_row_check(const char *text, const char *name, int number, const char *folder,
                        const struct thresholds *t, const char *from, int row_required, FILE *out);

#endif
