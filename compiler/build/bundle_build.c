/* The driver of `pipec build`: collects the steps, runs the generator of
   each target the build selects (the table of targets/targets.c, `local`
   first, then the images every other target names), then
   pipec-rebuild.cmake and the list of files, writes the files all or
   nothing, and removes those of a previous build it no longer writes. */
#include "build.h"
#include "bundle_list.h"

#include <stdio.h>
#include <string.h>

#include "util/write_file.h"
#include "util/write_set.h"

/* The steps, parallel to the manifest's; which of them some invocation
   runs on a GPU. */
static void collect_steps(bundle *b)
{
    b->steps = arena_alloc(b->arena, (b->mf->nsteps + 1) * sizeof *b->steps);
    for (size_t i = 0; i < b->mf->nsteps; i++) {
        b->steps[i].m = &b->mf->steps[i];
        b->steps[i].ms = &b->model->steps[i];
    }
    for (size_t i = 0; i < b->mf->ninvocations; i++) {
        const pipe_minvocation *inv = &b->mf->invocations[i];
        bool command = pipe_step_is_command(&b->mf->steps[inv->step]);
        b->has_commands = b->has_commands || command;
        if (pipe_invocation_needs_gpu(inv)) {
            b->steps[inv->step].needs_gpu = true;
            /* The device glue is for native steps: a program picks its GPU itself. */
            b->needs_cuda = b->needs_cuda || !command;
        }
    }
}

/* Every file of the bundle, all or nothing (write_set.h): a build that
   fails half-way leaves the previous bundle as it was. */
static int write_outputs(bundle *b, char *err, size_t errsize)
{
    write_set *ws = write_set_new();
    int rc = 0;
    for (size_t i = 0; i < b->files.len && rc == 0; i++) {
        bundle_file *f = b->files.items[i];
        char *path = arena_printf(b->arena, "%s/%s", b->opts->out_dir, f->path);
        rc = write_set_stage(ws, path, sb_cstr(&f->text), f->text.len, f->executable, err, errsize);
    }
    if (rc == 0)
        rc = write_set_commit(ws, err, errsize);
    if (rc == 0 && b->opts->verbose) {
        for (size_t i = 0; i < write_set_count(ws); i++)
            printf("pipec: wrote %s\n", write_set_path(ws, i));
        if (write_set_count(ws) == 0)
            printf("pipec: %s is up to date\n", b->opts->out_dir);
    }
    write_set_free(ws);
    return rc;
}

/* Make's syntax: spaces, '#' and '$' escaped. */
static void dep_path(strbuf *sb, const char *path)
{
    for (const char *p = path; *p; p++) {
        if (*p == ' ' || *p == '#' || *p == '\\')
            sb_putc(sb, '\\');
        if (*p == '$')
            sb_putc(sb, '$');
        sb_putc(sb, *p);
    }
}

static int write_depfile(bundle *b, char *err, size_t errsize)
{
    strbuf sb = STRBUF_INIT;
    const char *target = b->opts->dep_target ? b->opts->dep_target
                                             : arena_printf(b->arena, "%s/bundle.yaml", b->opts->out_dir);
    dep_path(&sb, target);
    sb_putc(&sb, ':');
    for (size_t i = 0; i < b->inputs.len; i++) {
        sb_puts(&sb, " \\\n  ");
        dep_path(&sb, b->inputs.items[i]);
    }
    sb_putc(&sb, '\n');
    bool changed;
    char werr[256];
    int rc = write_file_if_changed(b->opts->depfile, sb_cstr(&sb), sb.len, &changed, werr, sizeof werr);
    if (rc != 0)
        snprintf(err, errsize, "cannot write depfile %s: %s", b->opts->depfile, werr);
    sb_free(&sb);
    return rc;
}

/* One warning per selected target that makes a cluster pull images, when
   some image has no registry: the bundle is complete, its scripts refuse
   to push or submit until PIPE_REGISTRY is set. (`check` never says it:
   a pipeline that only runs locally needs no registry.) */
static void warn_missing_registry(const bundle *b)
{
    if (!b->image_of || !bundle_images_need_registry(b))
        return;
    fflush(stdout); /* after the lines of -v */
    for (size_t i = 0; i < deploy_target_count; i++) {
        if (!(b->opts->targets & target_bit(i)) || !deploy_targets[i]->pulls_images)
            continue;
        fprintf(stderr,
                "pipec: warning: target `%s` pulls the images from a registry, and none was given\n"
                "  = note: its files name them %s/NAME:TAG, and its scripts refuse to run until PIPE_REGISTRY "
                "is set\n"
                "  = help: give one with `@docker(registry = \"ghcr.io/team\")` in the .pipe file or `pipec "
                "build --registry REGISTRY`\n",
                deploy_targets[i]->name, BUNDLE_REGISTRY_PLACEHOLDER);
    }
}

int bundle_build(model *m, const build_options *opts, arena *a, char *err, size_t errsize)
{
    bundle b = {0};
    b.model = m;
    b.mf = &m->manifest;
    b.opts = opts;
    b.arena = a;
    b.source_name = m->manifest.source;
    b.targets_text = targets_text(a, opts->targets);
    for (size_t i = 0; i < m->npipe_files; i++)
        vec_push(b.arena, &b.inputs, (void *)m->pipe_files[i]);
    for (size_t i = 0; i < m->nfiles; i++)
        vec_push(b.arena, &b.inputs, (void *)m->files[i].resolved);
    collect_steps(&b);
    int rc = -1;
    for (size_t i = 0; i < deploy_target_count; i++) {
        b.target = deploy_targets[i]->name;
        if ((opts->targets & target_bit(i)) && deploy_targets[i]->generate(&b, err, errsize) != 0)
            goto done;
        /* The images' tags digest the bundle's files (`local`, row 0); every
           other target names the images. */
        if (i == 0 && (opts->targets & ~TARGET_LOCAL) && bundle_resolve_images(&b, err, errsize) != 0)
            goto done;
    }
    /* Last: it lists every file written. */
    b.target = deploy_targets[0]->name;
    if ((opts->targets & TARGET_LOCAL) && (gen_inputs(&b, err, errsize) != 0 || gen_rebuild(&b, err, errsize) != 0))
        goto done;
    /* Every file is known now: the check of what it would write over comes
       before anything is written. (The depfile, outside the bundle, is
       not checked: -MF names it.) */
    ptr_vec stale = {0};
    if (bundle_list_update(&b, &stale, err, errsize) != 0) {
        rc = 1;
        goto done;
    }
    if (write_outputs(&b, err, errsize) != 0)
        goto done;
    bundle_list_remove(&b, &stale);
    if (opts->depfile && write_depfile(&b, err, errsize) != 0)
        goto done;
    warn_missing_registry(&b);
    rc = 0;
done:
    for (size_t i = 0; i < b.files.len; i++)
        sb_free(&((bundle_file *)b.files.items[i])->text);
    return rc;
}
