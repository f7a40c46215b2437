/* Text that is not the checker's own words (what a student's kernel printed, or a tool's run of
 * it), made safe to show in a terminal, a log and the course's files: fenced, so that no line of
 * it can pass for one of the checker's, with every byte that would act on a terminal (escape
 * sequences, carriage returns) or is not UTF-8 shown as a visible escape, and capped. The
 * writers of results.json and junit.xml (results.h) read UTF-8 with the same rules. */
#ifndef WB_QUOTE_H
#define WB_QUOTE_H
#include <stddef.h>
#include <stdint.h>

/* What a fenced block shows at most of a text: more is cut, and the block says how much. */
#define QUOTE_MAX_BYTES 4096
#define QUOTE_MAX_LINES 50
/* What every quoted line starts with; no line of the checker's own does. */
#define QUOTE_FENCE "  | "

/* The character that starts at s (n bytes there): its length in bytes (1 to 4) with its code
 * point in *cp, or 0 where the bytes are not well-formed UTF-8 (a stray continuation byte, a
 * sequence cut short, an overlong encoding, a surrogate, a code point past U+10FFFF). */
int utf8_char(const unsigned char *s, size_t n, uint32_t *cp);

/* 1 for a character that acts on a display instead of showing: the C0 controls (newline
 * included), DEL, the C1 controls (U+009B is a terminal's CSI), the marks and overrides that
 * reorder text, and the line and paragraph separators. */
int is_control_char(uint32_t cp);

/* The text (len bytes, NULs allowed) as a fenced block, malloc'd; NULL for an empty text. who
 * names the speaker ("Your kernel"). A header line says how many lines it printed, then each
 * line follows QUOTE_FENCE with a backslash as \\, tab and carriage return as \t and \r, other
 * control characters and bytes that are not UTF-8 as \xNN, and the characters is_control_char
 * names above U+007F as \uNNNN. printed_bytes and printed_lines: how much the speaker printed in
 * all, where text holds only its start (more than the text holds is said as cut). */
char *quote_fenced(const char *who, const char *text, size_t len, size_t printed_bytes, size_t printed_lines);

#endif
