#include "yaml_tree.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "pipe/error.h"
#include "util/util.h"

/* An open sequence or mapping while its children are read. */
typedef struct frame {
    pipe_ynode *node;
    size_t cap;
} frame;

static int node_new(pipe_ytype type, int line, pipe_ynode **out)
{
    pipe_ynode *n = calloc(1, sizeof *n);
    if (!n)
        return PIPE_ENOMEM;
    n->type = type;
    n->line = line;
    *out = n;
    return 0;
}

void pipe_ynode_free(pipe_ynode *node)
{
    if (!node)
        return;
    for (size_t i = 0; i < node->n; i++)
        pipe_ynode_free(node->items[i]);
    free(node->items);
    free(node->text);
    free(node);
}

static int key_cmp(const void *a, const void *b)
{
    const pipe_ynode *x = *(pipe_ynode *const *)a, *y = *(pipe_ynode *const *)b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->text, y->text, n);
    if (c != 0)
        return c;
    return x->len < y->len ? -1 : x->len > y->len ? 1 : 0;
}

/* Duplicate keys, found by sorting a copy of the key list. */
static int check_duplicate_keys(const pipe_ynode *map, char *err, size_t errsize)
{
    size_t nkeys = map->n / 2;
    if (nkeys < 2)
        return 0;
    pipe_ynode **keys = malloc(nkeys * sizeof *keys);
    if (!keys)
        return PIPE_ENOMEM;
    for (size_t i = 0; i < nkeys; i++)
        keys[i] = map->items[2 * i];
    qsort(keys, nkeys, sizeof *keys, key_cmp);
    int rc = 0;
    for (size_t i = 1; i < nkeys; i++) {
        if (key_cmp(&keys[i - 1], &keys[i]) == 0) {
            const pipe_ynode *later = keys[i]->line >= keys[i - 1]->line ? keys[i] : keys[i - 1];
            pipe_errf(err, errsize, "line %d: duplicate key `%.*s`", later->line,
                      (int)(later->len > 200 ? 200 : later->len), later->text);
            rc = PIPE_EFORMAT;
            break;
        }
    }
    free(keys);
    return rc;
}

/* Appends child to the open container on top of the stack. */
static int attach(frame *top, pipe_ynode *child, char *err, size_t errsize)
{
    pipe_ynode *parent = top->node;
    if (parent->type == PIPE_YMAP && parent->n % 2 == 0 && child->type != PIPE_YSCALAR) {
        pipe_errf(err, errsize, "line %d: a mapping key must be a scalar", child->line);
        return PIPE_EFORMAT;
    }
    if (parent->n == top->cap) {
        size_t cap = top->cap ? 2 * top->cap : 8;
        pipe_ynode **items = realloc(parent->items, cap * sizeof *items);
        if (!items)
            return PIPE_ENOMEM;
        parent->items = items;
        top->cap = cap;
    }
    parent->items[parent->n++] = child;
    return 0;
}

static void parser_error(const yaml_parser_t *p, char *err, size_t errsize)
{
    if (p->error == YAML_MEMORY_ERROR) {
        pipe_errf(err, errsize, "out of memory");
        return;
    }
    const char *problem = p->problem ? p->problem : "malformed YAML";
    if (p->context)
        pipe_errf(err, errsize, "line %lu: %s (%s on line %lu)", (unsigned long)p->problem_mark.line + 1, problem,
                  p->context, (unsigned long)p->context_mark.line + 1);
    else
        pipe_errf(err, errsize, "line %lu: %s", (unsigned long)p->problem_mark.line + 1, problem);
}

int pipe_yaml_load(const char *text, size_t len, pipe_ynode **root, char *err, size_t errsize)
{
    yaml_parser_t parser;
    yaml_event_t event;
    frame stack[PIPE_YAML_MAX_DEPTH];
    size_t depth = 0;
    pipe_ynode *doc = NULL;
    int documents = 0;
    int rc = 0;
    bool have_event = false, done = false;

    *root = NULL;
    if (!yaml_parser_initialize(&parser))
        return PIPE_ENOMEM;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);

    while (!done) {
        if (!yaml_parser_parse(&parser, &event)) {
            parser_error(&parser, err, errsize);
            rc = parser.error == YAML_MEMORY_ERROR ? PIPE_ENOMEM : PIPE_EFORMAT;
            goto fail;
        }
        have_event = true;
        int line = (int)(event.start_mark.line < 0x7fffffff ? event.start_mark.line + 1 : 0x7fffffff);
        pipe_ynode *node = NULL;
        switch (event.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++documents > 1) {
                pipe_errf(err, errsize, "line %d: only one YAML document is allowed", line);
                rc = PIPE_EFORMAT;
                goto fail;
            }
            break;
        case YAML_ALIAS_EVENT:
            pipe_errf(err, errsize, "line %d: YAML aliases are not supported", line);
            rc = PIPE_EFORMAT;
            goto fail;
        case YAML_SCALAR_EVENT:
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            pipe_ytype type = event.type == YAML_SCALAR_EVENT          ? PIPE_YSCALAR
                              : event.type == YAML_SEQUENCE_START_EVENT ? PIPE_YSEQ
                                                                        : PIPE_YMAP;
            if ((rc = node_new(type, line, &node)) != 0)
                goto fail;
            if (type == PIPE_YSCALAR) {
                node->len = event.data.scalar.length;
                node->text = pipe_strndup((const char *)event.data.scalar.value, node->len);
                node->plain = event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
                if (!node->text) {
                    pipe_ynode_free(node);
                    rc = PIPE_ENOMEM;
                    goto fail;
                }
            }
            if (depth == 0) {
                doc = node;
            } else if ((rc = attach(&stack[depth - 1], node, err, errsize)) != 0) {
                pipe_ynode_free(node);
                goto fail;
            }
            if (type != PIPE_YSCALAR) {
                if (depth == PIPE_YAML_MAX_DEPTH) {
                    pipe_errf(err, errsize, "line %d: nested deeper than %d levels", line, PIPE_YAML_MAX_DEPTH);
                    rc = PIPE_EFORMAT;
                    goto fail;
                }
                stack[depth].node = node;
                stack[depth].cap = 0;
                depth++;
            }
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (depth == 0) { /* libyaml never does this; be safe */
                rc = PIPE_EFORMAT;
                pipe_errf(err, errsize, "line %d: unbalanced YAML", line);
                goto fail;
            }
            depth--;
            if (stack[depth].node->type == PIPE_YMAP &&
                (rc = check_duplicate_keys(stack[depth].node, err, errsize)) != 0)
                goto fail;
            break;
        default:
            break;
        }
        yaml_event_delete(&event);
        have_event = false;
    }
    yaml_parser_delete(&parser);
    *root = doc;
    return 0;

fail:
    if (have_event)
        yaml_event_delete(&event);
    yaml_parser_delete(&parser);
    pipe_ynode_free(doc);
    if (rc == PIPE_ENOMEM)
        pipe_errf(err, errsize, "out of memory");
    return rc;
}

size_t pipe_ymap_size(const pipe_ynode *map) { return map && map->type == PIPE_YMAP ? map->n / 2 : 0; }

const pipe_ynode *pipe_ymap_key(const pipe_ynode *map, size_t i) { return map->items[2 * i]; }

const pipe_ynode *pipe_ymap_value(const pipe_ynode *map, size_t i) { return map->items[2 * i + 1]; }

const pipe_ynode *pipe_ymap_get(const pipe_ynode *map, const char *key)
{
    if (!map || map->type != PIPE_YMAP)
        return NULL;
    size_t klen = strlen(key);
    for (size_t i = 0; i + 1 < map->n; i += 2) {
        const pipe_ynode *k = map->items[i];
        if (k->len == klen && memcmp(k->text, key, klen) == 0)
            return map->items[i + 1];
    }
    return NULL;
}

bool pipe_ynode_is_null(const pipe_ynode *node)
{
    if (!node || node->type != PIPE_YSCALAR || !node->plain)
        return false;
    return node->len == 0 || strcmp(node->text, "~") == 0 || strcmp(node->text, "null") == 0 ||
           strcmp(node->text, "Null") == 0 || strcmp(node->text, "NULL") == 0;
}

const char *pipe_ynode_str(const pipe_ynode *node)
{
    if (!node || node->type != PIPE_YSCALAR || memchr(node->text, '\0', node->len))
        return NULL;
    return node->text;
}
