#include "session.h"

#include <string.h>

#include "targets/targets.h"

void session_check_options(check_options *o, bool container_targets)
{
    memset(o, 0, sizeof *o);
    o->container_targets = container_targets;
    for (size_t i = 0; i < deploy_target_count && o->nrules < CHECK_RULES_MAX; i++)
        o->rules[o->nrules++] = &deploy_targets[i]->rules;
}

void check_session_init(check_session *s, bool werror)
{
    memset(s, 0, sizeof *s);
    arena_init(&s->arena);
    source_set_init(&s->sources);
    diag_init(&s->diag, &s->arena, &s->sources);
    s->diag.werror = werror;
}

static void check_root(check_session *s, bool container_targets)
{
    check_options opts;
    session_check_options(&opts, container_targets);
    program_check_loaded(&s->pg, &s->arena, &s->diag, &s->sources, s->root, &opts);
}

bool check_session_file(check_session *s, const char *path, bool container_targets, char *err, size_t errsize)
{
    int idx = source_load(&s->sources, path, err, errsize);
    if (idx < 0)
        return false;
    s->root = (uint32_t)idx;
    check_root(s, container_targets);
    return true;
}

void check_session_text(check_session *s, const char *path, const char *text, size_t len, bool container_targets)
{
    s->root = (uint32_t)source_add(&s->sources, path, text, len);
    check_root(s, container_targets);
}

void check_session_free(check_session *s)
{
    program_free(&s->pg);
    source_set_free(&s->sources);
    arena_free(&s->arena);
}
