#include "yamlio.h"

#include <stdlib.h>
#include <string.h>

#include "pipe/error.h"
#include "util/util.h"

int pipe_yr_load(pipe_yr *r, const char *text, size_t len, const char *what, char *err, size_t errsize)
{
    memset(r, 0, sizeof *r);
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return PIPE_ENOMEM;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &r->doc)) {
        pipe_errf(err, errsize, "%s:%zu:%zu: %s", what, parser.problem_mark.line + 1,
                  parser.problem_mark.column + 1, parser.problem ? parser.problem : "malformed YAML");
        int code = parser.error == YAML_MEMORY_ERROR ? PIPE_ENOMEM : PIPE_EFORMAT;
        yaml_parser_delete(&parser);
        return code;
    }
    yaml_parser_delete(&parser);
    r->loaded = true;
    yaml_node_t *root = yaml_document_get_root_node(&r->doc);
    if (!root || root->type != YAML_MAPPING_NODE) {
        pipe_errf(err, errsize, "%s:1:1: expected a mapping at the top level", what);
        pipe_yr_free(r);
        return PIPE_EFORMAT;
    }
    return 0;
}

void pipe_yr_free(pipe_yr *r)
{
    if (r->loaded)
        yaml_document_delete(&r->doc);
    r->loaded = false;
}

yaml_node_t *pipe_yr_root(pipe_yr *r) { return yaml_document_get_root_node(&r->doc); }

bool pipe_yr_pair(pipe_yr *r, yaml_node_t *map, size_t i, yaml_node_t **key, yaml_node_t **value)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return false;
    yaml_node_pair_t *p = map->data.mapping.pairs.start + i;
    if (p >= map->data.mapping.pairs.top)
        return false;
    *key = yaml_document_get_node(&r->doc, p->key);
    *value = yaml_document_get_node(&r->doc, p->value);
    return true;
}

yaml_node_t *pipe_yr_get(pipe_yr *r, yaml_node_t *map, const char *key)
{
    yaml_node_t *k, *v;
    for (size_t i = 0; pipe_yr_pair(r, map, i, &k, &v); i++) {
        const char *t = pipe_yr_text(k);
        if (t && strcmp(t, key) == 0)
            return v;
    }
    return NULL;
}

const char *pipe_yr_text(yaml_node_t *node)
{
    if (!node || node->type != YAML_SCALAR_NODE)
        return NULL;
    return (const char *)node->data.scalar.value;
}

int pipe_yr_line(const yaml_node_t *node) { return node ? (int)node->start_mark.line + 1 : 0; }
