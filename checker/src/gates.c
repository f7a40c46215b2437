/* compute-sanitizer and Nsight Compute as gates (gates.h): finding them, running them, and
 * reading their logs. */
#define _GNU_SOURCE
#include "gates.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *find_tool(const char *env, const char *name, char *buf, size_t len)
{
    const char *given = getenv(env);
    if (given && *given) {
        snprintf(buf, len, "%s", given);
        return access(buf, X_OK) == 0 ? buf : NULL;
    }
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t n = strcspn(path, ":");
        snprintf(buf, len, "%.*s/%s", (int)n, path, name);
        if (n && access(buf, X_OK) == 0)
            return buf;
        path += n + (path[n] == ':');
    }
    return NULL;
}

static int exec_tool(void *arg)
{
    char *const *argv = arg;
    execv(argv[0], argv);
    perror(argv[0]);
    return 127;
}

void run_tool(char *const argv[], double timeout_s, struct isolate_result *r)
{
    run_isolated(exec_tool, (void *)argv, timeout_s, r);
}

int parse_buffers(const char *output, struct named_buffer *b, int max)
{
    int n = 0;
    for (const char *p = strstr(output, "wb-buffer "); p && n < max; p = strstr(p + 1, "wb-buffer ")) {
        if (sscanf(p, "wb-buffer %15s %llx %llu", b[n].name, &b[n].address, &b[n].bytes) == 3)
            n++;
    }
    return n;
}

/* "Address 0x... is out of bounds" is followed by "and is N bytes after|before the nearest
 * allocation at 0xA of size S bytes": the buffer at 0xA, said by name. */
static void name_allocation(const char *line, const struct named_buffer *b, int nb, char *out, size_t len)
{
    unsigned long long dist, at, size;
    char side[16];
    out[0] = '\0';
    const char *p = strstr(line, "and is ");
    if (!p || sscanf(p, "and is %llu bytes %15s the nearest allocation at %llx of size %llu", &dist, side, &at, &size) != 4)
        return;
    for (int i = 0; i < nb; i++)
        if (b[i].address == at) {
            if (strcmp(side, "after") == 0)
                snprintf(out, len, "  (that is %llu bytes, %llu floats, past the end of %s, %llu floats long)", dist,
                         dist / 4, b[i].name, b[i].bytes / 4);
            else
                snprintf(out, len, "  (that is %llu bytes, %llu floats, before the start of %s)", dist, dist / 4,
                         b[i].name);
            return;
        }
}

int sanitizer_digest(const char *log, const struct named_buffer *b, int nb, char *digest, size_t len)
{
    size_t used = 0;
    int errors = -1, shown = 0;
    digest[0] = '\0';
    for (const char *p = log; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), p);
        p = nl ? nl + 1 : NULL;
        const char *text = line;
        if (strncmp(text, "=========", 9) != 0)
            continue;
        text += 9;
        while (*text == ' ')
            text++;
        if (sscanf(text, "ERROR SUMMARY: %d error", &errors) == 1 || strncmp(text, "COMPUTE-SANITIZER", 17) == 0 ||
            strncmp(text, "RACECHECK SUMMARY", 17) == 0 || !*text)
            continue;
        /* Backtraces name the driver's and the checker's frames: not the student's business. */
        if (strstr(text, "Host Frame") || strstr(text, "Saved host backtrace") || strstr(text, "Device Frame"))
            continue;
        char named[200];
        name_allocation(text, b, nb, named, sizeof named);
        if (shown++ < 24 && used + strlen(text) + strlen(named) + 8 < len)
            used += (size_t)snprintf(digest + used, len - used, "    %s%s\n", text, named);
    }
    return errors;
}

const char NCU_METRICS[] =
    "smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,"
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,"
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,"
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";

#define CSV_MAX_FIELDS 1024 /* the raw page has a column for every device attribute too */

/* Splits one CSV line in place ("" inside a quoted field is a quote). Returns the number of fields. */
static int csv_split(char *line, char *field[], int max)
{
    int n = 0;
    char *p = line;
    while (*p && n < max) {
        if (*p == '"') {
            char *w = ++p;
            field[n++] = w;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"')
                    p++;
                *w++ = *p++;
            }
            if (*p)
                p++; /* the closing quote; w is at or before it */
            *w = '\0';
        } else {
            field[n++] = p;
            p += strcspn(p, ",");
        }
        if (*p != ',')
            break;
        *p++ = '\0';
    }
    return n;
}

/* A count as Nsight Compute prints it ("65536" or "65,536"); -1 if it is not one. */
static long long csv_count(const char *s)
{
    long long v = 0;
    int digits = 0;
    for (; *s; s++) {
        if (isdigit((unsigned char)*s))
            v = v * 10 + (*s - '0'), digits++;
        else if (*s != ',')
            return *s == '.' ? v : -1; /* "12.00": a count printed with decimals */
    }
    return digits ? v : -1;
}

int ncu_parse(const char *csv, struct mem_counts *student, struct mem_counts *baseline, char *why, size_t len)
{
    static const char *names[] = {
        "smsp__inst_executed_op_shared_ld.sum",      "smsp__inst_executed_op_shared_st.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"};
    enum { NMETRICS = sizeof names / sizeof names[0] };
    int column[NMETRICS], kernel_col = -1, found[2] = {0, 0};
    char *copy = strdup(csv), *save = NULL, *field[CSV_MAX_FIELDS];
    memset(student, 0, sizeof *student);
    memset(baseline, 0, sizeof *baseline);
    for (int m = 0; m < NMETRICS; m++)
        column[m] = -1;
    for (char *line = copy ? strtok_r(copy, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] != '"')
            continue; /* ==PROF== lines and anything else that is not CSV */
        int n = csv_split(line, field, CSV_MAX_FIELDS);
        if (kernel_col < 0) {
            for (int i = 0; i < n; i++) {
                if (strcmp(field[i], "Kernel Name") == 0)
                    kernel_col = i;
                for (int m = 0; m < NMETRICS; m++)
                    if (strcmp(field[i], names[m]) == 0)
                        column[m] = i;
            }
            continue;
        }
        if (kernel_col >= n)
            continue;
        int role = strstr(field[kernel_col], "student::") ? 0 : strstr(field[kernel_col], "baseline::") ? 1 : -1;
        if (role < 0)
            continue;
        long long v[NMETRICS];
        int complete = 1;
        for (int m = 0; m < NMETRICS; m++)
            complete &= column[m] >= 0 && column[m] < n && (v[m] = csv_count(field[column[m]])) >= 0;
        if (!complete)
            continue; /* the units row, or a row without numbers */
        struct mem_counts *c = role == 0 ? student : baseline;
        for (int o = 0; o < 2; o++) { /* SHARED_LD, SHARED_ST */
            c->op[o].requests = (uint64_t)v[o];
            c->op[o].wavefronts = (uint64_t)v[2 + o];
            c->op[o].ideal = v[2 + o] > v[4 + o] ? (uint64_t)(v[2 + o] - v[4 + o]) : 0;
        }
        for (int o = 0; o < 2; o++) { /* GLOBAL_LD, GLOBAL_ST */
            c->op[GLOBAL_LD + o].requests = (uint64_t)v[6 + 2 * o];
            c->op[GLOBAL_LD + o].wavefronts = c->op[GLOBAL_LD + o].ideal = (uint64_t)v[7 + 2 * o];
        }
        found[role] = 1;
    }
    free(copy);
    if (kernel_col < 0)
        snprintf(why, len, "Nsight Compute wrote no table of counters");
    else if (!found[0] || !found[1])
        snprintf(why, len, "Nsight Compute's table lacks %s", !found[0] ? "your kernel" : "the baseline");
    return kernel_col >= 0 && found[0] && found[1] ? 0 : -1;
}
