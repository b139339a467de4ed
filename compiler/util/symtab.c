#include "symtab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

void symtab_free(symtab *t)
{
    free(t->keys);
    free(t->values);
    memset(t, 0, sizeof *t);
}

static size_t slot(const symtab *t, const char *key)
{
    size_t mask = t->cap - 1, i = (size_t)hash(key) & mask;
    while (t->keys[i] && strcmp(t->keys[i], key) != 0)
        i = (i + 1) & mask;
    return i;
}

void *symtab_get(const symtab *t, const char *key)
{
    if (!t->cap)
        return NULL;
    size_t i = slot(t, key);
    return t->keys[i] ? t->values[i] : NULL;
}

static void grow(symtab *t)
{
    symtab bigger = {0};
    bigger.cap = t->cap ? t->cap * 2 : 16;
    bigger.keys = xcalloc(bigger.cap, sizeof *bigger.keys);
    bigger.values = xcalloc(bigger.cap, sizeof *bigger.values);
    for (size_t i = 0; i < t->cap; i++) {
        if (t->keys[i]) {
            size_t j = slot(&bigger, t->keys[i]);
            bigger.keys[j] = t->keys[i];
            bigger.values[j] = t->values[i];
            bigger.len++;
        }
    }
    symtab_free(t);
    *t = bigger;
}

void symtab_put(symtab *t, const char *key, void *value)
{
    if ((t->len + 1) * 4 > t->cap * 3)
        grow(t);
    size_t i = slot(t, key);
    if (!t->keys[i]) {
        t->keys[i] = key;
        t->len++;
    }
    t->values[i] = value;
}
