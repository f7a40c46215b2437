/* Reading a whole text file: lesson texts, the registry, stubs, mutants. */
#ifndef WB_TEXTFILE_H
#define WB_TEXTFILE_H
#include <stddef.h>

/* The file's contents as a NUL-terminated string (malloc'd), or NULL if it cannot be read. */
char *read_text_file(const char *path);
/* The same for any file, with its size (the string may hold NULs). */
char *read_file_bytes(const char *path, size_t *size);

#endif
