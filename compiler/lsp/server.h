/* The language server's state and what its parts share: the open
   documents, each with its last check, and the ways to answer. */
#ifndef PIPEC_LSP_SERVER_H
#define PIPEC_LSP_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "session/session.h"
#include "json.h"
#include "rpc.h"
#include "text.h"
#include "util/strbuf.h"

/* JSON-RPC and LSP error codes. */
enum {
    RPC_PARSE_ERROR = -32700,
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
    RPC_INTERNAL_ERROR = -32603,
    LSP_SERVER_NOT_INITIALIZED = -32002,
    LSP_REQUEST_CANCELLED = -32800,
    LSP_REQUEST_FAILED = -32803,
};

typedef struct lsp_doc {
    char *uri;  /* as the editor sent it: diagnostics go back under it */
    char *path; /* the file it names, where imports and sources are found */
    int64_t version;
    char *text; /* NUL-terminated */
    size_t len, cap;
    bool published; /* diagnostics sent for this version */
    /* The check of this version (NULL until something needs it); dropped
       at each change, so memory stays that of one check. */
    check_session *check;
} lsp_doc;

typedef struct lsp_server {
    int out_fd;
    bool out_closed;
    rpc_reader in;
    lsp_doc **docs;
    size_t ndocs, cap;
    bool initialized, shutdown, exit;
    const char *error; /* the message of a handler's error code */
} lsp_server;

/* Documents (document.c). A new text drops the check of the old one. */
void lsp_doc_set_text(lsp_doc *d, const char *text, size_t len);
void lsp_doc_drop_check(lsp_doc *d);
void lsp_doc_free(lsp_doc *d);
/* The open document params.textDocument.uri names, or NULL. */
lsp_doc *lsp_find_doc(lsp_server *s, const json_value *params);
/* The document's check, run now if its text changed since the last one. */
check_session *lsp_doc_check(lsp_doc *d);

/* {"line":L,"character":C} and {"start":...,"end":...}. */
void lsp_put_position(strbuf *sb, lsp_pos p);
void lsp_put_range(strbuf *sb, lsp_pos start, lsp_pos end);
/* The range of bytes [start, end) of a document's checked text (after
   lsp_doc_check). */
void lsp_put_offsets(strbuf *sb, const lsp_doc *d, uint32_t start, uint32_t end);
/* {"uri":...,"range":...} of a span in the document or a file it imports. */
void lsp_put_location(strbuf *sb, const lsp_doc *d, const check_session *c, span sp);
/* The document a request names, checked, and the byte offset of its
   params.position; NULL (with s->error) when there is none. */
lsp_doc *lsp_request_doc(lsp_server *s, const json_value *params, uint32_t *offset);

/* A position from params (a request's "position"); false when absent. */
bool lsp_get_position(const json_value *v, lsp_pos *out);

/* Messages to the editor (send.c): an answer (result: JSON text, NULL or
   "" for null), an error answer, a notification. id NULL: null. */
void lsp_reply(lsp_server *s, const json_value *id, const char *result);
void lsp_reply_error(lsp_server *s, const json_value *id, int code, const char *message);
void lsp_notify(lsp_server *s, const char *method, const char *params_json);

/* Diagnostics (diagnostics.c): publishes d's current ones, or an empty
   list for a closed document (d->text NULL). */
void lsp_publish_diagnostics(lsp_server *s, lsp_doc *d);
/* "file:///a%20b/c.pipe" -> "/a b/c.pipe", and back (document.c). */
char *lsp_uri_to_path(const char *uri);
void lsp_put_file_uri(strbuf *sb, const char *path);

/* Requests about a document: each writes its result's JSON into out and
   returns 0, or returns an error code with s->error set. */
int lsp_formatting(lsp_server *s, const json_value *params, strbuf *out);
int lsp_range_formatting(lsp_server *s, const json_value *params, strbuf *out);
int lsp_document_symbols(lsp_server *s, const json_value *params, strbuf *out);
int lsp_workspace_symbols(lsp_server *s, const json_value *params, strbuf *out);
int lsp_definition(lsp_server *s, const json_value *params, strbuf *out);
int lsp_references(lsp_server *s, const json_value *params, strbuf *out);
int lsp_hover(lsp_server *s, const json_value *params, strbuf *out);
int lsp_completion(lsp_server *s, const json_value *params, strbuf *out);
int lsp_prepare_rename(lsp_server *s, const json_value *params, strbuf *out);
int lsp_rename(lsp_server *s, const json_value *params, strbuf *out);
int lsp_code_action(lsp_server *s, const json_value *params, strbuf *out);
int lsp_semantic_tokens(lsp_server *s, const json_value *params, strbuf *out);

#endif
