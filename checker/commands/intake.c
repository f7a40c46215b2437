/* `workbook intake`: a hand-in's lesson files copied through the intake (intake.h) into a stage
 * of the grader's, which everything after it reads (commands.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backup.h"
#include "intake.h"
#include "textfile.h"

#include "commands.h"

/* path's bytes made (bytes, n): written whole (a temporary file, renamed), and only when they
 * differ from what is there, so that make sees an unchanged hand-in as unchanged. */
static int write_if_changed(const char *path, const char *bytes, size_t n)
{
    size_t old_n;
    char *old = read_file_bytes(path, &old_n);
    int same = old && old_n == n && memcmp(old, bytes, n) == 0;
    free(old);
    if (same)
        return 0;
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    int ok = write(fd, bytes, n) == (ssize_t)n;
    ok &= close(fd) == 0;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* One lesson's outcome into stage/FOLDER: the copy (or none) and .intake, its one line. */
static int stage_lesson(const char *stage, const struct lesson *l, const struct intake_file *f)
{
    char dir[1024], path[1100], line[1024];
    snprintf(dir, sizeof dir, "%s/%s", stage, l->folder);
    if (make_dirs(dir) != 0 || chmod(stage, 0700) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/%s.cu", dir, l->kernel);
    if (f->verdict == INTAKE_COPIED) {
        char sha[65];
        sha256_hex(f->bytes, f->size, sha);
        snprintf(line, sizeof line, "copied %s\n", sha);
        if (write_if_changed(path, f->bytes, f->size) != 0)
            return -1;
        /* Its name for the messages and line tables, made safe for them (and for make's shell). */
        char shown[sizeof f->where + 1];
        size_t k = 0;
        for (const char *c = f->where; *c && k + 2 < sizeof shown; c++)
            shown[k++] = (unsigned char)*c < 0x20 || *c == 0x7f || strchr(" '\"\\$`;&|<>(){}*?![]#~", *c) ? '_' : *c;
        shown[k++] = '\n';
        snprintf(path, sizeof path, "%s/.shown", dir);
        if (write_if_changed(path, shown, k) != 0)
            return -1;
    } else {
        if (unlink(path) != 0 && errno != ENOENT)
            return -1;
        snprintf(line, sizeof line, "%s%s%s\n",
                 f->verdict == INTAKE_ABSENT ? "absent" : f->verdict == INTAKE_REFUSED ? "refused" : "grader",
                 f->verdict == INTAKE_ABSENT ? "" : " ", f->verdict == INTAKE_ABSENT ? "" : f->why);
    }
    snprintf(path, sizeof path, "%s/.intake", dir);
    return write_if_changed(path, line, strlen(line));
}

int intake_handin(const char *root, const char *name, const char *stage, const struct lesson **ls, int n,
                  struct intake_file *out, char hash[17])
{
    char why[768], manifest[MAX_LESSONS * 200] = "", full[65];
    int refused = 0, rc = 0;
    struct handin *h = handin_open(root, name, &refused, why, sizeof why);
    if (!h && !refused) {
        fprintf(stderr, "%s\n", why);
        return 3;
    }
    for (int i = 0; i < n; i++) {
        struct intake_file *f = &out[i];
        char file[300];
        snprintf(file, sizeof file, "%s.cu", ls[i]->kernel);
        if (h)
            handin_take(h, ls[i]->folder, file, f);
        else /* the hand-in itself refused: every lesson of it */
            *f = (struct intake_file){.verdict = INTAKE_REFUSED};
        if (!h)
            snprintf(f->why, sizeof f->why, "%.700s.", why);
        if (f->verdict == INTAKE_GRADER)
            rc = 3;
        if (stage && stage_lesson(stage, ls[i], f) != 0) {
            fprintf(stderr, "The intake cannot write its copy in %s: %s\n", stage, strerror(errno));
            rc = 3;
        }
        char sha[65] = "";
        if (f->verdict == INTAKE_COPIED)
            sha256_hex(f->bytes, f->size, sha);
        snprintf(manifest + strlen(manifest), sizeof manifest - strlen(manifest), "%s/%s %s%s%s\n", ls[i]->folder,
                 file, f->verdict == INTAKE_COPIED ? "copied" : f->verdict == INTAKE_ABSENT ? "absent" : "refused",
                 *sha ? " " : "", sha);
    }
    handin_close(h);
    sha256_hex(manifest, strlen(manifest), full);
    snprintf(hash, 17, "%.16s", full);
    return rc;
}

static int usage_of_intake(void)
{
    fprintf(stderr, "usage: workbook intake [--root DIR] [--need] [--] HANDIN STAGE|--hash [N...]\n");
    return 2;
}

/* workbook intake [--root DIR] [--need] [--] HANDIN STAGE|--hash [N...] */
int cmd_intake(int argc, char **argv)
{
    const char *root = NULL, *handin = NULL, *stage = NULL;
    int need = 0, hash_only = 0, i = 0;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        if (!strcmp(argv[i], "--")) { /* the options end: a student's folder may be called --x */
            i++;
            break;
        }
        if (!strcmp(argv[i], "--root") && i + 1 < argc)
            root = argv[++i];
        else if (!strcmp(argv[i], "--need"))
            need = 1;
        else
            return usage_of_intake();
    }
    if (argc - i < 2)
        return usage_of_intake();
    handin = argv[i++];
    if (!strcmp(argv[i], "--hash"))
        hash_only = 1;
    else
        stage = argv[i];
    i++;
    const struct lesson *ls[MAX_LESSONS];
    int n = 0;
    for (; i < argc && n < MAX_LESSONS; i++)
        if (!(ls[n++] = lesson_arg(argv[i])))
            return 2;
    if (n == 0) /* no lesson named: every one */
        for (int k = 0; k < reg.count; k++)
            ls[n++] = &reg.lessons[k];
    static struct intake_file out[MAX_LESSONS];
    char hash[17];
    int rc = intake_handin(root ? root : handin, root ? handin : NULL, hash_only ? NULL : stage, ls, n, out, hash);
    int missing = 0;
    for (int k = 0; k < n; k++) {
        if (out[k].verdict == INTAKE_ABSENT && need)
            fprintf(stderr, "%s has no %s/%s.cu: nothing to grade for lesson %d.\n", handin, ls[k]->folder,
                    ls[k]->kernel, ls[k]->number);
        else if (out[k].verdict != INTAKE_COPIED && out[k].verdict != INTAKE_ABSENT &&
                 (k == 0 || strcmp(out[k].why, out[k - 1].why) != 0)) /* a whole hand-in's: said once */
            fprintf(stderr, "%s\n", out[k].why);
        missing += out[k].verdict != INTAKE_COPIED;
        intake_file_free(&out[k]);
    }
    if (rc)
        return rc;
    if (!need)
        printf("%s\n", hash);
    return need && missing ? 1 : 0;
}
