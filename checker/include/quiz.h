/* Self-check questions: each lesson's lessons/NN_topic/quiz.txt, asked in the terminal by
 * `make quiz` and shown on the lesson's web page, plus bank questions made up on the spot and
 * answered by the emulator's bank model. */
#ifndef WB_QUIZ_H
#define WB_QUIZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "state.h"

#define MAX_QUESTIONS 32
#define MAX_CHOICES 5

struct question {
    char text[1024];
    int nchoices;            /* 0: a numeric answer */
    char choice[MAX_CHOICES][200];
    double answer;           /* the number, or the 1-based right choice */
    char why[1024];
};

/* Kinds of made-up bank questions, as bits: which bank holds an element, a column read of a
 * padded tile, a strided read, a partial XOR swizzle. */
enum { QUIZ_BANK = 1, QUIZ_COLUMN = 2, QUIZ_STRIDE = 4, QUIZ_XOR = 8, QUIZ_ALL_KINDS = 15 };

struct quiz {
    int generated;  /* how many bank questions make quiz adds ("bank-questions: N kinds" in quiz.txt) */
    unsigned kinds; /* which kinds, QUIZ_* bits; a lesson asks only about what it has taught */
    int count;
    int numbered_from; /* the number before its first question's (make quiz's bank questions
                          follow the file's: Q12 after Q11, not Q1 again) */
    struct question q[MAX_QUESTIONS];
};

/* Parses quiz.txt text (format: any lessons/NN_topic/quiz.txt). Returns 0, or -1 with a sentence
 * naming the line in err. */
int quiz_parse(const char *text, struct quiz *quiz, char *err, size_t errlen);

/* What a typed answer is: right (a number within 1 %; for choices, the number or the letter),
 * wrong, or no answer at all (nothing, not a number, a choice that does not exist), which is
 * asked again rather than counted. */
enum quiz_verdict { QUIZ_RIGHT, QUIZ_WRONG, QUIZ_UNREADABLE, QUIZ_EMPTY };
enum quiz_verdict quiz_judge_answer(const struct question *q, const char *typed);
int quiz_answer_is_right(const struct question *q, const char *typed);

/* The QUIZ_* bits of a list like "bank,stride"; 0 if a name is unknown. */
unsigned quiz_kinds_named(const char *list);

/* A bank question of kind k (0 bank, 1 column, 2 stride, 3 xor) made up from a seed, answered
 * by the bank model (emu_price). */
void quiz_generate(uint64_t seed, int k, struct question *q);

/* Asks the questions on out, reading one answer per line from in; returns how many were right.
 * An empty line skips a question without showing its answer (counted in *skipped); an answer
 * that is none (a typo) is asked again, up to three times, then the question is skipped. */
int quiz_ask(const struct quiz *quiz, FILE *in, FILE *out, int *skipped);

/* How the answers on fd arrive: typed at a terminal, read from a file (make quiz ANSWERS=file) or
 * from a pipe. make quiz records every score, marked with this. */
enum quiz_answered quiz_answered_on(int fd);
/* The line that ends a quiz whose answers were not typed: its score was recorded, and how, so
 * that a quiz answered from a file is not silently different from one typed. */
void quiz_recorded_note(enum quiz_answered how, FILE *out);

/* The questions alone, without their answers (make quiz LIST=1). */
void quiz_list(const struct quiz *quiz, FILE *out);

/* The questions as Markdown with each answer in a closed <details> block (the web page). */
void quiz_markdown(const struct quiz *quiz, FILE *out);

#endif
