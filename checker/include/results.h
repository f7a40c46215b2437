/* The files make grade writes for course platforms: JSON strings for Gradescope's
 * results.json, and the <testsuite> elements of cmocka's JUnit XML gathered into one file. */
#ifndef WB_RESULTS_H
#define WB_RESULTS_H
#include <stdio.h>

/* Writes s as a JSON string literal, quotes included: valid UTF-8 JSON whatever s holds (control
 * characters as \uNNNN, quote.h's is_control_char; a byte that is not UTF-8 as the text \xNN). */
void json_string(FILE *f, const char *s);

/* Writes s as XML character data or an attribute's value: & < > " escaped, and what XML 1.0
 * forbids (control characters, bytes that are not UTF-8) or a terminal would act on (is_control_char's
 * but tab and newline) as the visible text \xNN or \uNNNN. */
void xml_text(FILE *f, const char *s);

/* Copies the <testsuite> elements of one cmocka XML document (its text) to out, without the
 * XML declaration and the <testsuites> wrapper, its markup kept and its characters written as
 * xml_text writes them. Returns how many were copied. */
int junit_copy_suites(FILE *out, const char *xml);

#endif
