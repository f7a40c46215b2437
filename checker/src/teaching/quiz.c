#include "quiz.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bank_model.h"
#include "rng.h"

static int starts(const char *line, const char *prefix)
{
    return strncmp(line, prefix, strlen(prefix)) == 0;
}

/* Splits "a | b | c" into the question's choices. */
static int split_choices(const char *s, struct question *q)
{
    q->nchoices = 0;
    while (*s && q->nchoices < MAX_CHOICES) {
        const char *bar = strstr(s, " | ");
        size_t len = bar ? (size_t)(bar - s) : strlen(s);
        snprintf(q->choice[q->nchoices++], sizeof q->choice[0], "%.*s", (int)len, s);
        s += len + (bar ? 3 : 0);
    }
    return *s ? -1 : 0;
}

static int finish(struct quiz *quiz, int have_answer, int lineno, char *err, size_t errlen)
{
    struct question *q = &quiz->q[quiz->count - 1];
    if (!q->text[0] || !have_answer || !q->why[0]) {
        snprintf(err, errlen, "question ending before line %d needs question:, answer: and why:", lineno);
        return -1;
    }
    if (q->nchoices && (q->answer < 1 || q->answer > q->nchoices || q->answer != floor(q->answer))) {
        snprintf(err, errlen, "question ending before line %d: answer must be the number of one of its %d choices",
                 lineno, q->nchoices);
        return -1;
    }
    return 0;
}

int quiz_parse(const char *text, struct quiz *quiz, char *err, size_t errlen)
{
    memset(quiz, 0, sizeof *quiz);
    int lineno = 0, open = 0, have_answer = 0;
    for (const char *p = text;; ) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        lineno++;
        int blank = line[strspn(line, " \t\r")] == '\0';
        if ((blank || !*p) && open) {
            if (finish(quiz, have_answer, lineno, err, errlen) != 0)
                return -1;
            open = 0;
        }
        if (!*p)
            break;
        p += len + (nl ? 1 : 0);
        if (blank || line[0] == '#')
            continue;
        if (!open && starts(line, "bank-questions: ")) {
            char kinds[128] = "";
            int n = sscanf(line + 16, "%d %127s", &quiz->generated, kinds);
            quiz->kinds = n == 2 ? quiz_kinds_named(kinds) : QUIZ_ALL_KINDS;
            if (n < 1 || quiz->generated < 0 || quiz->generated > MAX_QUESTIONS || quiz->kinds == 0) {
                snprintf(err, errlen, "line %d: bank-questions: N [kinds], N from 0 to %d, kinds from %s", lineno,
                         MAX_QUESTIONS, "bank,column,stride,xor");
                return -1;
            }
            continue;
        }
        if (!open) {
            if (quiz->count == MAX_QUESTIONS) {
                snprintf(err, errlen, "line %d: more than %d questions", lineno, MAX_QUESTIONS);
                return -1;
            }
            quiz->count++;
            open = 1;
            have_answer = 0;
        }
        struct question *q = &quiz->q[quiz->count - 1];
        char *end;
        if (starts(line, "question: "))
            snprintf(q->text, sizeof q->text, "%s", line + 10);
        else if (starts(line, "why: "))
            snprintf(q->why, sizeof q->why, "%s", line + 5);
        else if (starts(line, "choices: ")) {
            if (split_choices(line + 9, q) != 0 || q->nchoices < 2) {
                snprintf(err, errlen, "line %d: 2 to %d choices, separated by ' | '", lineno, MAX_CHOICES);
                return -1;
            }
        } else if (starts(line, "answer: ")) {
            q->answer = strtod(line + 8, &end);
            if (end == line + 8 || *end) {
                snprintf(err, errlen, "line %d: the answer must be a plain number", lineno);
                return -1;
            }
            have_answer = 1;
        } else {
            snprintf(err, errlen, "line %d: expected question:, choices:, answer: or why:", lineno);
            return -1;
        }
    }
    if (quiz->count == 0) {
        snprintf(err, errlen, "no questions");
        return -1;
    }
    return 0;
}

unsigned quiz_kinds_named(const char *list)
{
    static const char *const names[] = {"bank", "column", "stride", "xor"};
    unsigned kinds = 0;
    char copy[128];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        unsigned k = 0;
        while (k < 4 && strcmp(tok, names[k]) != 0)
            k++;
        if (k == 4)
            return 0;
        kinds |= 1u << k;
    }
    return kinds;
}

enum quiz_verdict quiz_judge_answer(const struct question *q, const char *typed)
{
    while (isspace((unsigned char)*typed))
        typed++;
    if (!*typed)
        return QUIZ_EMPTY;
    char *end;
    double v;
    if (q->nchoices && isalpha((unsigned char)typed[0])) {
        v = tolower((unsigned char)typed[0]) - 'a' + 1;
        end = (char *)typed + 1;
    } else if ((v = strtod(typed, &end)), end == typed)
        return QUIZ_UNREADABLE;
    while (isspace((unsigned char)*end))
        end++;
    if (*end || (q->nchoices && (v < 1 || v > q->nchoices || v != (int)v)))
        return QUIZ_UNREADABLE; /* "8x", "eight", the choice e) of four */
    if (q->nchoices)
        return v == q->answer ? QUIZ_RIGHT : QUIZ_WRONG;
    return fabs(v - q->answer) <= 0.01 * fabs(q->answer) + 1e-9 ? QUIZ_RIGHT : QUIZ_WRONG;
}

int quiz_answer_is_right(const struct question *q, const char *typed)
{
    return quiz_judge_answer(q, typed) == QUIZ_RIGHT;
}

/* ---- bank questions made up on the spot ---- */

/* Wavefronts of one warp's shared access where lane i asks for `size` bytes at byte addr[i]. */
static uint64_t wavefronts(const uintptr_t *addr, int lanes, uint32_t size)
{
    struct emu_lane_access a[32];
    for (int i = 0; i < lanes; i++)
        a[i] = (struct emu_lane_access){addr[i], size, i};
    struct op_counts c = {0};
    emu_price(a, lanes, SHARED_LD, &c);
    return c.wavefronts;
}

void quiz_generate(uint64_t seed, int k, struct question *q)
{
    struct rng r;
    rng_seed(&r, seed, 0x9017 + (uint64_t)k);
    memset(q, 0, sizeof *q);
    uintptr_t addr[32];
    const int widths[] = {16, 31, 32, 33, 48, 64, 40, 17};
    int w = widths[rng_next(&r) % 8];
    switch (k % 4) {
    case 0: { /* which bank */
        int row = (int)(rng_next(&r) % 32), col = (int)(rng_next(&r) % (uint64_t)w);
        int dbl = rng_next(&r) % 2;
        size_t word = ((size_t)row * (size_t)w + (size_t)col) * (dbl ? 2 : 1);
        snprintf(q->text, sizeof q->text, "In `__shared__ %s s[32][%d];` (starting at bank 0), which bank holds the "
                 "first 4 bytes of `s[%d][%d]`?", dbl ? "double" : "float", w, row, col);
        q->answer = (double)(word % 32);
        snprintf(q->why, sizeof q->why, "It is 4-byte word (%d*%d + %d)%s = %zu of the array, and bank = word mod 32 = %zu.",
                 row, w, col, dbl ? "*2 (a double is two words)" : "", word, word % 32);
        break;
    }
    case 1: { /* a column read of tile[32][W] */
        int col = (int)(rng_next(&r) % (uint64_t)w);
        for (int i = 0; i < 32; i++)
            addr[i] = ((uintptr_t)i * (uintptr_t)w + (uintptr_t)col) * 4;
        uint64_t wf = wavefronts(addr, 32, 4);
        snprintf(q->text, sizeof q->text, "A warp reads a column of `__shared__ float tile[32][%d];`: thread i reads "
                 "`tile[i][%d]`. How many wavefronts (passes through the banks) does it take?", w, col);
        q->answer = (double)wf;
        snprintf(q->why, sizeof q->why, "Thread i reads word i*%d + %d, bank (i*%d + %d) mod 32; the busiest bank is "
                 "asked for %llu different word%s, so %llu wavefront%s (1 is conflict-free).",
                 w, col, w, col, (unsigned long long)wf, wf == 1 ? "" : "s", (unsigned long long)wf, wf == 1 ? "" : "s");
        break;
    }
    case 2: { /* a strided read */
        const int strides[] = {1, 2, 3, 4, 8, 16, 32, 33};
        int stride = strides[rng_next(&r) % 8], dbl = rng_next(&r) % 2;
        for (int i = 0; i < 32; i++)
            addr[i] = (uintptr_t)i * (uintptr_t)stride * (dbl ? 8 : 4);
        uint64_t wf = wavefronts(addr, 32, dbl ? 8 : 4);
        snprintf(q->text, sizeof q->text, "Thread i of a warp reads `s[i * %d]` of `__shared__ %s s[2048];`. How many "
                 "wavefronts does the warp's load take?", stride, dbl ? "double" : "float");
        q->answer = (double)wf;
        if (dbl)
            snprintf(q->why, sizeof q->why, "Thread i asks for words 2*i*%d and 2*i*%d + 1; the busiest bank is asked "
                     "for %llu different words, so %llu wavefronts (a warp of doubles needs at least 2: 256 bytes).",
                     stride, stride, (unsigned long long)wf, (unsigned long long)wf);
        else
            snprintf(q->why, sizeof q->why, "Thread i asks for word i*%d, bank (i*%d) mod 32; the busiest bank is asked "
                     "for %llu different word%s, so %llu wavefront%s.", stride, stride, (unsigned long long)wf,
                     wf == 1 ? "" : "s", (unsigned long long)wf, wf == 1 ? "" : "s");
        break;
    }
    default: { /* a partial XOR swizzle */
        const int masks[] = {1, 3, 7, 15, 31};
        int m = masks[rng_next(&r) % 5], col = (int)(rng_next(&r) % 32);
        for (int i = 0; i < 32; i++)
            addr[i] = ((uintptr_t)i * 32 + (uintptr_t)(col ^ (i & m))) * 4;
        uint64_t wf = wavefronts(addr, 32, 4);
        snprintf(q->text, sizeof q->text, "A warp reads `tile[i][%d ^ (i & %d)]` of `__shared__ float tile[32][32];` "
                 "(thread i, row i). How many wavefronts?", col, m);
        q->answer = (double)wf;
        if (m == 31)
            snprintf(q->why, sizeof q->why, "The bank is %d ^ i, a different one for each of the 32 threads: 1 "
                     "wavefront. That is the full swizzle.", col);
        else
            snprintf(q->why, sizeof q->why, "The bank is %d ^ (i & %d), which takes only %d different values, so each "
                     "of those banks serves %llu rows: %llu wavefronts. The full swizzle, i & 31, needs 1.", col, m,
                     m + 1, (unsigned long long)wf, (unsigned long long)wf);
        break;
    }
    }
}

/* ---- asking, and the web page ---- */

static void print_question(const struct question *q, int i, FILE *out)
{
    fprintf(out, "\nQ%d. %s\n", i + 1, q->text);
    for (int c = 0; c < q->nchoices; c++)
        fprintf(out, "   %c) %s\n", 'a' + c, q->choice[c]);
}

int quiz_ask(const struct quiz *quiz, FILE *in, FILE *out, int *skipped)
{
    int right = 0;
    char line[256];
    for (int i = 0; i < quiz->count; i++) {
        const struct question *q = &quiz->q[i];
        print_question(q, quiz->numbered_from + i, out);
        enum quiz_verdict v = QUIZ_UNREADABLE;
        for (int tries = 0; tries < 3 && v == QUIZ_UNREADABLE; tries++) {
            fprintf(out, "> ");
            fflush(out);
            if (!fgets(line, sizeof line, in)) {
                fprintf(out, "\n(no more answers)\n");
                return right;
            }
            v = quiz_judge_answer(q, line);
            if (v == QUIZ_UNREADABLE && q->nchoices)
                fprintf(out, "That is not one of the choices: type a letter from a to %c (Enter alone skips).\n",
                        'a' + q->nchoices - 1);
            else if (v == QUIZ_UNREADABLE)
                fprintf(out, "That is not a number: type one, like 32 or 0.5 (Enter alone skips).\n");
        }
        if (v == QUIZ_RIGHT) {
            right++;
            fprintf(out, "Right. %s\n", q->why);
        } else if (v == QUIZ_WRONG && q->nchoices) {
            fprintf(out, "Not quite: it is %c) %s. %s\n", 'a' + (int)q->answer - 1, q->choice[(int)q->answer - 1], q->why);
        } else if (v == QUIZ_WRONG) {
            fprintf(out, "Not quite: it is %g. %s\n", q->answer, q->why);
        } else {
            (*skipped)++;
            fprintf(out, "Skipped; its answer stays hidden for your next try.\n");
        }
    }
    return right;
}

enum quiz_answered quiz_answered_on(int fd)
{
    struct stat st;
    if (isatty(fd))
        return QUIZ_TYPED;
    if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        return QUIZ_PIPED;
    return QUIZ_FROM_FILE; /* a regular file (ANSWERS=file), or anything else that is no terminal */
}

void quiz_recorded_note(enum quiz_answered how, FILE *out)
{
    if (how == QUIZ_TYPED)
        return;
    fprintf(out, "Recorded for make status (which keeps your best score), marked \"%s\": these answers were not "
                 "typed at the terminal.\n", quiz_answered_words(how));
}

void quiz_list(const struct quiz *quiz, FILE *out)
{
    for (int i = 0; i < quiz->count; i++)
        print_question(&quiz->q[i], i, out);
}

void quiz_markdown(const struct quiz *quiz, FILE *out)
{
    for (int i = 0; i < quiz->count; i++) {
        const struct question *q = &quiz->q[i];
        fprintf(out, "%d. %s\n", i + 1, q->text);
        for (int c = 0; c < q->nchoices; c++)
            fprintf(out, "    %c) %s\n", 'a' + c, q->choice[c]);
        fprintf(out, "\n    <details>\n    <summary>Answer</summary>\n\n    ");
        if (q->nchoices)
            fprintf(out, "**%c) %s.** %s\n", 'a' + (int)q->answer - 1, q->choice[(int)q->answer - 1], q->why);
        else
            fprintf(out, "**%g.** %s\n", q->answer, q->why);
        fprintf(out, "\n    </details>\n\n");
    }
}
