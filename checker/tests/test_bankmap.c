/* Unit tests for the bank map of a request of the student's own kernel (checker/src/teaching/
 * bankmap.c): the exact text for a tile's column read; broadcasts, 8- and 16-byte accesses served
 * in phases and atomics drawn as the bank model counts them (each map's wavefronts are its phases'
 * deepest banks, added up: emu_price's); no map for a request without a conflict; and requests no
 * runner should send (lanes past 31, odd sizes, too many lanes, offsets past shared memory), drawn
 * from what can be read or not at all, never a crash. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bank_model.h"
#include "bankmap.h"
#include "rng.h"
#include "text.h"
#include "unit.h"

/* A request of n lanes, lane i at byte offset[i] of shared memory, size bytes each, priced as the
 * tracer prices it (emulator: emu_trace_price). */
static struct shared_request request(int n, const uint32_t *offset, int size, enum mem_op op, int atomic)
{
    struct shared_request r = {0};
    struct emu_lane_access lanes[REQUEST_LANES];
    r.nlanes = (uint8_t)n;
    r.atomic = (uint8_t)atomic;
    for (int i = 0; i < n; i++) {
        r.lanes[i].offset = offset[i], r.lanes[i].size = (uint8_t)size, r.lanes[i].lane = (uint8_t)i;
        lanes[i] = (struct emu_lane_access){offset[i] + (atomic ? (uintptr_t)i * 128 : 0), (uint32_t)size, i};
    }
    struct op_counts c = {0};
    emu_price(lanes, n, op, &c);
    r.wavefronts = (uint32_t)c.wavefronts, r.ideal = (uint32_t)c.ideal;
    return r;
}

/* The map's text, or NULL where it draws none. */
static char *map_text(const struct shared_request *r, enum mem_op op, const char *where)
{
    struct capture c;
    FILE *f = capture_start(&c);
    int drawn = bankmap_request_text(f, r, op, where);
    char *text = capture_text(&c);
    if (!drawn) {
        assert_string_equal(text, "");
        free(text);
        return NULL;
    }
    return text;
}

/* The text with its lines joined (each line break and the indent after it one space): for phrases
 * wherever the wrapping puts them. */
static char *flat(const char *text)
{
    char *out = malloc(strlen(text) + 1), *o = out;
    for (const char *p = text; *p; p++)
        if (*p == '\n') {
            while (p[1] == ' ')
                p++;
            *o++ = ' ';
        } else
            *o++ = *p;
    *o = '\0';
    return out;
}

/* assert_contains on the joined text. */
static void assert_says(const char *text, const char *phrase)
{
    char *joined = flat(text);
    assert_contains(joined, phrase);
    free(joined);
}

/* A read down a column of tile[32][32]: lane i wants word 32 i, all in bank 0. */
static struct shared_request column_read(void)
{
    uint32_t off[32];
    for (int i = 0; i < 32; i++)
        off[i] = 128u * (uint32_t)i;
    return request(32, off, 4, SHARED_LD, 0);
}

/* Lesson 3's column read: its text to the character. */
static void column_of_a_tile(void **state)
{
    (void)state;
    uint32_t off[32];
    struct shared_request r = column_read();
    char *text = map_text(&r, SHARED_LD, "work/03_bank_conflicts/transpose_shared.cu:71:9 (tile)");
    assert_string_equal(text,
        "  Bank map of the worst shared-load request at work/03_bank_conflicts/transpose_shared.cu:71:9\n"
        "    (tile): 32-way, 32 wavefronts where 1 would do.\n"
        "    A bank gives one 4-byte word a wavefront (lanes that want the same word share it); the words\n"
        "    each bank is asked for (\".\": none, \"+\": 10 or more):\n"
        "             bank 0       8       16      24     31\n"
        "      lanes 0-31  +...............................\n"
        "    bank 0, 32 words, as lane:word (word w of tile: its bytes 4w to 4w+3): 0:0 1:32 2:64 3:96 4:128\n"
        "      5:160 6:192 7:224 8:256 9:288 10:320 11:352 12:384 13:416 14:448 15:480 16:512 17:544 18:576\n"
        "      19:608 20:640 21:672 22:704 23:736 24:768 25:800 26:832 27:864 28:896 29:928 30:960 31:992\n");
    free(text);

    /* The padded tile's column ([32][33]): 32 banks, no map. */
    for (int i = 0; i < 32; i++)
        off[i] = 132u * (uint32_t)i;
    r = request(32, off, 4, SHARED_LD, 0);
    assert_null(map_text(&r, SHARED_LD, "padded.cu:60:9 (tile)"));
}

/* Words numbered from the array's start (the second array of a kernel), a store, and lanes that
 * share a word listed together: half a warp on each of two words of bank 0 is 2-way. */
static void broadcasts_and_arrays(void **state)
{
    (void)state;
    uint32_t off[32];
    for (int i = 0; i < 32; i++)
        off[i] = 4096 + (i < 16 ? 0 : 128);
    struct shared_request r = request(32, off, 4, SHARED_LD, 0);
    r.base = 4096;
    char *text = map_text(&r, SHARED_LD, "k.cu:9:5 (Bs)");
    assert_says(text, "shared-load request at k.cu:9:5 (Bs): 2-way, 2 wavefronts where 1 would do.");
    assert_contains(text, "lanes 0-31  2...............................\n");
    assert_contains(text, "bank 0, 2 words, as lane:word (word w of Bs: its bytes 4w to 4w+3): 0-15:0 16-31:32\n");
    free(text);

    /* Every lane on one word: a broadcast, no conflict, no map; lanes 0, 2 and 5 on word 0 and the
     * others on word 32, as stores: listed as they come. */
    for (int i = 0; i < 32; i++)
        off[i] = 0;
    r = request(32, off, 4, SHARED_LD, 0);
    assert_null(map_text(&r, SHARED_LD, "k.cu:1:1 (s)"));
    for (int i = 0; i < 32; i++)
        off[i] = i == 0 || i == 2 || i == 5 ? 0 : 128;
    r = request(32, off, 4, SHARED_ST, 0);
    text = map_text(&r, SHARED_ST, "k.cu:2:1 (s)");
    assert_contains(text, "Bank map of the worst shared-store request at k.cu:2:1 (s): 2-way");
    assert_contains(text, "(word w of s: its bytes 4w to 4w+3): 0,2,5:0 1,3,4,6-31:32\n");
    free(text);
}

/* Lesson 10's ldmatrix on 128-byte rows (one 16-byte row per lane, 8 lanes a phase): each phase's
 * eight rows in the same four banks, 8-way, 32 wavefronts where 4 would do; and 8-byte loads down
 * a column of a 32-float tile: two phases of 16 lanes, 16-way. */
static void wide_accesses_in_phases(void **state)
{
    (void)state;
    uint32_t off[32];
    for (int i = 0; i < 32; i++)
        off[i] = 128u * (uint32_t)(i % 8) + 1024u * (uint32_t)(i / 8 % 2) + 16u * (uint32_t)(i / 16);
    struct shared_request r = request(32, off, 16, SHARED_LD, 0);
    char *text = map_text(&r, SHARED_LD, "hgemm.cu:95:25 (As)");
    assert_says(text, "(As): 8-way, 32 wavefronts where 4 would do. Each lane reads 16 bytes, so the banks serve 8 "
                      "lanes at a time, each group at least one wavefront.");
    assert_contains(text, "      lanes 0-7   8888............................\n"
                          "      lanes 8-15  8888............................\n"
                          "      lanes 16-23 ....8888........................\n"
                          "      lanes 24-31 ....8888........................\n"
                          "    In lanes 0-7:\n"
                          "    bank 0, 8 words, as lane:word (word w of As: its bytes 4w to 4w+3): 0:0 1:32 2:64 3:96 4:128\n"
                          "      5:160 6:192 7:224\n"
                          "    bank 1, 8 words: 0:1 1:33 2:65 3:97 4:129 5:161 6:193 7:225\n");
    free(text);

    for (int i = 0; i < 32; i++)
        off[i] = 128u * (uint32_t)i;
    r = request(32, off, 8, SHARED_ST, 0);
    text = map_text(&r, SHARED_ST, "t.cu:5:1 (tile)");
    assert_says(text, "(tile): 16-way, 32 wavefronts where 2 would do. Each lane writes 8 bytes");
    assert_contains(text, "      lanes 0-15  ++..............................\n"
                          "      lanes 16-31 ++..............................\n");
    free(text);
}

/* An atomic's lanes on one word queue up: 32 lanes adding into word 3 are 32-way, each listed. */
static void atomics_queue_up(void **state)
{
    (void)state;
    uint32_t off[32];
    for (int i = 0; i < 32; i++)
        off[i] = 12;
    struct shared_request r = request(32, off, 4, SHARED_ST, 1);
    r.atomic = 1;
    char *text = map_text(&r, SHARED_ST, "r.cu:40:9 (count)");
    assert_says(text, "(count): 32-way, 32 wavefronts where 1 would do.");
    assert_says(text, "(these are atomics: lanes on one word take a wavefront each)");
    assert_says(text, "lanes 0-31  ...+....");
    assert_says(text, "bank 3, 32 accesses, as lane:word (word w of count: its bytes 4w to 4w+3): 0:3 1:3 2:3 3:3 4:3 5:3");
    free(text);
}

/* The depth of each bank the map draws, phase by phase, adds up to the bank model's wavefronts:
 * random requests of every width, each phase's deepest bank read back from its strip. */
static void maps_count_as_the_model(void **state)
{
    (void)state;
    struct rng g;
    rng_seed(&g, 47, 0);
    static const int sizes[] = {4, 8, 16};
    for (int t = 0; t < 2000; t++) {
        int size = sizes[rng_next(&g) % 3], n = 1 + (int)(rng_next(&g) % 32);
        uint32_t off[32];
        int spread = 1 + (int)(rng_next(&g) % 64); /* few words: deep banks and broadcasts */
        for (int i = 0; i < n; i++)
            off[i] = (uint32_t)(rng_next(&g) % (uint64_t)spread) * (uint32_t)size * (1u + (uint32_t)(rng_next(&g) % 9));
        enum mem_op op = rng_next(&g) % 2 ? SHARED_LD : SHARED_ST;
        int atomic = size == 4 && rng_next(&g) % 4 == 0;
        struct shared_request r = request(n, off, size, op, atomic);
        char *text = map_text(&r, op, "x.cu:1:1 (a)");
        if (r.wavefronts <= r.ideal) {
            assert_null(text);
            continue;
        }
        assert_non_null(text);
        char want[80];
        snprintf(want, sizeof want, ", %u wavefronts where %u would do.", r.wavefronts, r.ideal);
        assert_says(text, want);
        uint32_t sum = 0;
        int deep = 0;
        for (const char *p = strstr(text, "      lanes "); p; p = strstr(p + 1, "\n      lanes ")) {
            const char *strip = p + (*p == '\n') + 18;
            int most = 0;
            for (int b = 0; b < 32; b++)
                if (strip[b] == '+')
                    deep = 1;
                else if (strip[b] != '.' && strip[b] - '0' > most)
                    most = strip[b] - '0';
            sum += (uint32_t)most;
        }
        if (!deep)
            assert_int_equal(sum, r.wavefronts);
        free(text);
    }
}

/* What no runner should send, drawn from the lanes that can be read, or not at all; the SVG's text
 * escaped. */
static void odd_requests(void **state)
{
    (void)state;
    uint32_t off[32];
    struct shared_request r = column_read();
    r.nlanes = 250;                                 /* more than a warp */
    r.lanes[3].lane = 77;                           /* no lane of a warp */
    r.lanes[4].size = 3;                            /* no access's size */
    r.lanes[5].offset = 0xFFFFFFF0u;                /* past any shared memory */
    r.lanes[6].lane = 0;                            /* lane 0 twice */
    r.base = 0x7FFFFFFF;                            /* an array past the lanes */
    char *text = map_text(&r, SHARED_LD, "a.cu:1:1 (t)");
    assert_says(text, "(t): 28-way, 28 wavefronts where 1 would do.");
    assert_says(text, "0:0 1:32 2:64 7:224");
    free(text);
    /* Lanes before the first lane's array (a pointer into either of two): words from the start of
     * shared memory. */
    r = column_read();
    r.base = 2048;
    r.lanes[0].offset = 4096 + 128 * 3; /* word 1120: bank 0, no other lane's */
    text = map_text(&r, SHARED_LD, "a.cu:1:1 (t)");
    assert_says(text, "(word w of the block's shared memory: its bytes 4w to 4w+3): 0:1120 1:32 2:64 3:96");
    free(text);
    for (int i = 0; i < 32; i++)
        r.lanes[i].lane = 40;
    assert_null(map_text(&r, SHARED_LD, "a.cu:1:1 (t)"));
    r = column_read();
    assert_null(map_text(&r, GLOBAL_LD, "a.cu:1:1 (t)")); /* a map is of shared memory */
    memset(&r, 0, sizeof r);
    assert_null(map_text(&r, SHARED_LD, "")); /* nothing kept */

    r = column_read();
    struct capture c;
    FILE *f = capture_start(&c);
    assert_int_equal(bankmap_request_svg(f, &r, SHARED_LD, "work/<a&b>\".cu:1:1 (tile)"), 1);
    char *svg = capture_text(&c);
    assert_contains(svg, "work/&lt;a&amp;b&gt;&quot;.cu:1:1 (tile), shared loads: the worst request</text>");
    assert_contains(svg, "<title>lane 31 asks for word 992 of tile, in bank 0</title>");
    assert_contains(svg, "32-way: 32 wavefronts where 1 would do</text>");
    assert_lacks(svg, "<a&b>");
    free(svg);
    for (int i = 0; i < 32; i++)
        off[i] = 4u * (uint32_t)i;
    r = request(32, off, 4, SHARED_LD, 0);
    f = capture_start(&c);
    assert_int_equal(bankmap_request_svg(f, &r, SHARED_LD, "ok.cu:1:1 (tile)"), 0);
    svg = capture_text(&c);
    assert_string_equal(svg, "");
    free(svg);
}

UNIT_TESTS_MAIN(
    cmocka_unit_test(column_of_a_tile),
    cmocka_unit_test(broadcasts_and_arrays),
    cmocka_unit_test(wide_accesses_in_phases),
    cmocka_unit_test(atomics_queue_up),
    cmocka_unit_test(maps_count_as_the_model),
    cmocka_unit_test(odd_requests))
