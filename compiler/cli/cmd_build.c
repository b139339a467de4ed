/* `pipec build FILE.pipe`: checks, builds the typed model, and has the build
   driver (build/) write the bundle for the targets asked for; or, with
   --list-sources, prints what a build system compiles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/build.h"
#include "command.h"
#include "model/model_build.h"

static bool listed(const ptr_vec *seen, const char *path)
{
    for (size_t i = 0; i < seen->len; i++)
        if (strcmp(seen->items[i], path) == 0)
            return true;
    return false;
}

/* `build --list-sources`: what a build system needs at configure time, one
   "KIND PATH" per line (paths as pipec resolved them, generated ones
   relative to the bundle root). See docs/build-integration.md. */
static void list_sources(check_session *s, const model *m)
{
    const pipe_manifest *mf = &m->manifest;
    ptr_vec seen = {0};
    bool gpu = false;
    printf("pipeline %s\n", mf->pipeline);
    for (size_t i = 0; i < m->npipe_files; i++)
        printf("pipe %s\n", m->pipe_files[i]);
    for (size_t i = 0; i < mf->ninvocations; i++)
        gpu = gpu || pipe_invocation_needs_gpu(&mf->invocations[i]);
    for (size_t i = 0; i < mf->nsteps; i++) {
        for (size_t k = 0; k < m->steps[i].nsources; k++) {
            const model_source *ref = &m->steps[i].sources[k];
            if (listed(&seen, ref->resolved))
                continue;
            vec_push(&s->arena, &seen, (void *)ref->resolved);
            static const char *const kinds[] = {"c", "cpp", "cu", "header", "file", "folder"};
            printf("%s %s\n", kinds[ref->kind], ref->resolved);
        }
        for (size_t k = 0; k < mf->steps[i].nlibraries; k++)
            printf("library %s %s\n", mf->steps[i].name, mf->steps[i].libraries[k]);
    }
    printf("generated-h src/%s.h\n", mf->pipeline);
    printf("generated-c src/%s_main.c\n", mf->pipeline);
    if (gpu)
        printf("generated-cu src/%s_cuda.cu\n", mf->pipeline);
}

/* build --manifest-json FILE: the model after the build (digests and
   sources filled in) as gen_manifest_json writes it. */
static int write_manifest_json(const model *m, const char *path)
{
    strbuf json = STRBUF_INIT;
    char err[512];
    int rc = gen_manifest_json(&m->manifest, &json, err, sizeof err);
    if (rc == 0) {
        FILE *f = fopen(path, "w");
        bool ok = f && fwrite(sb_cstr(&json), 1, json.len, f) == json.len;
        if (f && fclose(f) != 0)
            ok = false;
        if (!ok) {
            snprintf(err, sizeof err, "cannot write `%s`", path);
            rc = -1;
        }
    }
    if (rc != 0)
        fprintf(stderr, "pipec: error: %s\n", err);
    sb_free(&json);
    return rc;
}

int cmd_build(const pipec_command *self, int argc, char **argv)
{
    command_opts o;
    int rc = command_parse(self, argc, argv, "dWpb", &o);
    if (rc >= 0)
        return rc;
    if (!o.targets)
        o.targets = TARGET_ALL;
    if (o.depfile && !o.make_deps)
        return command_usage_error(self, "%s: -MF needs -MD", "build");
    if (o.make_deps && !o.depfile)
        return command_usage_error(self, "%s: -MD needs -MF DEPFILE", "build");
    check_session s;
    if ((rc = command_load(&s, &o, targets_run_containers(o.targets))) >= 0)
        return rc;
    pipeline_info *pl = NULL;
    if (!diag_error_count(&s.diag))
        pl = program_select_pipeline(&s.pg, o.pipeline);
    if (pl && !diag_error_count(&s.diag))
        targets_check_build(&s.diag, pl, o.targets);
    command_flush(&s, o.diag_format);
    rc = EXIT_ERRORS;
    model m;
    if (pl && !diag_error_count(&s.diag))
        model_build(&m, &s.arena, &s.pg, pl);
    if (pl && !diag_error_count(&s.diag) && o.list_sources) {
        list_sources(&s, &m);
        rc = EXIT_OK;
    } else if (pl && !diag_error_count(&s.diag)) {
        build_options bo = {
            .out_dir = o.out_dir ? o.out_dir : arena_printf(&s.arena, "%s-bundle", pl->name),
            .pipeline = o.pipeline,
            .targets = o.targets,
            .depfile = o.depfile,
            .dep_target = o.dep_target,
            .verbose = o.verbose,
            .registry = o.registry,
            .force = o.force,
        };
        /* How to build the bundle again (pipec-rebuild.cmake): this pipec and
           the .pipe file, by absolute paths. */
        char exe[4096];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = '\0';
            bo.pipec_path = arena_strdup(&s.arena, exe);
        }
        char *pipe_abs = realpath(o.file, NULL);
        if (pipe_abs) {
            bo.pipe_path = arena_strdup(&s.arena, pipe_abs);
            free(pipe_abs);
        }
        bo.pipeline_name = pl->name;
        char err[4096];
        int built = bundle_build(&m, &bo, &s.arena, err, sizeof err);
        if (built != 0)
            fprintf(stderr, "pipec: error: %s\n", err);
        /* A file of the user's in the way is an error of the build (1), as
           the spec has it; I/O is 2. */
        rc = built == 0 ? EXIT_OK : built > 0 ? EXIT_ERRORS : EXIT_USAGE;
        if (built == 0 && o.manifest_json && write_manifest_json(&m, o.manifest_json) != 0)
            rc = EXIT_USAGE;
    }
    check_session_free(&s);
    return rc;
}
