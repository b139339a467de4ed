#include "option_map.h"

#include <string.h>

int option_map_place(diag_engine *d, const ast_map_entry *e, const char *const *keys, size_t nkeys,
                     const ast_map_entry **entries)
{
    for (size_t k = 0; k < nkeys; k++) {
        if (strcmp(keys[k], e->key.text) != 0)
            continue;
        if (entries[k]) {
            diag_given_twice(d, e->key.sp, entries[k]->key.sp, NULL, "key \"%s\" given twice", e->key.text);
            return OPTION_KEY_TWICE;
        }
        entries[k] = e;
        return (int)k;
    }
    return OPTION_KEY_UNKNOWN;
}

bool option_has_control_chars(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}
