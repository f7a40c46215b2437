/* workbook: the student-facing commands behind the Makefile's targets.
 *
 *   workbook select N                 make lessonN: remember N, create the student's copy
 *   workbook check SRC EXPECT N...    make check: build and run each lesson's check, then Score
 *   workbook grade SRC DIR N...       make grade: the same into DIR as results.json, junit.xml, summary
 *   workbook status                   make status
 *   workbook hint N                   make hint: the next hint of lesson N
 *   workbook reset N                  make reset: keep a copy of the student's file, restore the stub
 *   workbook intake [--root DIR] [--need] HANDIN STAGE|--hash [N...]
 *                                     a hand-in's lesson files copied through the intake (intake.h)
 *                                     into STAGE, the hash of them printed; --need: exit 1 unless
 *                                     every lesson asked was copied (make's step)
 *   workbook lint SRC KERNEL [SHOWN]  the lesson files' rules (kernels only), before compiling
 *   workbook compile-report SRC LOG   show a compiler log as the student's file:line messages
 *   workbook author-check             every lesson complete, no stub already solved (make test)
 *   workbook mutate FILE DIR          write the wrong kernel FILE (a .mutant) describes into DIR
 *   workbook cases [KIND|NAME...]     the workbook's own cases as a table (checker/tools/run-cases.py)
 *   workbook record SRC N [--forget]  the last check of lesson N in SRC, from its record (scripts);
 *                                     --forget removes it, before a check
 *   workbook quiz N                   make quiz: lesson N's questions and fresh bank questions;
 *                                     answers from standard input, one per line
 *   workbook quiz-md N                the questions as Markdown for the lesson's web page
 *   workbook hints-md N               the hints as Markdown for the lesson's web page, each folded
 *   workbook quiz-key N               the right answers of make quiz (same SEED), for tests
 *   workbook bankmap LAYOUT           an SVG of the banks a column read hits (32x32, 32x33, xor), or one
 *                                     ldmatrix phase (ldsm, ldsm-xor)
 *   workbook lesson-list              the lessons as a Markdown list of links (the site's index)
 *   workbook counting-size FAMILY     ROWS COLS: the size the family's traffic is counted at (scripts)
 *   workbook time-terms RECORD...     the time model's terms of the launches each check record
 *                                     counted (checker/model/fit-timed.py fits their factors)
 *   workbook lessons [--lesson N] FIELD...  the registry's fields by name, a line per lesson (the
 *                                     Makefile and the scripts; lessons.c says more)
 *
 * Run from the workbook's top folder (the Makefile does). The commands live in student.c,
 * grading.c, authoring.c, cases.c, model.c and lessons.c, what they share in common.c (commands.h); this file only
 * says which command does what. The student's record is work/state; WB_STATE=file keeps it
 * elsewhere (make quiz-test, so that its answer keys never reach a student's record). */
#include <stdio.h>
#include <string.h>

#include "bankmap.h"
#include "registry.h"

#include "commands.h"

static int usage(void)
{
    fprintf(stderr, "usage: workbook select N | next-lesson | check SRC score|pass|fail N... | record SRC N [--forget] | grade SRC DIR N... | status | hint N | reset N | "
                    "intake [--root DIR] [--need] HANDIN STAGE|--hash [N...] | lint SOURCE KERNEL [SHOWN] | compile-report SOURCE LOG | author-check | mutate FILE DIR | cases [KIND|NAME...] | quiz N | quiz-md N | quiz-key N | hints-md N | bankmap 32x32|32x33|xor|ldsm|ldsm-xor | lesson-list | counting-size FAMILY | time-terms RECORD... | lessons [--lesson N] FIELD...\n(the Makefile runs these for you: make help)\n");
    return 2;
}

int main(int argc, char **argv)
{
    char err[512];
    if (argc < 2)
        return usage();
    const char *cmd = argv[1];
    if (strcmp(cmd, "bankmap") == 0) {
        int layout = argc == 3 ? bank_layout_named(argv[2]) : -1;
        if (argc == 3 && (strcmp(argv[2], "ldsm") == 0 || strcmp(argv[2], "ldsm-xor") == 0)) {
            bankmap_ldmatrix_svg(stdout, argv[2][4] == '-', 1);
            return 0;
        }
        if (layout < 0)
            return usage();
        bankmap_svg(stdout, (enum bank_layout)layout, 0);
        return 0;
    }
    if (strcmp(cmd, "counting-size") == 0) {
        const struct family *f = argc == 3 ? family_named(argv[2]) : NULL;
        if (!f) {
            fprintf(stderr, "no family '%s' (%s)\n", argc == 3 ? argv[2] : "", family_names());
            return 2;
        }
        printf("%d %d\n", f->count_rows, f->count_cols);
        return 0;
    }
    if (strcmp(cmd, "lint") == 0)
        return argc == 4 || argc == 5 ? cmd_lint(argv[2], argv[3], argc == 5 ? argv[4] : argv[2]) : usage();
    if (strcmp(cmd, "gate") == 0)
        return argc == 7 ? cmd_gate(argv[2], argv[3], argv[4], argv[5], argv[6]) : usage();
    if (strcmp(cmd, "compile-report") == 0)
        return argc == 4 ? (cmd_compile_report(argv[2], argv[3]), 0) : usage();
    if (strcmp(cmd, "time-terms") == 0)
        return argc >= 3 ? cmd_time_terms(argc - 2, argv + 2) : usage();
    if (strcmp(cmd, "lessons") == 0) /* reads the registry it is told to */
        return cmd_lessons(argc - 2, argv + 2);
    if (registry_load(REGISTRY, &reg, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    const struct lesson *l;
    if (strcmp(cmd, "status") == 0)
        return cmd_status();
    if (strcmp(cmd, "author-check") == 0)
        return cmd_author_check();
    if (strcmp(cmd, "lesson-list") == 0) {
        for (int i = 0; i < reg.count; i++) {
            char title[256];
            printf("%d. [%s](%s.html)\n", reg.lessons[i].number, title_of(&reg.lessons[i], title, sizeof title),
                   reg.lessons[i].folder);
        }
        return 0;
    }
    if (strcmp(cmd, "next-lesson") == 0)
        return argc == 2 ? cmd_next_lesson() : usage();
    if (strcmp(cmd, "mutate") == 0)
        return argc == 4 ? cmd_mutate(argv[2], argv[3]) : usage();
    if (strcmp(cmd, "cases") == 0)
        return cmd_cases(argc - 2, argv + 2);
    if (strcmp(cmd, "intake") == 0)
        return cmd_intake(argc - 2, argv + 2);
    if (strcmp(cmd, "grade") == 0)
        return argc >= 5 ? cmd_grade(argv[2], argv[3], argc - 4, argv + 4) : usage();
    if (strcmp(cmd, "check") == 0)
        return argc >= 5 ? cmd_check(argv[2], argv[3], argc - 4, argv + 4) : usage();
    if (strcmp(cmd, "record") == 0) {
        int forget = argc == 5 && strcmp(argv[4], "--forget") == 0;
        if (argc != 4 && !forget)
            return usage();
        return (l = lesson_arg(argv[3])) ? cmd_record(argv[2], l, forget) : 2;
    }
    /* The commands of one lesson, `workbook COMMAND N`. */
    static const struct {
        const char *name;
        int (*run)(const struct lesson *l);
    } of_a_lesson[] = {
        {"select", cmd_select}, {"hint", cmd_hint}, {"reset", cmd_reset}, {"quiz", cmd_quiz},
        {"quiz-md", cmd_quiz_md}, {"quiz-key", cmd_quiz_key}, {"hints-md", cmd_hints_md},
    };
    if (argc != 3)
        return usage();
    if (!(l = lesson_arg(argv[2])))
        return 2;
    for (size_t i = 0; i < sizeof of_a_lesson / sizeof of_a_lesson[0]; i++)
        if (strcmp(cmd, of_a_lesson[i].name) == 0)
            return of_a_lesson[i].run(l);
    return usage();
}
