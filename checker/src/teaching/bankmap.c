#include "bankmap.h"

#include <string.h>

#include "bank_model.h"

static const char *const names[] = {"32x32", "32x33", "xor"};
static const char *const declarations[] = {"float tile[32][32]", "float tile[32][33]",
                                           "float tile[32][32], column swizzled: col ^ (row &amp; 31)"}; /* XML-escaped */

int bank_layout_named(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

int bank_layout_word(enum bank_layout layout, int row, int col)
{
    switch (layout) {
    case LAYOUT_PADDED:
        return row * 33 + col;
    case LAYOUT_SWIZZLED:
        return row * 32 + (col ^ (row & 31));
    default:
        return row * 32 + col;
    }
}

#define CELL 14
#define LEFT 70
#define TOP 64

/* The picture's frame: its size and title, a white ground, the heading's two lines and the bank
 * axis. */
static void svg_head(FILE *out, int width, int height, const char *title, const char *heading, const char *line)
{
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                 "font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n", width, height, width, height);
    fprintf(out, "<title>%s</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", title);
    fprintf(out, "<text x=\"%d\" y=\"18\" font-size=\"13\" font-weight=\"bold\">%s</text>\n", LEFT, heading);
    fprintf(out, "<text x=\"%d\" y=\"36\">%s</text>\n", LEFT, line);
    fprintf(out, "<text x=\"%d\" y=\"%d\">bank 0</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">bank 31</text>\n",
            LEFT, TOP - 8, LEFT + 32 * CELL, TOP - 8);
}

/* A row of 32 grey bank cells, height h, at y. */
static void svg_bank_row(FILE *out, int y, int h)
{
    for (int b = 0; b < 32; b++)
        fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\" stroke=\"#ddd\"/>\n",
                LEFT + b * CELL, y, CELL, h);
}

/* Under the rows: how many accesses each bank took (`what`: "words", "rows"), and the verdict. */
static void svg_foot(FILE *out, int y, const char *what, const int per_bank[32], uint64_t wavefronts,
                     const char *no_conflict)
{
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", LEFT - 6, y, what);
    for (int b = 0; b < 32; b++)
        if (per_bank[b])
            fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", LEFT + b * CELL + CELL / 2, y,
                    per_bank[b]);
    if (wavefronts == 1)
        fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"13\">1 wavefront: %s, no conflict</text>\n", LEFT, y + 26,
                no_conflict);
    else
        fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"13\">%llu wavefronts: %s %llu-way bank conflict</text>\n",
                LEFT, y + 26, (unsigned long long)wavefronts,
                wavefronts == 8 || wavefronts == 11 || wavefronts == 18 ? "an" : "a", /* said with a vowel */
                (unsigned long long)wavefronts);
    fprintf(out, "</svg>\n");
}

void bankmap_svg(FILE *out, enum bank_layout layout, int col)
{
    struct emu_lane_access lanes[32];
    int bank_words[32] = {0};
    for (int t = 0; t < 32; t++) {
        int word = bank_layout_word(layout, t, col);
        lanes[t] = (struct emu_lane_access){(uintptr_t)word * 4, 4, t};
        bank_words[word % 32]++; /* the words are distinct: one per row */
    }
    struct op_counts c = {0};
    emu_price(lanes, 32, SHARED_LD, &c);

    char title[200], line[100];
    snprintf(title, sizeof title, "Banks hit when a warp reads column %d of %s: %llu wavefront%s", col,
             declarations[layout], (unsigned long long)c.wavefronts, c.wavefronts == 1 ? "" : "s");
    snprintf(line, sizeof line, "a warp reads column %d: thread i reads tile[i][%d]", col, col);
    svg_head(out, LEFT + 32 * CELL + 20, TOP + 32 * CELL + 70, title, declarations[layout], line);
    for (int t = 0; t < 32; t++) {
        int y = TOP + t * CELL;
        if (t % 4 == 0)
            fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">thread %d</text>\n", LEFT - 6, y + CELL - 3, t);
        svg_bank_row(out, y, CELL);
        int bank = bank_layout_word(layout, t, col) % 32;
        fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", LEFT + bank * CELL + 1,
                y + 1, CELL - 2, CELL - 2, bank_words[bank] > 1 ? "#d62728" : "#2ca02c");
    }
    svg_foot(out, TOP + 32 * CELL + 18, "words", bank_words, c.wavefronts, "every thread in its own bank");
}

/* One phase of ldmatrix on lesson 10's tile of 128-byte rows (64 halves): lanes 0-7 give rows 0-7
 * at 16-byte chunk `chunk`; stored plainly, or at chunk ^ row (the swizzle). */
static int ldsm_byte(int swizzled, int row, int chunk)
{
    return row * 128 + (swizzled ? chunk ^ (row & 7) : chunk) * 16;
}

void bankmap_ldmatrix_svg(FILE *out, int swizzled, int chunk)
{
    struct emu_lane_access lanes[8];
    int bank_rows[32] = {0};
    for (int r = 0; r < 8; r++) {
        lanes[r] = (struct emu_lane_access){(uintptr_t)ldsm_byte(swizzled, r, chunk), 16, r};
        for (int w = 0; w < 4; w++)
            bank_rows[(ldsm_byte(swizzled, r, chunk) / 4 + w) % 32]++;
    }
    struct op_counts c = {0};
    emu_price(lanes, 8, SHARED_LD, &c);

    const char *decl = swizzled ? "unsigned short As[128][64], chunk c of row r stored at c ^ (r % 8)"
                                : "unsigned short As[128][64], 128-byte rows, chunks where they are";
    char title[200], line[120];
    snprintf(title, sizeof title, "Banks hit by one ldmatrix phase (rows 0-7, chunk %d) of %s: %llu wavefront%s",
             chunk, decl, (unsigned long long)c.wavefronts, c.wavefronts == 1 ? "" : "s");
    snprintf(line, sizeof line, "one ldmatrix phase: lane r (0-7) gives row r, halves %d-%d (chunk %d): 16 bytes, "
             "4 banks", 8 * chunk, 8 * chunk + 7, chunk);
    int big = 2 * CELL;
    svg_head(out, LEFT + 32 * CELL + 20, TOP + 8 * big + 70, title, decl, line);
    for (int r = 0; r < 8; r++) {
        int y = TOP + r * big, first = ldsm_byte(swizzled, r, chunk) / 4 % 32;
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">row %d</text>\n", LEFT - 6, y + big - 8, r);
        svg_bank_row(out, y, big);
        fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", LEFT + first * CELL + 1,
                y + 1, 4 * CELL - 2, big - 2, bank_rows[first] > 1 ? "#d62728" : "#2ca02c");
    }
    svg_foot(out, TOP + 8 * big + 18, "rows", bank_rows, c.wavefronts, "the 8 rows cover the 32 banks once");
}

/* ---- the map of one request of the student's own kernel ---- */

/* A recorded request made ready to draw: the lanes that can be read (a lane number 0-31, a size
 * of 1, 2, 4, 8 or 16 bytes, inside 256 KiB), priced by the bank model from their offsets, and the
 * distinct words each bank is asked for in each phase. The offsets are from the start of the
 * block's shared memory, where bank 0 starts, so the banks drawn are the model's. */
#define MAX_PHASES 4
#define MAX_SHARED_OFFSET (256u * 1024)
struct request_map {
    int n, atomic;
    struct emu_lane_access lanes[REQUEST_LANES]; /* addr: the offset */
    long base;                                   /* where the words are numbered from */
    int whole;                                   /* ... the start of shared memory: lanes in two arrays */
    int phase, nphases;                          /* lanes per phase, phases with a lane */
    int first_lane[MAX_PHASES];                  /* the first lane of each of those phases */
    int depth[MAX_PHASES][32];                   /* words asked of each bank in each phase */
    int wavefronts_of[MAX_PHASES];
    uint64_t wavefronts, ideal;
    int degree, worst; /* the most words one bank is asked for in one phase; the first phase of that */
};

/* The word of a lane's bytes that falls in bank b, numbered from where the words are; -1 if none. */
static long word_in_bank(const struct request_map *m, const struct emu_lane_access *a, int b)
{
    for (uintptr_t u = a->addr / 4; u <= (a->addr + a->size - 1) / 4; u++)
        if ((int)(u % 32) == b)
            return (long)u - m->base / 4; /* (never negative: base lies at or before every lane) */
    return -1;
}

static int request_map(const struct shared_request *r, enum mem_op op, struct request_map *m)
{
    memset(m, 0, sizeof *m);
    int n = r->nlanes < REQUEST_LANES ? r->nlanes : REQUEST_LANES;
    uint32_t seen = 0;
    for (int i = 0; i < n; i++) {
        unsigned size = r->lanes[i].size, lane = r->lanes[i].lane;
        if (lane >= 32 || !(size == 1 || size == 2 || size == 4 || size == 8 || size == 16) ||
            r->lanes[i].offset >= MAX_SHARED_OFFSET || (seen >> lane & 1))
            continue; /* not a lane of a warp's request: left out */
        seen |= 1u << lane;
        m->lanes[m->n++] = (struct emu_lane_access){r->lanes[i].offset, size, (int)lane};
    }
    if (m->n == 0)
        return 0;
    m->atomic = r->atomic != 0;
    /* Words from the start of the first lane's array; from the start of shared memory where a lane
     * lies before it (lanes in two arrays: one request through a pointer that can point at either). */
    m->base = r->base <= m->lanes[0].addr ? (long)r->base / 4 * 4 : (long)m->lanes[0].addr / 4 * 4;
    for (int i = 0; i < m->n; i++)
        if ((long)m->lanes[i].addr < m->base)
            m->base = 0, m->whole = 1;
    /* Priced as the tracer prices it: a shared atomic's lanes 128 bytes apart, so that lanes on one
     * word queue up rather than share it. */
    struct emu_lane_access priced[REQUEST_LANES];
    for (int i = 0; i < m->n; i++) {
        priced[i] = m->lanes[i];
        if (m->atomic)
            priced[i].addr += (uintptr_t)priced[i].lane * 128;
    }
    struct op_counts c = {0};
    emu_price(priced, m->n, op, &c);
    m->wavefronts = c.wavefronts, m->ideal = c.ideal;
    m->phase = emu_phase_lanes(priced, m->n, op);
    for (int from = 0; from < 32 && m->nphases < MAX_PHASES; from += m->phase) {
        uintptr_t words[REQUEST_LANES * 4];
        int nw = 0, any = 0, p = m->nphases;
        for (int i = 0; i < m->n; i++) {
            const struct emu_lane_access *a = &priced[i];
            if (a->lane < from || a->lane >= from + m->phase)
                continue;
            any = 1;
            for (uintptr_t u = a->addr / 4; u <= (a->addr + a->size - 1) / 4; u++) {
                int k = 0;
                while (k < nw && words[k] != u)
                    k++;
                if (k == nw) {
                    words[nw++] = u;
                    m->depth[p][u % 32]++;
                }
            }
        }
        if (!any)
            continue;
        m->first_lane[p] = from;
        for (int b = 0; b < 32; b++)
            if (m->depth[p][b] > m->wavefronts_of[p])
                m->wavefronts_of[p] = m->depth[p][b];
        if (m->wavefronts_of[p] > m->degree)
            m->degree = m->wavefronts_of[p], m->worst = p;
        m->nphases++;
    }
    return 1;
}

/* The array's name as the line table gives it, "file.cu:69:9 (tile)", or NULL. */
static const char *array_name(const char *where, char *buf, size_t len)
{
    size_t n = strlen(where);
    const char *open = strrchr(where, '(');
    if (n < 3 || where[n - 1] != ')' || !open || open == where || open[-1] != ' ' || (size_t)(where + n - 1 - open) >= len)
        return NULL;
    snprintf(buf, len, "%.*s", (int)(where + n - 1 - open - 1), open + 1);
    return buf;
}

/* Text wrapped at WIDTH columns: its first word after the `col` columns already written on the
 * line, the lines after it indented by `indent`. Words are never split. */
#define WIDTH 100
static void wrapped(FILE *out, int col, int indent, const char *text)
{
    int fresh = 1; /* nothing of the text on this line yet */
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        size_t w = strcspn(p, " ");
        if (!w)
            break;
        if (!fresh && col + 1 + (int)w > WIDTH) {
            fprintf(out, "\n%*s", indent, "");
            col = indent, fresh = 1;
        }
        col += fresh ? 0 : fprintf(out, " ");
        col += fprintf(out, "%.*s", (int)w, p);
        fresh = 0;
        p += w;
    }
    fprintf(out, "\n");
}

/* "0-3", "5", "0,2": a phase's lanes that ask for one word, as few characters as they take. */
static void lane_list(char *buf, size_t len, const int *lanes, int n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len;) {
        int j = i;
        while (j + 1 < n && lanes[j + 1] == lanes[j] + 1)
            j++;
        int k = j - i >= 2 ? snprintf(buf + used, len - used, "%s%d-%d", i ? "," : "", lanes[i], lanes[j])
                           : snprintf(buf + used, len - used, "%s%d", i ? "," : "", lanes[i]);
        used += k > 0 ? (size_t)k : 0;
        i = j - i >= 2 ? j + 1 : i + 1;
    }
}

/* Bank b of phase p: "lane:word" for each word asked of it, in the order of the lanes (lanes that
 * share a word: "0-15:7"; an atomic's lanes each on their own). */
static void bank_entries(const struct request_map *m, int p, int b, char *buf, size_t len)
{
    size_t used = 0;
    int done[REQUEST_LANES] = {0};
    buf[0] = '\0';
    for (int i = 0; i < m->n; i++) {
        const struct emu_lane_access *a = &m->lanes[i];
        long w = word_in_bank(m, a, b);
        if (done[i] || w < 0 || a->lane < m->first_lane[p] ||
            a->lane >= m->first_lane[p] + m->phase)
            continue;
        int lanes[REQUEST_LANES], nl = 0;
        for (int j = i; j < m->n; j++) {
            const struct emu_lane_access *o = &m->lanes[j];
            if (!done[j] && o->lane >= m->first_lane[p] && o->lane < m->first_lane[p] + m->phase &&
                word_in_bank(m, o, b) == w && (j == i || !m->atomic)) {
                done[j] = 1;
                lanes[nl++] = o->lane;
            }
        }
        /* (lanes in the request's order: the scheduler gives them in rising order) */
        char list[160];
        lane_list(list, sizeof list, lanes, nl);
        int k = snprintf(buf + used, len > used ? len - used : 0, "%s%s:%ld", used ? " " : "", list, w);
        used += k > 0 ? (size_t)k : 0;
    }
}

static const char *const op_words[2] = {"shared loads", "shared stores"};

int bankmap_request_text(FILE *out, const struct shared_request *r, enum mem_op op, const char *where)
{
    struct request_map m;
    if ((op != SHARED_LD && op != SHARED_ST) || !request_map(r, op, &m) || m.wavefronts <= m.ideal)
        return 0;
    char name[64], head[600];
    const char *array = m.whole ? "the block's shared memory" : array_name(where, name, sizeof name);
    int width = 0;
    for (int i = 0; i < m.n; i++)
        width = (int)m.lanes[i].size > width ? (int)m.lanes[i].size : width;
    char how[300];
    if (m.phase < 32)
        snprintf(how, sizeof how, "Each lane %s %d bytes, so the banks serve %d lanes at a time, each group at least "
                 "one wavefront.", op == SHARED_ST ? "writes" : "reads", width, m.phase);
    else
        how[0] = '\0';
    snprintf(head, sizeof head, "Bank map of the worst shared-%s request at %s: %d-way, %llu wavefronts where %llu "
             "would do.", op == SHARED_ST ? "store" : "load", where, m.degree, (unsigned long long)m.wavefronts,
             (unsigned long long)m.ideal);
    fprintf(out, "  ");
    wrapped(out, 2, 4, head);
    snprintf(head, sizeof head, "%s%sA bank gives one 4-byte word a wavefront%s; the words each bank is asked for (\".\": none, \"+\": "
             "10 or more):",
             how, *how ? " " : "", m.atomic ? " (these are atomics: lanes on one word take a wavefront each)"
                      : " (lanes that want the same word share it)");
    fprintf(out, "    ");
    wrapped(out, 4, 4, head);
    fprintf(out, "%18s0       8       16      24     31\n", "bank ");
    for (int p = 0; p < m.nphases; p++) {
        char label[32], strip[33];
        snprintf(label, sizeof label, "lanes %d-%d", m.first_lane[p], m.first_lane[p] + m.phase - 1);
        for (int b = 0; b < 32; b++) {
            int d = m.depth[p][b];
            strip[b] = d == 0 ? '.' : d < 10 ? (char)('0' + d) : '+';
        }
        strip[32] = '\0';
        fprintf(out, "      %-12s%s\n", label, strip);
    }
    /* The collisions of the worst phase, bank by bank (the SVG has every phase). */
    int shown = 0, more = 0;
    for (int b = 0; b < 32; b++) {
        int d = m.depth[m.worst][b];
        if (d < 2)
            continue;
        if (shown == 8) {
            more++;
            continue;
        }
        char entries[1200], line[1400];
        bank_entries(&m, m.worst, b, entries, sizeof entries);
        if (shown++ == 0)
            snprintf(line, sizeof line, "bank %d, %d %s, as lane:word (word w of %s: its bytes 4w to 4w+3): %s", b, d, m.atomic ? "accesses" : "words", array ? array : "the array",
                     entries);
        else
            snprintf(line, sizeof line, "bank %d, %d %s: %s", b, d, m.atomic ? "accesses" : "words", entries);
        if (shown == 1 && m.nphases > 1)
            fprintf(out, "    In lanes %d-%d:\n", m.first_lane[m.worst], m.first_lane[m.worst] + m.phase - 1);
        fprintf(out, "    ");
        wrapped(out, 4, 6, line);
    }
    if (more)
        fprintf(out, "    ... and %d more bank%s of more than one word.\n", more, more == 1 ? "" : "s");
    return 1;
}

/* Text in an SVG: &, < and > escaped (a file's name is the student's). */
static void xml_text(FILE *out, const char *s)
{
    for (; *s; s++)
        fputs(*s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '"' ? "&quot;" : (char[2]){*s, 0},
              out);
}

#define WIDE 24 /* a bank's column: wide enough for a word's number */

int bankmap_request_svg(FILE *out, const struct shared_request *r, enum mem_op op, const char *where)
{
    struct request_map m;
    if ((op != SHARED_LD && op != SHARED_ST) || !request_map(r, op, &m) || m.wavefronts <= m.ideal)
        return 0;
    char name[64];
    const char *array = m.whole ? "the block's shared memory" : array_name(where, name, sizeof name);
    int rows = 0;
    for (int p = 0; p < m.nphases; p++)
        for (int i = 0; i < m.n; i++)
            rows += m.lanes[i].lane >= m.first_lane[p] && m.lanes[i].lane < m.first_lane[p] + m.phase;
    int left = 80, top = 80, width = left + 32 * WIDE + 20, height = top + rows * CELL + m.nphases * (2 * CELL + 6) + 40;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                 "font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n", width, height, width, height);
    fprintf(out, "<title>Bank map of the worst request of ");
    xml_text(out, where);
    fprintf(out, ", %s: %d-way, %llu wavefronts where %llu would do</title>\n", op_words[op], m.degree,
            (unsigned long long)m.wavefronts, (unsigned long long)m.ideal);
    fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(out, "<text x=\"%d\" y=\"18\" font-size=\"13\" font-weight=\"bold\">", left);
    xml_text(out, where);
    fprintf(out, ", %s: the worst request</text>\n", op_words[op]);
    fprintf(out, "<text x=\"%d\" y=\"34\">each row a lane, each column a bank: in a cell, the word of ", left);
    xml_text(out, array ? array : "the array");
    fprintf(out, " (4 bytes, numbered from its start)</text>\n<text x=\"%d\" y=\"48\">that the lane asks of that "
                 "bank; red: a bank asked for more than one word by %s</text>\n",
            left, m.nphases > 1 ? "its group of lanes" : "the warp");
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">bank</text>\n", left - 6, top - 8);
    for (int b = 0; b < 32; b++)
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"9\">%d</text>\n",
                left + b * WIDE + WIDE / 2, top - 8, b);
    int y = top;
    for (int p = 0; p < m.nphases; p++) {
        int lanes = 0;
        for (int i = 0; i < m.n; i++)
            lanes += m.lanes[i].lane >= m.first_lane[p] && m.lanes[i].lane < m.first_lane[p] + m.phase;
        for (int b = 0; b < 32; b++) /* the banks, a column each, and a line under each lane's row */
            fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\" stroke=\"#ddd\"/>\n",
                    left + b * WIDE, y, WIDE, lanes * CELL);
        for (int k = 1; k < lanes; k++)
            fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n", left, y + k * CELL,
                    left + 32 * WIDE, y + k * CELL);
        for (int i = 0; i < m.n; i++) {
            const struct emu_lane_access *a = &m.lanes[i];
            if (a->lane < m.first_lane[p] || a->lane >= m.first_lane[p] + m.phase)
                continue;
            fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"9\">lane %d</text>\n", left - 6,
                    y + CELL - 3, a->lane);
            for (int b = 0; b < 32; b++) {
                long w = word_in_bank(&m, a, b);
                if (w < 0)
                    continue;
                fprintf(out, "<g><title>lane %d asks for word %ld of ", a->lane, w);
                xml_text(out, array ? array : "the array");
                fprintf(out, ", in bank %d</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>"
                             "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"8\" fill=\"white\">%ld</text></g>\n",
                        b, left + b * WIDE + 1, y + 1, WIDE - 2, CELL - 2, m.depth[p][b] > 1 ? "#d62728" : "#2ca02c",
                        left + b * WIDE + WIDE / 2, y + CELL - 4, w);
            }
            y += CELL;
        }
        /* Under each phase: the words each bank was asked for in it, and what the phase cost. */
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"9\">words</text>\n", left - 6, y + CELL - 3);
        for (int b = 0; b < 32; b++)
            if (m.depth[p][b])
                fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"9\"%s>%d</text>\n",
                        left + b * WIDE + WIDE / 2, y + CELL - 3, m.depth[p][b] > 1 ? " font-weight=\"bold\"" : "",
                        m.depth[p][b]);
        if (m.nphases > 1)
            fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"9\">lanes %d-%d: %d wavefront%s</text>\n", left,
                    y + 2 * CELL - 2, m.first_lane[p], m.first_lane[p] + m.phase - 1, m.wavefronts_of[p],
                    m.wavefronts_of[p] == 1 ? "" : "s");
        y += CELL + 10 + (m.nphases > 1 ? CELL - 4 : 0);
    }
    fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"13\">%d-way: %llu wavefronts where %llu would do%s</text>\n",
            left, y + 16, m.degree, (unsigned long long)m.wavefronts, (unsigned long long)m.ideal,
            m.atomic ? " (atomics: lanes on one word take a wavefront each)" : "");
    fprintf(out, "</svg>\n");
    return 1;
}
