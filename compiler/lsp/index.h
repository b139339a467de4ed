/* The names of a checked document and what each one is: every occurrence
   of a step, a step's parameter, a pipeline, a pipeline's parameter, an
   artifact, a decorator and a decorator's option, with its declaration
   marked. Built from the checker's trees (every file the document imports,
   for the steps); definition, references and hover look names up here. */
#ifndef PIPEC_LSP_INDEX_H
#define PIPEC_LSP_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "session/session.h"

typedef enum {
    OCC_STEP,
    OCC_STEP_PARAM,     /* scope: the step */
    OCC_PIPELINE,
    OCC_PIPELINE_PARAM, /* scope: the pipeline */
    OCC_ARTIFACT,       /* scope: the pipeline that binds it */
    OCC_DECORATOR,
    OCC_OPTION,         /* scope: the decorator */
} occ_kind;

typedef struct occurrence {
    occ_kind kind;
    const char *name;
    const char *scope; /* "" where the kind has none */
    span sp;
    bool definition;
} occurrence;

typedef struct doc_index {
    occurrence *items;
    size_t len, cap;
} doc_index;

void doc_index_build(doc_index *ix, const check_session *c);
void doc_index_free(doc_index *ix);
/* The occurrence in file whose name covers offset (its end included: the
   cursor just after a name is on it), or NULL. */
const occurrence *doc_index_at(const doc_index *ix, uint32_t file, uint32_t offset);
/* Whether a and b name the same thing. */
bool occ_same(const occurrence *a, const occurrence *b);
/* Its declaration, or NULL (an unknown step, a misspelt name). */
const occurrence *doc_index_definition(const doc_index *ix, const occurrence *o);

/* A request about the name at params.position: its document (checked),
   the index, and the occurrence there (NULL when none). */
typedef struct name_lookup {
    struct lsp_doc *doc;
    check_session *check;
    doc_index ix;
    const occurrence *at;
    uint32_t offset; /* of the position, in the document's text */
} name_lookup;

struct lsp_server;
struct json_value;
/* False (with s->error) when params name no open document or position. */
bool name_lookup_init(name_lookup *l, struct lsp_server *s, const struct json_value *params);
void name_lookup_free(name_lookup *l);

#endif
