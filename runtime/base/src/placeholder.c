/* The `{NAME}` placeholder grammar, read by pipec's check (E0119) and the
   runtime's expansion alike. */
#include <string.h>

#include "pipe/placeholder.h"

bool pipe_placeholder_next(const char *s, size_t *pos, pipe_placeholder *ph)
{
    size_t i = *pos;
    if (!s[i])
        return false;
    ph->start = i;
    if ((s[i] == '{' && s[i + 1] == '{') || (s[i] == '}' && s[i + 1] == '}')) {
        ph->kind = PIPE_PH_BRACE;
        ph->end = i + 2;
    } else if (s[i] == '}') {
        ph->kind = PIPE_PH_LONE_CLOSE;
        ph->end = i + 1;
    } else if (s[i] == '{') {
        const char *close = strchr(s + i + 1, '}');
        if (!close) {
            ph->kind = PIPE_PH_LONE_OPEN;
            ph->end = i + 1;
        } else {
            ph->end = (size_t)(close - s) + 1;
            ph->kind = ph->end == i + 2 ? PIPE_PH_EMPTY : PIPE_PH_NAME;
        }
    } else {
        ph->kind = PIPE_PH_TEXT;
        ph->end = i + strcspn(s + i, "{}");
    }
    *pos = ph->end;
    return true;
}
