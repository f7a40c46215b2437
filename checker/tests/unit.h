/* What every unit test's main is: the cmocka tests listed, run as one group. A macro, because
 * cmocka's group runner takes the array itself (for its length). Include after <cmocka.h>. */
#ifndef WB_TEST_UNIT_H
#define WB_TEST_UNIT_H

#define UNIT_TESTS_MAIN(...)                             \
    int main(void)                                       \
    {                                                    \
        const struct CMUnitTest tests[] = {__VA_ARGS__}; \
        return cmocka_run_group_tests(tests, NULL, NULL); \
    }

#endif
