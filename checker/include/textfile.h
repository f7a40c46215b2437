/* Reading a whole text file: lesson texts, the registry, stubs, mutants. */
#ifndef WB_TEXTFILE_H
#define WB_TEXTFILE_H
#include <stddef.h>

/* The file's contents as a NUL-terminated string (malloc'd), or NULL if it cannot be read. */
char *read_text_file(const char *path);
/* The same for any file, with its size (the string may hold NULs). */
char *read_file_bytes(const char *path, size_t *size);

/* A reader of one format: parses text named name (where it comes from) into into. Returns 0, or
 * -1 with a sentence in err. */
typedef int (*text_parser)(const char *text, const char *name, void *into, char *err, size_t errlen);
/* Reads the file at path and parses it; a file that cannot be read gets the sentence unreadable,
 * a printf format given path, and one that holds a NUL byte is refused. */
int parse_text_file(const char *path, text_parser parse, void *into, const char *unreadable, char *err,
                    size_t errlen) __attribute__((format(printf, 4, 0)));

#endif
