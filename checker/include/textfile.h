/* Reading a whole text file: lesson texts, the registry, stubs, mutants. */
#ifndef WB_TEXTFILE_H
#define WB_TEXTFILE_H

/* The file's contents as a NUL-terminated string (malloc'd), or NULL if it cannot be read. */
char *read_text_file(const char *path);

#endif
