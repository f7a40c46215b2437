/* Memory traffic judged (counting.c): the emulator's counting case, the lesson's traffic rules
 * in their one wording, and the occupancy line. */
#ifndef WB_COUNTING_H
#define WB_COUNTING_H
#include <stdint.h>

#define TRAFFIC_RULES 12
#define RULE_TEXT 160
/* The lesson's traffic rules, each a sentence without its full stop, into rules; how many. The
 * solution's bank conflicts said beside that rule where solution_conflicts >= 0. */
int traffic_rules(char rules[TRAFFIC_RULES][RULE_TEXT], long long solution_conflicts);
struct check_case;
/* The emulator's speed case: the counts at both counting sizes and, from a sample of blocks, at
 * the speed case's own size (timed), shown and held to the rules. */
void case_counts(const struct check_case *timed, uint64_t stream);
/* How many of the student's blocks an H200's SM holds, from the cubin ptxas made, said; the
 * threads they are (0: not known). */
int say_occupancy(void);

#endif
