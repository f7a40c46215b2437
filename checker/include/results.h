/* The files make grade writes for course platforms: JSON strings for Gradescope's
 * results.json, and the <testsuite> elements of cmocka's JUnit XML gathered into one file. */
#ifndef WB_RESULTS_H
#define WB_RESULTS_H
#include <stdio.h>

/* Writes s as a JSON string literal, quotes included. */
void json_string(FILE *f, const char *s);

/* Copies the <testsuite> elements of one cmocka XML document (its text) to out, without the
 * XML declaration and the <testsuites> wrapper. Returns how many were copied. */
int junit_copy_suites(FILE *out, const char *xml);

/* The tests a cmocka report says it skipped (its "[  SKIPPED ] N test(s), listed below" line;
 * a gate whose tool is missing, a case after a hang), so summary.txt can name them: a skip is
 * never to be read as a pass. 0 if none. */
int skipped_tests(const char *report);

#endif
