/* The server's loop: reads every message waiting, answers them in order
   (a request cancelled by a later `$/cancelRequest` among them gets
   RequestCancelled instead), and publishes the diagnostics of changed
   documents once no more input is waiting (a burst of keystrokes is
   checked once, at its end). */
#include "lsp.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "version.h"

/* ---- notifications ---- */

static int did_open(lsp_server *s, const json_value *params)
{
    const json_value *td = json_get(params, "textDocument");
    const char *uri = json_string(json_get(td, "uri"));
    const json_value *text = json_get(td, "text");
    int64_t version = 0;
    if (!uri || (text && text->kind != JSON_STRING) || !json_integer(json_get(td, "version"), &version))
        return RPC_INVALID_PARAMS;
    lsp_doc *d = lsp_find_doc(s, params);
    if (!d) {
        d = xcalloc(1, sizeof *d);
        d->uri = xstrdup(uri);
        d->path = lsp_uri_to_path(uri);
        if (s->ndocs == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 8;
            s->docs = xrealloc(s->docs, s->cap * sizeof *s->docs);
        }
        s->docs[s->ndocs++] = d;
    }
    lsp_doc_drop_check(d);
    /* An empty document's text is "" and reads as absent. */
    lsp_doc_set_text(d, text ? text->str : "", text ? text->len : 0);
    d->version = version;
    d->published = false;
    return 0;
}

static int did_change(lsp_server *s, const json_value *params)
{
    lsp_doc *d = lsp_find_doc(s, params);
    int64_t version;
    if (!d || !json_integer(json_get(json_get(params, "textDocument"), "version"), &version))
        return RPC_INVALID_PARAMS;
    const json_value *changes = json_get(params, "contentChanges");
    if (changes && changes->kind != JSON_ARRAY)
        return RPC_INVALID_PARAMS;
    /* All checked before any is applied: a change is taken whole or not at all. */
    for (const json_value *c = changes ? changes->first : NULL; c; c = c->next) {
        const json_value *text = json_get(c, "text"), *range = json_get(c, "range");
        lsp_pos a, b;
        if ((text && text->kind != JSON_STRING) ||
            (range && (!lsp_get_position(json_get(range, "start"), &a) ||
                       !lsp_get_position(json_get(range, "end"), &b))))
            return RPC_INVALID_PARAMS;
    }
    for (const json_value *c = changes ? changes->first : NULL; c; c = c->next) {
        const json_value *text = json_get(c, "text"), *range = json_get(c, "range");
        const char *t = text ? text->str : "";
        size_t tlen = text ? text->len : 0;
        if (!range) {
            lsp_doc_set_text(d, t, tlen);
            continue;
        }
        lsp_pos a, b;
        lsp_get_position(json_get(range, "start"), &a);
        lsp_get_position(json_get(range, "end"), &b);
        size_t start = text_offset(d->text, d->len, a), end = text_offset(d->text, d->len, b);
        if (end < start)
            end = start;
        text_splice(&d->text, &d->len, &d->cap, start, end, t, tlen);
    }
    lsp_doc_drop_check(d);
    d->version = version;
    d->published = false;
    return 0;
}

static int did_close(lsp_server *s, const json_value *params)
{
    lsp_doc *d = lsp_find_doc(s, params);
    if (!d)
        return RPC_INVALID_PARAMS;
    for (size_t i = 0; i < s->ndocs; i++)
        if (s->docs[i] == d)
            s->docs[i] = s->docs[--s->ndocs];
    /* Its diagnostics go with it. */
    strbuf p = STRBUF_INIT;
    sb_puts(&p, "{\"uri\":");
    sb_json_string(&p, d->uri);
    sb_puts(&p, ",\"diagnostics\":[]}");
    lsp_notify(s, "textDocument/publishDiagnostics", sb_cstr(&p));
    sb_free(&p);
    lsp_doc_free(d);
    return 0;
}

/* ---- requests ---- */

static int initialize(lsp_server *s, const json_value *params, strbuf *out)
{
    (void)params;
    s->initialized = true;
    sb_puts(out, "{\"capabilities\":{"
                 "\"positionEncoding\":\"utf-16\","
                 "\"textDocumentSync\":{\"openClose\":true,\"change\":2},"
                 "\"documentFormattingProvider\":true,"
                 "\"documentRangeFormattingProvider\":true,"
                 "\"documentSymbolProvider\":true,"
                 "\"workspaceSymbolProvider\":true,"
                 "\"definitionProvider\":true,"
                 "\"referencesProvider\":true,"
                 "\"hoverProvider\":true,"
                 "\"semanticTokensProvider\":{\"legend\":{\"tokenTypes\":[\"decorator\",\"property\","
                 "\"function\",\"namespace\",\"parameter\",\"variable\",\"type\",\"string\"],"
                 "\"tokenModifiers\":[\"declaration\"]},\"full\":true},"
                 "\"codeActionProvider\":{\"codeActionKinds\":[\"quickfix\"]},"
                 "\"renameProvider\":{\"prepareProvider\":true},"
                 "\"completionProvider\":{\"triggerCharacters\":[\"@\",\"(\",\",\",\"{\"]}"
                 "},\"serverInfo\":{\"name\":\"pipec\",\"version\":");
    sb_json_string(out, PIPEC_VERSION);
    sb_puts(out, "}}");
    return 0;
}

static int shutdown_request(lsp_server *s, const json_value *params, strbuf *out)
{
    (void)params;
    (void)out;
    s->shutdown = true;
    return 0;
}

typedef struct request_method {
    const char *name;
    int (*fn)(lsp_server *s, const json_value *params, strbuf *out);
} request_method;

static const request_method requests[] = {
    {"initialize", initialize},
    {"shutdown", shutdown_request},
    {"textDocument/formatting", lsp_formatting},
    {"textDocument/rangeFormatting", lsp_range_formatting},
    {"textDocument/documentSymbol", lsp_document_symbols},
    {"workspace/symbol", lsp_workspace_symbols},
    {"textDocument/definition", lsp_definition},
    {"textDocument/references", lsp_references},
    {"textDocument/hover", lsp_hover},
    {"textDocument/completion", lsp_completion},
    {"textDocument/prepareRename", lsp_prepare_rename},
    {"textDocument/rename", lsp_rename},
    {"textDocument/codeAction", lsp_code_action},
    {"textDocument/semanticTokens/full", lsp_semantic_tokens},
};

typedef struct notification_method {
    const char *name;
    int (*fn)(lsp_server *s, const json_value *params);
} notification_method;

static const notification_method notifications[] = {
    {"textDocument/didOpen", did_open},
    {"textDocument/didChange", did_change},
    {"textDocument/didClose", did_close},
};

static const char *error_text(int code)
{
    switch (code) {
    case RPC_INVALID_PARAMS: return "invalid params";
    case RPC_METHOD_NOT_FOUND: return "method not found";
    default: return "request failed";
    }
}

static void publish_changed(lsp_server *s)
{
    for (size_t i = 0; i < s->ndocs; i++)
        if (!s->docs[i]->published)
            lsp_publish_diagnostics(s, s->docs[i]);
}

static void handle_request(lsp_server *s, const char *method, const json_value *id, const json_value *params)
{
    /* An answer never comes before the diagnostics of the text it is about. */
    publish_changed(s);
    if (!s->initialized && strcmp(method, "initialize") != 0) {
        lsp_reply_error(s, id, LSP_SERVER_NOT_INITIALIZED, "the server is not initialized yet");
        return;
    }
    if (s->initialized && strcmp(method, "initialize") == 0) {
        lsp_reply_error(s, id, RPC_INVALID_REQUEST, "the server is already initialized");
        return;
    }
    if (s->shutdown) {
        lsp_reply_error(s, id, RPC_INVALID_REQUEST, "the server is shutting down");
        return;
    }
    for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++) {
        if (strcmp(method, requests[i].name) != 0)
            continue;
        strbuf out = STRBUF_INIT;
        s->error = NULL;
        int rc = requests[i].fn(s, params, &out);
        if (rc)
            lsp_reply_error(s, id, rc, s->error ? s->error : error_text(rc));
        else
            lsp_reply(s, id, sb_cstr(&out));
        sb_free(&out);
        return;
    }
    lsp_reply_error(s, id, RPC_METHOD_NOT_FOUND, "method not found");
}

static void handle_notification(lsp_server *s, const char *method, const json_value *params)
{
    if (strcmp(method, "exit") == 0) {
        s->exit = true;
        return;
    }
    /* Before `initialize` and after `shutdown` notifications are dropped;
       unknown ones ($/setTrace, didSave, ...) too. $/cancelRequest was
       read with its batch (cancelled_ids): a request it names that came
       before it in the batch was answered RequestCancelled; one already
       answered needs nothing more. */
    if (!s->initialized || s->shutdown)
        return;
    for (size_t i = 0; i < sizeof notifications / sizeof notifications[0]; i++)
        if (strcmp(method, notifications[i].name) == 0) {
            if (notifications[i].fn(s, params) != 0)
                fprintf(stderr, "pipec lsp: ignored %s with invalid params\n", method);
            return;
        }
}

/* The key of a request id in the batch's list of cancelled ones. */
static void id_key(strbuf *sb, const json_value *id)
{
    sb_reset(sb);
    sb_putc(sb, id->kind == JSON_NUMBER ? 'n' : 's');
    sb_puts(sb, id->str ? id->str : "");
    sb_putc(sb, '\n');
}

static bool is_cancelled(const strbuf *cancelled, const json_value *id)
{
    if (!cancelled->len)
        return false;
    /* The list is "\nKEY\nKEY\n": "\nKEY\n" matches one whole key. */
    strbuf key = STRBUF_INIT;
    id_key(&key, id);
    strbuf line = STRBUF_INIT;
    sb_putc(&line, '\n');
    sb_puts(&line, sb_cstr(&key));
    bool found = strstr(cancelled->data, sb_cstr(&line)) != NULL;
    sb_free(&line);
    sb_free(&key);
    return found;
}

/* A message's body, kept past the next read. */
static char *copy_body(const char *body, size_t len)
{
    char *p = xmalloc(len + 1);
    memcpy(p, body, len);
    p[len] = '\0';
    return p;
}

/* The ids of the $/cancelRequest notifications among a batch's bodies, as
   "\nKEY\nKEY\n...". */
static void cancelled_ids(char **bodies, size_t *lens, size_t n, strbuf *out)
{
    strbuf key = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (!bodies[i] || !strstr(bodies[i], "$/cancelRequest"))
            continue;
        arena a;
        arena_init(&a);
        const json_value *msg = json_parse(&a, bodies[i], lens[i]);
        const json_value *id = json_get(json_get(msg, "params"), "id");
        const char *method = json_string(json_get(msg, "method"));
        if (method && strcmp(method, "$/cancelRequest") == 0 && !json_get(msg, "id") && id &&
            (id->kind == JSON_NUMBER || id->kind == JSON_STRING)) {
            if (!out->len)
                sb_putc(out, '\n');
            id_key(&key, id);
            sb_puts(out, sb_cstr(&key));
        }
        arena_free(&a);
    }
    sb_free(&key);
}

static void handle_message(lsp_server *s, const char *body, size_t len, const strbuf *cancelled)
{
    arena a;
    arena_init(&a);
    const json_value *msg = json_parse(&a, body, len);
    if (!msg) {
        lsp_reply_error(s, NULL, RPC_PARSE_ERROR, "the message is not JSON");
        arena_free(&a);
        return;
    }
    const json_value *id = json_get(msg, "id"), *params = json_get(msg, "params");
    const char *method = json_string(json_get(msg, "method"));
    bool has_id = id && (id->kind == JSON_NUMBER || id->kind == JSON_STRING);
    if (msg->kind != JSON_OBJECT || (id && !has_id && id->kind != JSON_NULL) ||
        (params && params->kind != JSON_OBJECT && params->kind != JSON_ARRAY && params->kind != JSON_NULL)) {
        lsp_reply_error(s, has_id ? id : NULL, RPC_INVALID_REQUEST, "not a JSON-RPC request or notification");
    } else if (!method) {
        /* A response to a request of ours: the server sends none. */
        if (!json_get(msg, "result") && !json_get(msg, "error"))
            lsp_reply_error(s, has_id ? id : NULL, RPC_INVALID_REQUEST, "a message without a method");
    } else if (has_id && is_cancelled(cancelled, id) && strcmp(method, "initialize") != 0 &&
               strcmp(method, "shutdown") != 0) { /* the lifecycle's are always answered */
        publish_changed(s);
        lsp_reply_error(s, id, LSP_REQUEST_CANCELLED, "cancelled");
    } else if (has_id) {
        handle_request(s, method, id, params);
    } else {
        handle_notification(s, method, params);
    }
    arena_free(&a);
}

int lsp_serve(int in_fd, int out_fd)
{
    /* A closed editor is a write error, not a signal. */
    signal(SIGPIPE, SIG_IGN);
    lsp_server s = {.out_fd = out_fd};
    rpc_reader_init(&s.in, in_fd);
    /* A batch: the messages waiting (at most BATCH), each body copied; a
       frame that was not one is a NULL body with its reason. */
    enum { BATCH = 256 };
    char *bodies[BATCH], *bad[BATCH];
    size_t lens[BATCH];
    bool eof = false;
    while (!s.exit && !s.out_closed && !eof) {
        size_t n = 0;
        do {
            const char *body;
            size_t len;
            char err[128];
            rpc_status st = rpc_read(&s.in, &body, &len, err, sizeof err);
            if (st == RPC_EOF) {
                eof = true;
                break;
            }
            bodies[n] = st == RPC_MESSAGE ? copy_body(body, len) : NULL;
            bad[n] = st == RPC_MESSAGE ? NULL : xstrdup(err);
            lens[n++] = len;
        } while (n < BATCH && rpc_pending(&s.in));
        strbuf cancelled = STRBUF_INIT;
        cancelled_ids(bodies, lens, n, &cancelled);
        for (size_t i = 0; i < n; i++) {
            if (!s.exit && !s.out_closed) {
                if (bodies[i]) {
                    handle_message(&s, bodies[i], lens[i], &cancelled);
                } else {
                    fprintf(stderr, "pipec lsp: skipped %s\n", bad[i]);
                    lsp_reply_error(&s, NULL, RPC_PARSE_ERROR, bad[i]);
                }
            }
            free(bodies[i]);
            free(bad[i]);
        }
        sb_free(&cancelled);
        if (!s.exit && !eof && !rpc_pending(&s.in))
            publish_changed(&s);
    }
    for (size_t i = 0; i < s.ndocs; i++)
        lsp_doc_free(s.docs[i]);
    free(s.docs);
    rpc_reader_free(&s.in);
    return s.exit && s.shutdown ? 0 : 1;
}
