/* Small helpers over libyaml for the runtime's own records (run.yaml,
   step.yaml): an emitter into memory and a loaded document with lookups.
   Private to the runtime. */
#ifndef PIPE_YAMLIO_H
#define PIPE_YAMLIO_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

/* Writer. Calls after a failure do nothing; pipe_yw_finish reports it. */
typedef struct pipe_yw {
    yaml_emitter_t emitter;
    char *buf;
    size_t len, cap;
    bool failed;
    bool started;
} pipe_yw;

int pipe_yw_begin(pipe_yw *w);
void pipe_yw_map_begin(pipe_yw *w, bool flow);
void pipe_yw_map_end(pipe_yw *w);
void pipe_yw_seq_begin(pipe_yw *w, bool flow);
void pipe_yw_seq_end(pipe_yw *w);
/* Plain style where YAML allows it (libyaml quotes otherwise). */
void pipe_yw_plain(pipe_yw *w, const char *s);
/* Always double-quoted: strings that a reader must not take for a number or a bool. */
void pipe_yw_quoted(pipe_yw *w, const char *s);
void pipe_yw_key_plain(pipe_yw *w, const char *key, const char *value);
void pipe_yw_key_quoted(pipe_yw *w, const char *key, const char *value);
/* Ends the document; *text is malloc'ed and NUL-terminated. Frees w's state
   in every case. */
int pipe_yw_finish(pipe_yw *w, char **text, size_t *len, char *err, size_t errsize);
/* Frees w's state after an early exit. */
void pipe_yw_abandon(pipe_yw *w);

/* Reader: the whole document as libyaml's node graph. */
typedef struct pipe_yr {
    yaml_document_t doc;
    bool loaded;
} pipe_yr;

/* PIPE_EFORMAT with "WHAT:LINE:COL: problem" when it does not parse or its
   root is not a mapping. */
int pipe_yr_load(pipe_yr *r, const char *text, size_t len, const char *what, char *err, size_t errsize);
void pipe_yr_free(pipe_yr *r);
yaml_node_t *pipe_yr_root(pipe_yr *r);
/* The value of key in a mapping node; NULL when absent or map is not a mapping. */
yaml_node_t *pipe_yr_get(pipe_yr *r, yaml_node_t *map, const char *key);
/* A scalar's text (NUL-terminated); NULL when node is NULL or not a scalar. */
const char *pipe_yr_text(yaml_node_t *node);
/* Iteration over a mapping node's pairs: i from 0 while it returns true. */
bool pipe_yr_pair(pipe_yr *r, yaml_node_t *map, size_t i, yaml_node_t **key, yaml_node_t **value);
/* Line (1-based) of a node, for messages. */
int pipe_yr_line(const yaml_node_t *node);

#endif
