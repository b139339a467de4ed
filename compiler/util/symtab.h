/* String-keyed hash table (open addressing) for names: steps, bindings.
   Keys are not copied; they must outlive the table (arena strings do). */
#ifndef PIPEC_SYMTAB_H
#define PIPEC_SYMTAB_H

#include <stddef.h>

typedef struct symtab {
    const char **keys;
    void **values;
    size_t len, cap;
} symtab;

void symtab_free(symtab *t);
void *symtab_get(const symtab *t, const char *key);
/* Inserts or replaces. */
void symtab_put(symtab *t, const char *key, void *value);

#endif
