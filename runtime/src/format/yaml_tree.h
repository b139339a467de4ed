/* A small YAML document tree built from libyaml's event parser, for the
   files the runtime reads (the manifest, --config files, step records).
   Every scalar is text; tags are ignored. Aliases, several documents,
   non-scalar mapping keys, duplicate keys and nesting deeper than
   PIPE_YAML_MAX_DEPTH are refused, so that a hostile file can neither loop
   nor blow the stack. Private to the runtime. */
#ifndef PIPE_YAML_TREE_H
#define PIPE_YAML_TREE_H

#include <stdbool.h>
#include <stddef.h>

#define PIPE_YAML_MAX_DEPTH 64

typedef enum { PIPE_YSCALAR, PIPE_YSEQ, PIPE_YMAP } pipe_ytype;

typedef struct pipe_ynode pipe_ynode;
struct pipe_ynode {
    pipe_ytype type;
    int line;           /* 1-based line where the node starts */
    char *text;         /* scalar: the value, NUL-terminated (may hold NULs: see len) */
    size_t len;         /* scalar: bytes in text */
    bool plain;         /* scalar: written without quotes */
    pipe_ynode **items; /* sequence: the items; mapping: key, value, key, value, ... */
    size_t n;           /* entries in items */
};

/* Parses text. *root is NULL for an empty stream. PIPE_EFORMAT with
   "line N: problem" in err, PIPE_ENOMEM. */
int pipe_yaml_load(const char *text, size_t len, pipe_ynode **root, char *err, size_t errsize);
void pipe_ynode_free(pipe_ynode *node);

/* The value for key in a mapping, NULL when absent (or node not a mapping). */
const pipe_ynode *pipe_ymap_get(const pipe_ynode *map, const char *key);
/* Mapping entries: pipe_ymap_key(map, i) and pipe_ymap_value(map, i), i < map->n / 2. */
size_t pipe_ymap_size(const pipe_ynode *map);
const pipe_ynode *pipe_ymap_key(const pipe_ynode *map, size_t i);
const pipe_ynode *pipe_ymap_value(const pipe_ynode *map, size_t i);
/* A plain scalar "", "~", "null", "Null" or "NULL". */
bool pipe_ynode_is_null(const pipe_ynode *node);
/* A scalar without NUL bytes: its text; else NULL. */
const char *pipe_ynode_str(const pipe_ynode *node);

#endif
