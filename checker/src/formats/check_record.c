/* The judge's record of one run (check_record.h): its points rules, and the file. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_record.h"

#define RECORD_MAGIC "wb-check-record 1"

static const char *const result_names[] = {"not-run", "passed", "failed", "skipped", "elsewhere"};
/* By enum case_kind (check.h), in its order. */
static const char *const kind_names[] = {"correct", "speed", "shared-bytes", "residues", "sanitizer", "profile"};
_Static_assert(sizeof kind_names / sizeof *kind_names == CASE_PROFILE + 1, "a name for every case kind");

const char *case_result_name(enum case_result r)
{
    return (unsigned)r < 5 ? result_names[r] : "?";
}

static int name_index(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

void record_score(struct check_record *r)
{
    int others_passed = 1, sanitizer_failed = 0;
    for (int i = 0; i < r->ncases; i++) {
        const struct case_record *c = &r->cases[i];
        if (c->kind != CASE_SPEED && c->result != RESULT_PASSED && c->result != RESULT_ELSEWHERE)
            others_passed = 0;
        if (c->kind == CASE_SANITIZER && c->result == RESULT_FAILED)
            sanitizer_failed = 1;
    }
    for (int i = 0; i < r->ncases; i++) {
        struct case_record *c = &r->cases[i];
        int earned = c->result == RESULT_PASSED && (c->kind != CASE_SPEED || others_passed) && !sanitizer_failed;
        c->points = earned ? c->max_points : 0;
    }
}

/* The cases' points added up: those earned, or (worth) those each case is worth. */
static int points_added(const struct check_record *r, int worth)
{
    int sum = 0;
    for (int i = 0; i < r->ncases; i++)
        sum += worth ? r->cases[i].max_points : r->cases[i].points;
    return sum;
}

int record_points(const struct check_record *r)
{
    return points_added(r, 0);
}

int record_max_points(const struct check_record *r)
{
    return points_added(r, 1);
}

int record_count(const struct check_record *r, enum case_result result)
{
    int n = 0;
    for (int i = 0; i < r->ncases; i++)
        n += r->cases[i].result == result;
    return n;
}

int record_passed(const struct check_record *r)
{
    return r->ncases > 0 && !r->partial && !r->no_gpu &&
           record_count(r, RESULT_PASSED) + record_count(r, RESULT_ELSEWHERE) == r->ncases;
}

/* Output text on one line: backslash, newline, carriage return and tab escaped. */
static void write_escaped(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default: fputc(*s, f);
        }
}

static char *unescape(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    if (!out)
        return NULL;
    for (; *s; s++) {
        if (*s != '\\' || !s[1]) {
            *o++ = *s;
            continue;
        }
        s++;
        *o++ = *s == 'n' ? '\n' : *s == 'r' ? '\r' : *s == 't' ? '\t' : *s;
    }
    *o = '\0';
    return out;
}

int record_write(const char *path, const struct check_record *r)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, RECORD_MAGIC "\nlesson %d\nno_gpu %d\nhung %d\npartial %d\nemulator %d\nspeed_ms %.6g\nspeedup %.6g\n"
               "solution_ms %.6g\nbaseline_ms %.6g\nlimit_share %.6g\npoints %d\nmax_points %d\npassed %d\n",
            r->lesson, r->no_gpu, r->hung, r->partial, r->emulator, r->speed_ms, r->speedup, r->solution_ms, r->baseline_ms, r->limit_share,
            record_points(r), record_max_points(r), record_passed(r));
    if (r->count_size[0])
        fprintf(f, "count_size %s\n", r->count_size);
    for (int i = 0; i < r->ncounts; i++)
        fprintf(f, "count %s %s %.17g\n", r->counts[i].role, r->counts[i].key, r->counts[i].value);
    for (int i = 0; i < r->ncases; i++) {
        const struct case_record *c = &r->cases[i];
        fprintf(f, "case %s %s %d %d %s\n", case_result_name(c->result), kind_names[c->kind], c->points,
                c->max_points, c->name);
        if (c->output) {
            fputs("output ", f);
            write_escaped(f, c->output);
            fputc('\n', f);
        }
    }
    return fclose(f) == 0 ? 0 : -1;
}

void record_add_count(struct check_record *r, const char *role, const char *key, double value)
{
    if (r->ncounts >= RECORD_MAX_COUNTS)
        return;
    struct record_count *c = &r->counts[r->ncounts++];
    snprintf(c->role, sizeof c->role, "%.11s", role);
    snprintf(c->key, sizeof c->key, "%.27s", key);
    c->value = value;
}

void record_free(struct check_record *r)
{
    for (int i = 0; i < r->ncases; i++) {
        free(r->cases[i].output);
        r->cases[i].output = NULL;
    }
}

int record_read(const char *path, struct check_record *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, bad = 0;
    while (!bad && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        char key[32], a[32], b[32];
        int n = 0, p, m;
        if (lineno == 1) {
            bad = strcmp(line, RECORD_MAGIC) != 0;
            continue;
        }
        if (sscanf(line, "%31s %n", key, &n) != 1) {
            bad = 1;
            break;
        }
        const char *rest = line + n;
        if (strcmp(key, "case") == 0) {
            struct case_record *c = &r->cases[r->ncases];
            int k = -1, res = -1;
            if (r->ncases >= RECORD_MAX_CASES || sscanf(rest, "%31s %31s %d %d %n", a, b, &p, &m, &n) != 4 ||
                (res = name_index(result_names, 5, a)) < 0 || (k = name_index(kind_names, (int)(sizeof kind_names / sizeof *kind_names), b)) < 0) {
                bad = 1;
                break;
            }
            *c = (struct case_record){.result = res, .kind = k, .points = p, .max_points = m};
            snprintf(c->name, sizeof c->name, "%s", rest + n);
            r->ncases++;
        } else if (strcmp(key, "output") == 0 && r->ncases > 0 && !r->cases[r->ncases - 1].output)
            r->cases[r->ncases - 1].output = unescape(line + strlen("output ")); /* its leading blanks kept */
        else if (strcmp(key, "count") == 0) {
            double v;
            if (r->ncounts >= RECORD_MAX_COUNTS || sscanf(rest, "%11s %27s %lf", a, b, &v) != 3) {
                bad = 1;
                break;
            }
            record_add_count(r, a, b, v);
        } else if (strcmp(key, "count_size") == 0)
            snprintf(r->count_size, sizeof r->count_size, "%s", rest);
        else if (strcmp(key, "lesson") == 0)
            r->lesson = atoi(rest);
        else if (strcmp(key, "no_gpu") == 0)
            r->no_gpu = atoi(rest);
        else if (strcmp(key, "hung") == 0)
            r->hung = atoi(rest);
        else if (strcmp(key, "partial") == 0)
            r->partial = atoi(rest);
        else if (strcmp(key, "emulator") == 0)
            r->emulator = atoi(rest);
        else if (strcmp(key, "speed_ms") == 0)
            r->speed_ms = strtod(rest, NULL);
        else if (strcmp(key, "speedup") == 0)
            r->speedup = strtod(rest, NULL);
        else if (strcmp(key, "solution_ms") == 0)
            r->solution_ms = strtod(rest, NULL);
        else if (strcmp(key, "baseline_ms") == 0)
            r->baseline_ms = strtod(rest, NULL);
        else if (strcmp(key, "limit_share") == 0)
            r->limit_share = strtod(rest, NULL);
        /* points, max_points, passed: written for scripts; recomputed from the cases here. */
    }
    free(line);
    fclose(f);
    if (bad || lineno == 0) {
        snprintf(err, errlen, "%s: not a check record (line %d)", path, lineno);
        record_free(r);
        return -1;
    }
    return 0;
}
