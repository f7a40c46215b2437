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

#endif
