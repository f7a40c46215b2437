/* The workbook's commands (checker/commands/), what their files share: the registry, the
 * student's state and paths. workbook.c says which command does what. */
#ifndef WB_COMMANDS_H
#define WB_COMMANDS_H
#include <stddef.h>
#include <stdint.h>

#include "quiz.h"
#include "registry.h"
#include "state.h"

#define REGISTRY "lessons/registry"
#define WORK "work"
#define STATE_FILE WORK "/state"

extern struct registry reg;

int file_exists(const char *path);
int same_content(const char *a, const char *b);
/* The lesson a command-line argument names, or NULL (said). */
const struct lesson *lesson_arg(const char *s);
/* top/NN_topic/kernel.cu */
void path_of(char *buf, size_t len, const char *top, const struct lesson *l);
/* The lesson's title, from the first line of its text. */
const char *title_of(const struct lesson *l, char *buf, size_t len);
void load_state(struct state *s);
int save_state(const struct state *s);

/* student.c: the student's loop */
int cmd_select(const struct lesson *l);
int cmd_status(void);
int cmd_hint(const struct lesson *l);
int cmd_hints_md(const struct lesson *l); /* the hints as folded Markdown, for the site */
int cmd_next_lesson(void);
int cmd_reset(const struct lesson *l);
int load_quiz(const struct lesson *l, struct quiz *quiz);
int cmd_quiz(const struct lesson *l);
int cmd_quiz_key(const struct lesson *l);
int cmd_quiz_md(const struct lesson *l);
/* grading.c: running the judges, the score, the course's grade files */
int cmd_check(const char *src, const char *expect, int argc, char **argv);
int cmd_grade(const char *src, const char *outdir, int argc, char **argv);
int cmd_record(const char *src, const struct lesson *l, int forget);
/* intake.c: a hand-in read through the intake (intake.h) into stage (NULL: none, the hash
 * alone): out[i] is lesson ls[i]'s file, hash the hand-in's identity. Returns 0, or 3: the
 * grader's side failed (said). */
struct intake_file;
int intake_handin(const char *root, const char *name, const char *stage, const struct lesson **ls, int n,
                  struct intake_file *out, char hash[17]);
int cmd_intake(int argc, char **argv);
/* authoring.c: what builds and tests the workbook use */
int cmd_lint(const char *source, const char *kernel, const char *shown);
int cmd_gate(const char *kind, const char *object, const char *kernel, const char *family, const char *source);
int cmd_compile_report(const char *source, const char *log);
int cmd_author_check(void);
int cmd_mutate(const char *file, const char *dir);
/* cases.c: the table of the cases the workbook's own tests grade */
int cmd_cases(int argc, char **argv);
/* model.c: the time model's terms of check records, for its fit */
int cmd_time_terms(int argc, char **argv);
/* lessons.c: the registry's fields for the Makefile and the scripts */
int cmd_lessons(int argc, char **argv);

#endif
