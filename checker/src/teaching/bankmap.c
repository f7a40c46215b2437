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
