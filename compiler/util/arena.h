/* Chunked arena: AST nodes, symbols and strings live here and are freed at once. */
#ifndef PIPEC_ARENA_H
#define PIPEC_ARENA_H

#include <stdarg.h>
#include <stddef.h>

typedef struct arena_chunk arena_chunk;

typedef struct arena {
    arena_chunk *head;
} arena;

void arena_init(arena *a);
void arena_free(arena *a);
/* Zeroed, 16-byte aligned; never returns NULL (xmalloc exits on OOM). */
void *arena_alloc(arena *a, size_t size);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_strdup(arena *a, const char *s);
char *arena_printf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vprintf(arena *a, const char *fmt, va_list ap);

/* Growable array of pointers whose storage comes from an arena. */
typedef struct ptr_vec {
    void **items;
    size_t len, cap;
} ptr_vec;

void vec_push(arena *a, ptr_vec *v, void *item);

/* Process-level allocation that exits with a message when memory runs out. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
