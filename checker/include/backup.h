/* Keeping the student's work: every file `make reset` replaces is first copied aside. */
#ifndef WB_BACKUP_H
#define WB_BACKUP_H
#include <stddef.h>
#include <time.h>

/* Copies file into dir (created if missing) as <name>.<YYYYmmdd-HHMMSS><ext>, with -2, -3, ...
 * added rather than ever overwriting an earlier copy. Returns 0 and the copy's path in saved,
 * 1 when file does not exist (nothing to keep), -1 on error (then nothing may be replaced). */
int backup_file(const char *file, const char *dir, time_t when, char *saved, size_t len);

/* Copies src over dst through a temporary file and rename. Returns 0 or -1. */
int copy_file(const char *src, const char *dst);

/* Creates a directory and its parents; an existing one is fine. */
int make_dirs(const char *path);

#endif
