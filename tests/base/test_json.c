/* JSON strings (runtime/base/src/json.c) and UTF-8 (utf8.c): pipec writes
   them with PIPE_JSON_ESCAPE_CR | PIPE_JSON_FIX_UTF8, the runtime with no
   flag; each way's bytes are pinned here. */
#include "check.h"
#include "pipe/base.h"

#include <string.h>

static char out[256];
static size_t used;

static void append(void *sink, const char *s, size_t n)
{
    CHECK(sink == out);
    if (used + n < sizeof out) {
        memcpy(out + used, s, n);
        used += n;
    }
    out[used] = '\0';
}

static const char *json(const char *s, unsigned flags)
{
    used = 0;
    out[0] = '\0';
    pipe_json_string(s, flags, append, out);
    return out;
}

#define PIPEC (PIPE_JSON_ESCAPE_CR | PIPE_JSON_FIX_UTF8)

int main(void)
{
    CHECK_EQ_INT(pipe_utf8_valid_prefix("a", 1), 1);
    CHECK_EQ_INT(pipe_utf8_valid_prefix("\xc3\xa9", 2), 2);
    CHECK_EQ_INT(pipe_utf8_valid_prefix("\xc3\xa9", 1), 0);             /* cut short */
    CHECK_EQ_INT(pipe_utf8_valid_prefix("\xe2\x82\xac", 3), 3);
    CHECK_EQ_INT(pipe_utf8_valid_prefix("\xf0\x9f\x98\x80", 4), 4);
    CHECK_EQ_INT(pipe_utf8_valid_prefix("\xc0\x80", 2), 0);             /* overlong */
    CHECK_EQ_INT(pipe_utf8_valid_prefix("\xed\xa0\x80", 3), 0);         /* a surrogate */
    CHECK_EQ_INT(pipe_utf8_valid_prefix("\xf4\x90\x80\x80", 4), 0);     /* past U+10FFFF */
    CHECK_EQ_INT(pipe_utf8_valid_prefix("\x80", 1), 0);
    CHECK_EQ_INT(pipe_utf8_valid_prefix("", 0), 0);

    CHECK_STREQ(json(NULL, 0), "null");
    CHECK_STREQ(json(NULL, PIPEC), "null");
    for (unsigned flags = 0; flags <= PIPEC; flags++) {
        CHECK_STREQ(json("", flags), "\"\"");
        CHECK_STREQ(json("plain text", flags), "\"plain text\"");
        CHECK_STREQ(json("a\"b\\c", flags), "\"a\\\"b\\\\c\"");
        CHECK_STREQ(json("1\n2\t3", flags), "\"1\\n2\\t3\"");
        CHECK_STREQ(json("\x01\x1f\x7f", flags), "\"\\u0001\\u001f\\u007f\"");
        CHECK_STREQ(json("caf\xc3\xa9 \xe2\x82\xac", flags), "\"caf\xc3\xa9 \xe2\x82\xac\"");
    }
    /* pipec: `\r`, and U+FFFD for each byte that is not UTF-8. */
    CHECK_STREQ(json("a\rb", PIPEC), "\"a\\rb\"");
    CHECK_STREQ(json("x\xff\xc3(y", PIPEC), "\"x\\ufffd\\ufffd(y\"");
    CHECK_STREQ(json("\xed\xa0\x80", PIPEC), "\"\\ufffd\\ufffd\\ufffd\"");
    /* The runtime: `\u000d`, and bytes of 0x80 and above as they are. */
    CHECK_STREQ(json("a\rb", 0), "\"a\\u000db\"");
    CHECK_STREQ(json("x\xff\xc3(y", 0), "\"x\xff\xc3(y\"");
    return check_summary();
}
