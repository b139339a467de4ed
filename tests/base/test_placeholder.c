/* The `{NAME}` placeholder scanner (runtime/base/src/placeholder.c) that
   pipec's E0119 check and the runtime's expansion share: each string as the
   pieces it yields, "kind:text" joined by `|`. */
#include "check.h"
#include "pipe/placeholder.h"

#include <stdio.h>
#include <string.h>

static const char *scan(const char *s)
{
    static const char *const kinds[] = {"text", "brace", "name", "empty", "open", "close"};
    static char out[512];
    size_t used = 0;
    out[0] = '\0';
    pipe_placeholder ph;
    for (size_t pos = 0; pipe_placeholder_next(s, &pos, &ph);) {
        CHECK(ph.end > ph.start && pos == ph.end);
        used += (size_t)snprintf(out + used, sizeof out - used, "%s%s:%.*s", used ? "|" : "", kinds[ph.kind],
                                 (int)(ph.end - ph.start), s + ph.start);
    }
    return out;
}

int main(void)
{
    CHECK_STREQ(scan(""), "");
    CHECK_STREQ(scan("python3"), "text:python3");
    CHECK_STREQ(scan("--lr={lr}"), "text:--lr=|name:{lr}");
    CHECK_STREQ(scan("{{\"a\": {lr}}}"), "brace:{{|text:\"a\": |name:{lr}|brace:}}");
    CHECK_STREQ(scan("{}x"), "empty:{}|text:x");
    /* A lone brace is one byte; the scan goes on after it. */
    CHECK_STREQ(scan("a } b"), "text:a |close:}|text: b");
    CHECK_STREQ(scan("{model"), "open:{|text:model");
    CHECK_STREQ(scan("{ {{"), "open:{|text: |brace:{{");
    CHECK_STREQ(scan("{{}"), "brace:{{|close:}");
    /* A name runs to the first `}`, whatever it holds. */
    CHECK_STREQ(scan("{a{b}c}"), "name:{a{b}|text:c|close:}");
    CHECK_STREQ(scan("{a b}"), "name:{a b}");
    CHECK_STREQ(scan("\xc3\xa9{x}"), "text:\xc3\xa9|name:{x}");
    return check_summary();
}
