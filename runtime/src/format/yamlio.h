/* A loaded document with lookups, over libyaml, for the runtime's own
   records (run.yaml, step.yaml); they are written with the base's writer
   (pipe/yaml_write.h). Private to the runtime. */
#ifndef PIPE_YAMLIO_H
#define PIPE_YAMLIO_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

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
