#include "session.h"

#include <string.h>

void check_session_init(check_session *s, bool werror)
{
    memset(s, 0, sizeof *s);
    arena_init(&s->arena);
    source_set_init(&s->sources);
    diag_init(&s->diag, &s->arena, &s->sources);
    s->diag.werror = werror;
}

bool check_session_file(check_session *s, const char *path, const check_options *opts, char *err, size_t errsize)
{
    int idx = source_load(&s->sources, path, err, errsize);
    if (idx < 0)
        return false;
    s->root = (uint32_t)idx;
    program_check_loaded(&s->pg, &s->arena, &s->diag, &s->sources, s->root, opts);
    return true;
}

void check_session_text(check_session *s, const char *path, const char *text, size_t len,
                        const check_options *opts)
{
    s->root = (uint32_t)source_add(&s->sources, path, text, len);
    program_check_loaded(&s->pg, &s->arena, &s->diag, &s->sources, s->root, opts);
}

void check_session_free(check_session *s)
{
    program_free(&s->pg);
    source_set_free(&s->sources);
    arena_free(&s->arena);
}
