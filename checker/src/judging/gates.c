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

/* A tool gets its output and nothing else of the judge's: a lock a grading holds must not stay
 * held by a tool that outlives it (a bwrap killed with its judge left the class's build lock
 * held). What a watched run needs comes by files and FIFOs named in its environment. */
static int exec_tool(void *arg)
{
    char *const *argv = arg;
    isolate_close_from(3);
    execv(argv[0], argv);
    perror(argv[0]);
    return 127;
}

void run_tool(char *const argv[], double timeout_s, struct isolate_result *r)
{
    run_isolated(exec_tool, (void *)argv, timeout_s, r);
}

int tool_start(char *const argv[], struct isolate_child *c, struct isolate_result *r)
{
    return isolate_start(exec_tool, (void *)argv, c, r);
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

/* Drops the thousands separators the tools print ("29,400,065 bytes"). */
static void drop_separators(char *s)
{
    char *w = s;
    for (const char *r = s; *r; r++)
        if (!(*r == ',' && r > s && isdigit((unsigned char)r[-1]) && isdigit((unsigned char)r[1]) &&
              isdigit((unsigned char)r[2]) && isdigit((unsigned char)r[3]) && !isdigit((unsigned char)r[4])))
            *w++ = *r;
    *w = '\0';
}

/* "at student::kernel(const float *, ...)+0x330 in file.cu:73": the student needs file:line only. */
static void drop_function(char *s)
{
    char *at = strncmp(s, "at ", 3) == 0 ? s + 3 : strstr(s, " at ");
    if (at && at != s + 3)
        at += 4;
    char *in = at ? strstr(at, "+0x") : NULL;
    in = in ? strstr(in, " in ") : NULL;
    if (at && in)
        memmove(at, in + 4, strlen(in + 4) + 1);
}

/* "Access to 0xADDR is out of bounds" (or "Address 0xADDR ..."): said as a distance from the
 * nearest of the run's buffers, e.g. "(1 float past the end of A, which holds 10000)". */
static void name_access(const char *line, const struct named_buffer *b, int nb, char *out, size_t len)
{
    unsigned long long addr;
    const char *p = strstr(line, "0x");
    out[0] = '\0';
    if (!strstr(line, "is out of bounds") || !p || sscanf(p, "%llx", &addr) != 1)
        return;
    int best = -1;
    unsigned long long best_dist = 0;
    for (int i = 0; i < nb; i++) {
        unsigned long long end = b[i].address + b[i].bytes;
        unsigned long long d = addr >= end ? addr - end : b[i].address > addr ? b[i].address - addr : 0;
        if (best < 0 || d < best_dist)
            best = i, best_dist = d;
    }
    if (best < 0)
        return;
    const struct named_buffer *x = &b[best];
    if (addr >= x->address + x->bytes)
        snprintf(out, len, "  (%llu bytes, %llu floats, past the end of %s, which holds %llu floats)",
                 addr - (x->address + x->bytes), (addr - (x->address + x->bytes)) / 4, x->name, x->bytes / 4);
    else if (addr < x->address)
        snprintf(out, len, "  (%llu bytes, %llu floats, before the start of %s)", x->address - addr,
                 (x->address - addr) / 4, x->name);
}

/* "[15488 hazards]" at the end of a line: the count, with the line cut before it. */
static unsigned long long cut_hazards(char *s)
{
    char *open = strrchr(s, '[');
    unsigned long long n;
    if (!open || sscanf(open, "[%llu hazard", &n) != 1)
        return 0;
    while (open > s && open[-1] == ' ')
        open--;
    *open = '\0';
    return n;
}

int sanitizer_digest(const char *log, const struct named_buffer *b, int nb, char *digest, size_t len)
{
    size_t used = 0;
    int errors = -1, shown = 0;
    char pending[600] = ""; /* racecheck's lines differ only in code offsets: merged */
    unsigned long long hazards = 0;
    digest[0] = '\0';
    for (const char *p = log; p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[600];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), p);
        p = nl ? nl + 1 : NULL;
        int framed = strncmp(line, "=========", 9) == 0;
        char *text = line + (framed ? 9 : 0);
        while (*text == ' ')
            text++;
        drop_separators(text);
        int race_errors; /* "RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)" */
        const char *paren = strncmp(text, "RACECHECK SUMMARY", 17) == 0 ? strchr(text, '(') : NULL;
        if (framed && paren && sscanf(paren, "(%d error", &race_errors) == 1)
            errors = race_errors;
        int summary; /* the first ERROR SUMMARY; a second one counts the errors not printed */
        if (framed && sscanf(text, "ERROR SUMMARY: %d error", &summary) == 1 && errors < 0)
            errors = summary;
        int skip = !framed ||
                   strncmp(text, "COMPUTE-SANITIZER", 17) == 0 || strncmp(text, "RACECHECK SUMMARY", 17) == 0 ||
                   strncmp(text, "ERROR SUMMARY", 13) == 0 || strstr(text, "Host Frame") ||
                   strstr(text, "Saved host backtrace") || strstr(text, "Device Frame") ||
                   strstr(text, "Target application returned") ||
                   (nb > 0 && strstr(text, "the nearest allocation")); /* named by name_access instead */
        char current[600] = "";
        unsigned long long h = 0;
        if (!skip) {
            drop_function(text);
            h = cut_hazards(text);
            char named[200];
            name_access(text, b, nb, named, sizeof named);
            snprintf(current, sizeof current, "%s%s", text, named);
        }
        if (pending[0] && (strcmp(current, pending) != 0 || !p)) {
            if (shown++ < 24 && used + strlen(pending) + 40 < len) {
                if (hazards)
                    used += (size_t)snprintf(digest + used, len - used, "      %s [%llu hazards]\n", pending, hazards);
                else
                    used += (size_t)snprintf(digest + used, len - used, "      %s\n", pending);
            }
            pending[0] = '\0';
            hazards = 0;
        }
        if (current[0]) {
            snprintf(pending, sizeof pending, "%s", current);
            hazards += h;
        }
    }
    return errors;
}

const char NCU_METRICS[] =
    "smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,"
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,"
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,"
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,"
    /* cp.async (LDGSTS) writes shared memory outside the st counters above; its stores are
     * priced with them: its instructions, wavefronts, and the bytes it wrote, whose wavefronts
     * without conflicts are bytes / 128 (a warp's 4-, 8- or 16-byte lanes fill 1, 2 or 4). Its
     * own conflict counter is no measure of them: on the H200 lesson 10's copies with conflicts
     * (hgemm_async_store_conflicts) took 18432 wavefronts where 4096 would do, and it said 252.
     * Optional: a table without these columns reads them as 0. */
    "smsp__inst_executed_op_ldgsts.sum,sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,"
    "sm__sass_data_bytes_mem_shared_op_ldgsts.sum";

enum { NCU_REQUIRED = 10 }; /* NCU_METRICS' first ten; the rest, cp.async's, from compute capability 8.0 */

const char *ncu_metrics(int cc_major)
{
    static char older[sizeof NCU_METRICS];
    if (cc_major >= 8)
        return NCU_METRICS;
    if (!older[0]) { /* an ncu for a GPU without cp.async may not know its counters' names at all */
        const char *p = NCU_METRICS;
        for (int m = 0; m < NCU_REQUIRED; m++)
            p += strcspn(p, ",") + 1;
        snprintf(older, sizeof older, "%.*s", (int)(p - NCU_METRICS - 1), NCU_METRICS);
    }
    return older;
}

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

/* A metric's place in NCU_METRICS (the order ncu_parse reads them in), or -1. */
static int metric_index(const char *name)
{
    size_t n = strlen(name);
    int m = 0;
    for (const char *p = NCU_METRICS; *p; m++) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0)
            return m;
        p += len + (p[len] == ',');
    }
    return -1;
}

/* The counts of the kernels whose names contain name[0] and name[1] (NULL: none wanted), or
 * (name NULL) of the first n kernels in the table's order, into counts[0..n-1]. */
static int ncu_parse_table(const char *csv, const char *const *name, struct mem_counts *counts, int n_wanted,
                           char *why, size_t len)
{
    /* NCU_METRICS: shared ld/st instructions, wavefronts, conflicts; global ld, st (required);
     * cp.async's instructions, wavefronts, bytes (optional) */
    enum { NREQUIRED = NCU_REQUIRED, NMETRICS = 13 };
    int column[NMETRICS], kernel_col = -1, found = 0, got[2] = {0, 0};
    char *copy = strdup(csv), *save = NULL, *field[CSV_MAX_FIELDS];
    memset(counts, 0, (size_t)n_wanted * sizeof *counts);
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
                int m = metric_index(field[i]);
                if (m >= 0 && m < NMETRICS)
                    column[m] = i;
            }
            continue;
        }
        if (kernel_col >= n)
            continue;
        long long v[NMETRICS];
        int complete = 1;
        for (int m = 0; m < NMETRICS; m++) {
            int present = column[m] >= 0 && column[m] < n && (v[m] = csv_count(field[column[m]])) >= 0;
            if (!present)
                v[m] = 0;
            complete &= present || m >= NREQUIRED;
        }
        if (!complete)
            continue; /* the units row, or a row without numbers */
        int slot = found;
        if (name) {
            slot = strstr(field[kernel_col], name[0]) && !got[0] ? 0 : strstr(field[kernel_col], name[1]) && !got[1] ? 1 : -1;
            if (slot < 0)
                continue;
            got[slot] = 1;
        }
        if (slot >= n_wanted)
            continue;
        struct mem_counts *c = &counts[slot];
        for (int o = 0; o < 2; o++) { /* SHARED_LD, SHARED_ST */
            c->op[o].requests = (uint64_t)v[o];
            c->op[o].wavefronts = (uint64_t)v[2 + o];
            c->op[o].ideal = v[2 + o] > v[4 + o] ? (uint64_t)(v[2 + o] - v[4 + o]) : 0;
        }
        c->op[SHARED_ST].requests += (uint64_t)v[10];
        c->op[SHARED_ST].wavefronts += (uint64_t)v[11];
        /* (no bytes counted, from an ncu without the counter: no conflict claimed; a copy of a
         * few lanes still takes a wavefront: never fewer than the instructions) */
        uint64_t async_ideal = v[12] > 0 ? (uint64_t)(v[12] + 127) / 128 : (uint64_t)v[11];
        if (async_ideal < (uint64_t)v[10])
            async_ideal = (uint64_t)v[10];
        c->op[SHARED_ST].ideal += (uint64_t)v[11] < async_ideal ? (uint64_t)v[11] : async_ideal;
        for (int o = 0; o < 2; o++) { /* GLOBAL_LD, GLOBAL_ST */
            c->op[GLOBAL_LD + o].requests = (uint64_t)v[6 + 2 * o];
            c->op[GLOBAL_LD + o].wavefronts = c->op[GLOBAL_LD + o].ideal = (uint64_t)v[7 + 2 * o];
        }
        found++;
    }
    free(copy);
    int complete = name ? got[0] && got[1] : found >= n_wanted;
    if (kernel_col < 0)
        snprintf(why, len, "Nsight Compute wrote no table of counters");
    else if (name && !complete)
        snprintf(why, len, "Nsight Compute's table lacks %s", !got[0] ? "your kernel" : "the baseline");
    else if (!complete)
        snprintf(why, len, "Nsight Compute's table has %d of the %d launches", found, n_wanted);
    return kernel_col >= 0 && complete ? 0 : -1;
}

int ncu_parse(const char *csv, struct mem_counts *student, struct mem_counts *baseline, char *why, size_t len)
{
    static const char *const names[2] = {"student::", "baseline::"};
    struct mem_counts both[2];
    int rc = ncu_parse_table(csv, names, both, 2, why, len);
    *student = both[0], *baseline = both[1];
    return rc;
}

int ncu_parse_rows(const char *csv, struct mem_counts *counts, int n, char *why, size_t len)
{
    return ncu_parse_table(csv, NULL, counts, n, why, len);
}
