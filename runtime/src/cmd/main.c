/* pipe_main: the bundle executable's entry point. Checks that the driver
   and the runtime agree (ABI version, step tables against the embedded
   manifest), then dispatches the command. */
#include <stdio.h>
#include <string.h>

#include "cliopt.h"
#include "commands.h"
#include "util/cli.h"
#include "util/followup.h"
#include "pipe/driver.h"
#include "pipe/manifest.h"
#include "util/util.h"

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path ? path : "pipeline";
}

static void usage(FILE *out, const char *exe, const pipe_manifest *m)
{
    if (m)
        fprintf(out, "%s: the bundle of pipeline %s%s%s%s.\n\n", exe, m->pipeline, m->source ? " (built from " : "",
                m->source ? m->source : "", m->source ? ")" : "");
    fprintf(out, "usage: %s COMMAND [OPTIONS]\n\ncommands:\n", exe);
    pipe_commands_list(out);
    fprintf(out, "\n"
                 "RUN is a run id, a unique prefix or part of one (its random part), or `latest` (the default).\n"
                 "The store is --store, else $PIPE_STORE, else .pipe in the working directory.\n"
                 "Exit status: 0 success, 1 a step failed, 2 usage or configuration error.\n");
}

/* The implementation of step `name`: a generated driver lists its native
   steps in the manifest's order, so the one after the previous match is
   tried first (start-up stays linear in the number of steps); any order
   is accepted. */
static const pipe_step_impl *match_impl(const pipe_program *prog, const char *name, size_t *next)
{
    for (size_t k = 0; k < prog->nsteps; k++) {
        size_t j = (*next + k) % prog->nsteps;
        if (prog->steps[j].name && strcmp(prog->steps[j].name, name) == 0) {
            *next = j + 1;
            return &prog->steps[j];
        }
    }
    return NULL;
}

/* Every native step of the manifest has an implementation whose argument
   struct has one field per parameter, same names, same types, in order (a
   command step has none: its program is in the manifest). */
static int check_steps(const pipe_program *prog, const pipe_manifest *m, char *err, size_t errsize)
{
    size_t next = 0;
    for (size_t i = 0; i < m->nsteps; i++) {
        const pipe_mstep *s = &m->steps[i];
        if (pipe_step_is_command(s))
            continue;
        const pipe_step_impl *impl = match_impl(prog, s->name, &next);
        if (!impl || !impl->fn) {
            pipe_errf(err, errsize, "step %s of the manifest has no implementation in the driver", s->name);
            return PIPE_EABI;
        }
        if (impl->nfields != s->nparams || (impl->nfields > 0 && !impl->fields)) {
            pipe_errf(err, errsize, "step %s: the manifest has %zu parameters, the driver's argument struct %zu fields",
                      s->name, s->nparams, impl->nfields);
            return PIPE_EABI;
        }
        for (size_t k = 0; k < s->nparams; k++) {
            const pipe_field *f = &impl->fields[k];
            const pipe_mparam *p = &s->params[k];
            if (!f->name || strcmp(f->name, p->name) != 0) {
                pipe_errf(err, errsize, "step %s: parameter %zu is `%s` in the manifest, `%s` in the driver", s->name,
                          k + 1, p->name, f->name ? f->name : "(null)");
                return PIPE_EABI;
            }
            if (f->type != p->type) {
                pipe_errf(err, errsize, "step %s: parameter `%s` is %s in the manifest, %s in the driver", s->name,
                          p->name, pipe_type_name(p->type), pipe_type_name(f->type));
                return PIPE_EABI;
            }
            if (f->offset > impl->args_size || pipe_type_size(f->type) > impl->args_size - f->offset) {
                pipe_errf(err, errsize, "step %s: field `%s` lies outside its argument struct (%zu bytes)", s->name,
                          f->name, impl->args_size);
                return PIPE_EABI;
            }
        }
    }
    return 0;
}

int pipe_main(const pipe_program *program, int argc, char **argv)
{
    const char *exe = base_name(argc > 0 ? argv[0] : NULL);
    pipe_malloc_fast_bins(false); /* before the manifest's allocations (util.h) */
    pipe_followup_init(argc > 0 ? argv[0] : NULL);
    char err[1024] = "";
    pipe_manifest *m = NULL;
    int status = PIPE_EXIT_USAGE;

    if (!program || program->abi_version != PIPE_ABI_VERSION) {
        fprintf(stderr,
                "%s: error: the driver was generated for runtime ABI version %d, this runtime is version %d; "
                "rebuild the bundle with a matching pipec\n",
                exe, program ? program->abi_version : -1, PIPE_ABI_VERSION);
        return PIPE_EXIT_USAGE;
    }
    int rc = pipe_manifest_parse(program->manifest, program->manifest ? program->manifest_len : 0, &m, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "%s: error: the embedded manifest (bundle.yaml): %s\n", exe, err);
        return PIPE_EXIT_USAGE;
    }
    if ((rc = check_steps(program, m, err, sizeof err)) != 0) {
        fprintf(stderr, "%s: error: the driver does not match its manifest: %s (%s)\n", exe, err, pipe_strerror(rc));
        goto done;
    }

    if (argc < 2) {
        usage(stderr, exe, m);
        goto done;
    }
    const char *name = argv[1];
    const pipe_command *c = pipe_commands_find(name);
    if (pipe_opt_is_help(name) || strcmp(name, "help") == 0) {
        usage(stdout, exe, m);
        status = PIPE_EXIT_OK;
    } else if (c) {
        status = pipe_commands_run(c, program, m, argc - 1, argv + 1);
    } else {
        fprintf(stderr, "%s: error: unknown command `%s`\n\n", exe, name);
        usage(stderr, exe, m);
    }

done:
    pipe_manifest_free(m);
    fflush(stdout);
    return status;
}
