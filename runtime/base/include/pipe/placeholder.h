/* The `{NAME}` placeholders of a command step's arguments
   (docs/command-steps.md). pipec checks them (E0119) and the runtime expands
   them, both with this one scanner, so that the two read an argument the
   same way: `{{` and `}}` stand for one brace, and a `{` that does not
   start `{{` runs to the first `}` after it. */
#ifndef PIPE_PLACEHOLDER_H
#define PIPE_PLACEHOLDER_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    PIPE_PH_TEXT,       /* bytes without a brace, as they are */
    PIPE_PH_BRACE,      /* `{{` or `}}`: one literal brace, s[start] */
    PIPE_PH_NAME,       /* `{NAME}`: the name is s[start + 1, end - 1) */
    PIPE_PH_EMPTY,      /* `{}`: names nothing */
    PIPE_PH_LONE_OPEN,  /* a `{` with no `}` anywhere after it */
    PIPE_PH_LONE_CLOSE, /* a `}` that closes nothing */
} pipe_placeholder_kind;

typedef struct pipe_placeholder {
    pipe_placeholder_kind kind;
    size_t start, end; /* its bytes: s[start, end) */
} pipe_placeholder;

/* The piece of s that starts at *pos, and *pos moved past it; false at the
   end of s. A lone brace is one byte long, so that a caller that reports
   every mistake goes on with the byte after it. */
bool pipe_placeholder_next(const char *s, size_t *pos, pipe_placeholder *ph);

#ifdef __cplusplus
}
#endif

#endif
