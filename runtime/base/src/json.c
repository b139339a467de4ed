/* JSON string literals, for every JSON pipec and the runtime write. */
#include <stdio.h>
#include <string.h>

#include "pipe/base.h"

void pipe_json_string(const char *s, unsigned flags, pipe_append_fn *append, void *sink)
{
    if (!s) {
        append(sink, "null", 4);
        return;
    }
    append(sink, "\"", 1);
    size_t n = strlen(s), start = 0, i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        char rep[8];
        size_t skip = 1;
        if (c == '"' || c == '\\')
            snprintf(rep, sizeof rep, "\\%c", c);
        else if (c == '\n')
            snprintf(rep, sizeof rep, "\\n");
        else if (c == '\t')
            snprintf(rep, sizeof rep, "\\t");
        else if (c == '\r' && (flags & PIPE_JSON_ESCAPE_CR))
            snprintf(rep, sizeof rep, "\\r");
        else if (c < 0x20 || c == 0x7f)
            snprintf(rep, sizeof rep, "\\u%04x", c);
        else if (c >= 0x80 && (flags & PIPE_JSON_FIX_UTF8) && !(skip = pipe_utf8_valid_prefix(s + i, n - i)))
            snprintf(rep, sizeof rep, "\\ufffd");
        else {
            i += skip; /* stands for itself, in a run */
            continue;
        }
        append(sink, s + start, i - start);
        append(sink, rep, strlen(rep));
        i++;
        start = i;
    }
    append(sink, s + start, i - start);
    append(sink, "\"", 1);
}
