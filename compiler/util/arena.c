#include "arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_chunk {
    arena_chunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

/* Chunks are calloc'ed and never reused, so an allocation is zero without a
   memset of its own; at 1 MiB they come from mmap, whose pages are zero
   until touched (a memset per allocation was a tenth of a large build). */
enum { CHUNK_MIN = 1024 * 1024 };

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "pipec: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "pipec: out of memory\n");
        exit(2);
    }
    return p;
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "pipec: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

void arena_init(arena *a) { a->head = NULL; }

void arena_free(arena *a)
{
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
}

void *arena_alloc(arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    arena_chunk *c = a->head;
    if (!c || c->size - c->used < size) {
        size_t cap = size > CHUNK_MIN ? size : CHUNK_MIN;
        if (size > SIZE_MAX / 2) {
            fprintf(stderr, "pipec: out of memory\n");
            exit(2);
        }
        c = xcalloc(1, sizeof *c + cap);
        c->size = cap;
        c->used = 0;
        /* A big one-off block goes behind the current chunk so the
           current chunk's free space is not abandoned. */
        if (a->head && size > CHUNK_MIN) {
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = a->head;
            a->head = c;
        }
    }
    void *p = c->data + c->used;
    c->used += size;
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_vprintf(arena *a, const char *fmt, va_list ap)
{
    /* Short results (names, paths) are formatted once, on the stack. */
    char small[256];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        n = 0;
        small[0] = '\0';
    }
    char *p = arena_alloc(a, (size_t)n + 1);
    if ((size_t)n < sizeof small)
        memcpy(p, small, (size_t)n + 1);
    else
        vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *arena_printf(arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = arena_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}

void vec_push(arena *a, ptr_vec *v, void *item)
{
    if (v->len == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 4;
        void **items = arena_alloc(a, cap * sizeof *items);
        if (v->len)
            memcpy(items, v->items, v->len * sizeof *items);
        v->items = items;
        v->cap = cap;
    }
    v->items[v->len++] = item;
}
