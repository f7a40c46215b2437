/* cmocka's location lines kept from the student (quiet_cmocka.c): a bottom layer of the judge,
 * beside check_run.h, that reads nothing of the judge's. */
#ifndef WB_QUIET_CMOCKA_H
#define WB_QUIET_CMOCKA_H

/* Drops cmocka's "[ LINE ] --- checker/...: error: Failure!" lines from stderr. */
void quiet_cmocka_locations(void);

#endif
