/* Messages to the editor: answers, errors and notifications, framed. */
#include "server.h"

static void send(lsp_server *s, strbuf *msg)
{
    if (!s->out_closed && !rpc_write(s->out_fd, sb_cstr(msg), msg->len))
        s->out_closed = true;
}

/* The id echoed as it came: a number or a string (null when unknown). */
static void put_id(strbuf *sb, const json_value *id)
{
    if (id && id->kind == JSON_NUMBER)
        sb_puts(sb, id->str);
    else if (id && id->kind == JSON_STRING)
        sb_json_string(sb, id->str);
    else
        sb_puts(sb, "null");
}

void lsp_reply(lsp_server *s, const json_value *id, const char *result)
{
    strbuf msg = STRBUF_INIT;
    sb_puts(&msg, "{\"jsonrpc\":\"2.0\",\"id\":");
    put_id(&msg, id);
    sb_printf(&msg, ",\"result\":%s}", result && *result ? result : "null");
    send(s, &msg);
    sb_free(&msg);
}

void lsp_reply_error(lsp_server *s, const json_value *id, int code, const char *message)
{
    strbuf msg = STRBUF_INIT;
    sb_puts(&msg, "{\"jsonrpc\":\"2.0\",\"id\":");
    put_id(&msg, id);
    sb_printf(&msg, ",\"error\":{\"code\":%d,\"message\":", code);
    sb_json_string(&msg, message);
    sb_puts(&msg, "}}");
    send(s, &msg);
    sb_free(&msg);
}

void lsp_notify(lsp_server *s, const char *method, const char *params_json)
{
    strbuf msg = STRBUF_INIT;
    sb_puts(&msg, "{\"jsonrpc\":\"2.0\",\"method\":");
    sb_json_string(&msg, method);
    sb_printf(&msg, ",\"params\":%s}", params_json);
    send(s, &msg);
    sb_free(&msg);
}
