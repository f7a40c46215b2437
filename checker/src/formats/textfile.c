#include "textfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *read_file_bytes(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    long n;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)n + 1)) != NULL) {
        *size = fread(text, 1, (size_t)n, f);
        text[*size] = '\0';
    }
    fclose(f);
    return text;
}

int parse_text_file(const char *path, text_parser parse, void *into, const char *unreadable, char *err,
                    size_t errlen)
{
    size_t size;
    char *text = read_file_bytes(path, &size);
    if (!text) {
        snprintf(err, errlen, unreadable, path);
        return -1;
    }
    if (strlen(text) != size) { /* what follows a NUL byte would be read as if it were not there */
        snprintf(err, errlen, "%s holds a NUL byte: it is not a text file", path);
        free(text);
        return -1;
    }
    int rc = parse(text, path, into, err, errlen);
    free(text);
    return rc;
}

char *read_text_file(const char *path)
{
    size_t size;
    return read_file_bytes(path, &size);
}
