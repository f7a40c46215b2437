/* What the commands share (commands.h): the registry, the student's record, paths and titles. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backup.h"
#include "hints.h"
#include "registry.h"
#include "state.h"
#include "textfile.h"

#include "commands.h"

struct registry reg;

int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int same_content(const char *a, const char *b)
{
    char *x = read_text_file(a), *y = read_text_file(b);
    int same = x && y && strcmp(x, y) == 0;
    free(x);
    free(y);
    return same;
}

const struct lesson *lesson_arg(const char *s)
{
    char *end;
    long n = strtol(s ? s : "", &end, 10);
    const struct lesson *l = (s && *s && !*end) ? registry_find(&reg, (int)n) : NULL;
    if (!l) {
        fprintf(stderr, "There is no lesson '%s': the lessons are ", s ? s : "");
        /* A handout's may skip some. */
        if (reg.lessons[reg.count - 1].number == reg.count)
            fprintf(stderr, "1 to %d", reg.count);
        else
            for (int i = 0; i < reg.count; i++)
                fprintf(stderr, "%s%d", i ? ", " : "", reg.lessons[i].number);
        fprintf(stderr, " (make lessonN picks one).\n");
    }
    return l;
}

void path_of(char *buf, size_t len, const char *top, const struct lesson *l)
{
    snprintf(buf, len, "%s/%s/%s.cu", top, l->folder, l->kernel);
}

const char *title_of(const struct lesson *l, char *buf, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "lessons/%s/README.md", l->folder);
    char *text = read_text_file(path);
    lesson_title(text ? text : "", buf, len);
    free(text);
    if (!buf[0])
        snprintf(buf, len, "Lesson %d", l->number);
    return buf;
}

static const char *state_path(void)
{
    const char *p = getenv("WB_STATE");
    return p && *p ? p : STATE_FILE;
}

void load_state(struct state *s)
{
    state_load(state_path(), s);
}

int save_state(const struct state *s)
{
    const char *path = state_path();
    if ((strcmp(path, STATE_FILE) == 0 && make_dirs(WORK) != 0) || state_save(path, s) != 0) {
        fprintf(stderr, "Cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}
