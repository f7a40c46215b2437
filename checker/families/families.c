/* The families (family.h): every checker/families/NAME.c registers its descriptor in the
 * wb_families section, and this finds them by name. */
#include <stdio.h>
#include <string.h>

#include "family.h"

extern const struct family *const __start_wb_families[] __attribute__((weak));
extern const struct family *const __stop_wb_families[] __attribute__((weak));

const struct family *family_named(const char *name)
{
    for (const struct family *const *f = __start_wb_families; f < __stop_wb_families; f++)
        if (strcmp((*f)->name, name) == 0)
            return *f;
    return NULL;
}

const char *family_names(void)
{
    static char names[256];
    size_t n = 0;
    names[0] = '\0';
    for (const struct family *const *f = __start_wb_families; f < __stop_wb_families; f++)
        n += (size_t)snprintf(names + n, n < sizeof names ? sizeof names - n : 0, "%s%s", n ? ", " : "", (*f)->name);
    return names;
}
