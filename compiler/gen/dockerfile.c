/* The text of docker/<image-id>/Dockerfile, one per distinct image of the
   pipeline's invocations: a multi-stage build that compiles the bundle in
   build_image and runs it in parent_image (templates/Dockerfile.tmpl,
   docs/deploy-docker.md). The image resolution (bundle_images.c) writes it
   here, below the targets, because every container target names the
   images by a tag that digests it; the docker target (targets/docker/)
   adds it to the bundle.

   Strings from the .pipe file reach a Dockerfile in these forms only:
   image references after FROM (checked against the reference grammar,
   rejected otherwise: FROM has no quoting), apt package names and pip
   requirements as shell words in RUN (double-quoted where needed; pip's
   after `--`), and environment values in ENV (quoted so Docker reads them
   back exactly; control characters rejected, since a Dockerfile line cannot
   hold a newline). Names (pipeline, invocations, variables) are identifiers. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "dockerfile.h"
#include "bundle.h"
#include "hw/gpu_types.h"
#include "template.h"
#include "util/escape.h"
#include "util/images.h"

/* Packages the build stage needs (CUDA images add g++, nvcc's host compiler). */
#define BUILD_PACKAGES "cmake make gcc libc6-dev libyaml-dev libssl-dev"
/* What the executable links at run time besides libc (and CUDA's libraries,
   which CUDA images bring). */
#define RUNTIME_PACKAGES "libyaml-0-2 libssl3"

/* What the Dockerfiles copy into their build stage: the bundle's
   CMakeLists.txt and sources and the runtime (a `build/` folder in the
   bundle stays out). An image's tag digests these files. */
static const char *const build_context[] = {"CMakeLists.txt", "src/", "runtime/", "python/"};

bool docker_copies(const char *path)
{
    for (size_t i = 0; i < sizeof build_context / sizeof build_context[0]; i++) {
        size_t n = strlen(build_context[i]);
        if (build_context[i][n - 1] == '/' ? strncmp(path, build_context[i], n) == 0
                                           : strcmp(path, build_context[i]) == 0)
            return true;
    }
    return false;
}

const char *docker_requirements_path(bundle *b, const bundle_image *img)
{
    return arena_printf(b->arena, "docker/%s/requirements.txt", img->id);
}

/* Where the final stage keeps the requirements file. */
#define IMAGE_REQUIREMENTS "/opt/pipe/requirements.txt"

/* --- escaping ------------------------------------------------------------ */

/* A value in ENV's key="value" form. Docker's lexer reads `\"`, `\\` and
   `\$` inside double quotes as the escaped character, and keeps words that
   touch as one: `"a"\\"b"` is a\b. Backslashes go between quoted parts
   that way because hadolint's parser rejects `\\` right before a closing
   quote. A newline cannot be written at all (a Dockerfile line ends there):
   false for control characters. */
static bool dockerfile_quoted(strbuf *sb, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return false;
    sb_putc(sb, '"');
    for (const char *p = s; *p; p++) {
        if (*p == '\\') {
            sb_puts(sb, "\"\\\\\"");
            continue;
        }
        if (*p == '"' || *p == '$')
            sb_putc(sb, '\\');
        sb_putc(sb, *p);
    }
    sb_putc(sb, '"');
    return true;
}

/* One word for the shell of a RUN line: as it is when plainly safe, else in
   double quotes with `$`, `` ` ``, `"` and `\\` escaped. (Single quotes are as
   safe, but ShellCheck, which hadolint runs on RUN, warns about a `\\`
   before a closing one.) Control characters never get here: the checker
   rejects them in every list that reaches RUN. */
static void shell_word(strbuf *sb, const char *s)
{
    bool safe = *s != '\0';
    for (const char *p = s; *p && safe; p++)
        safe = isalnum((unsigned char)*p) || strchr("_-./:=,+@%", *p);
    if (safe) {
        sb_puts(sb, s);
        return;
    }
    sb_putc(sb, '"');
    for (const char *p = s; *p; p++) {
        if (strchr("$`\"\\", *p))
            sb_putc(sb, '\\');
        sb_putc(sb, *p);
    }
    sb_putc(sb, '"');
}

/* A user's string for error messages: JSON-quoted, so nothing in it reaches
   the terminal raw. */
static const char *quoted(bundle *b, const char *s)
{
    strbuf sb = STRBUF_INIT;
    esc_json_string(&sb, s);
    const char *out = arena_strdup(b->arena, sb_cstr(&sb));
    sb_free(&sb);
    return out;
}

/* --- the parts of one Dockerfile ----------------------------------------- */

static bool bundle_has_cuda_code(const bundle *b)
{
    if (b->needs_cuda)
        return true;
    for (size_t i = 0; i < b->sources.len; i++) {
        const bundle_source *s = b->sources.items[i];
        if (s->kind == MODEL_SRC_CUDA)
            return true;
    }
    return false;
}

/* "#   train, evaluate" lines, wrapped. */
static void invocation_list(strbuf *sb, const bundle_image *img)
{
    size_t col = 0;
    for (size_t i = 0; i < img->invs.len; i++) {
        const pipe_minvocation *inv = img->invs.items[i];
        size_t n = strlen(inv->id) + 2;
        if (col == 0 || col + n > 78) {
            if (col)
                sb_putc(sb, '\n');
            sb_puts(sb, "#  ");
            col = 3;
        }
        sb_printf(sb, " %s%s", inv->id, i + 1 < img->invs.len ? "," : "");
        col += n;
    }
}

/* The packages of apt_packages, as shell words after `for p in`, each once. */
static void package_words(strbuf *sb, const char *fixed, const ptr_vec *packages)
{
    sb_puts(sb, fixed);
    for (size_t i = 0; i < packages->len; i++) {
        sb_putc(sb, ' ');
        shell_word(sb, packages->items[i]);
    }
}

static void add_packages(bundle *b, ptr_vec *out, char *const *packages, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t k = 0; k < out->len && !seen; k++)
            seen = strcmp(out->items[k], packages[i]) == 0;
        if (!seen)
            vec_push(b->arena, out, packages[i]);
    }
}

/* The build stage compiles the whole bundle's executable, every step of
   it: it gets the apt_packages of every invocation (the -dev packages
   `libraries` need). The run stage gets this image's own, and those of
   steps that link libraries, which the executable loads whichever step it
   runs. */
static void stage_packages(bundle *b, const bundle_image *img, ptr_vec *build, ptr_vec *run)
{
    add_packages(b, run, img->given->apt_packages, img->given->napt_packages);
    for (size_t i = 0; i < b->mf->ninvocations; i++) {
        const pipe_minvocation *inv = &b->mf->invocations[i];
        add_packages(b, build, inv->image.apt_packages, inv->image.napt_packages);
        if (bundle_step_of(b, inv)->nlibraries)
            add_packages(b, run, inv->image.apt_packages, inv->image.napt_packages);
    }
}

/* A program the image must have an interpreter for: `python`, `python3`,
   `python3.11` as a command step's first word. */
static bool runs_python(bundle *b, const bundle_image *img)
{
    for (size_t i = 0; i < img->invs.len; i++) {
        const pipe_mstep *st = bundle_step_of(b, img->invs.items[i]);
        if (!st->ncommand)
            continue;
        const char *prog = strrchr(st->command[0], '/');
        prog = prog ? prog + 1 : st->command[0];
        if (strncmp(prog, "python", 6) == 0)
            return true;
    }
    return false;
}

/* What the bundle compiles besides C: g++ for C++ sources, pkg-config for
   `pkg:` libraries. */
static void build_tools(const bundle *b, strbuf *sb)
{
    bool cxx = false, pkg = false;
    for (size_t i = 0; i < b->sources.len; i++)
        cxx = cxx || ((const bundle_source *)b->sources.items[i])->kind == MODEL_SRC_CXX;
    for (size_t i = 0; i < b->mf->nsteps; i++)
        for (size_t k = 0; k < b->mf->steps[i].nlibraries; k++)
            pkg = pkg || strncmp(b->mf->steps[i].libraries[k], "pkg:", 4) == 0;
    if (cxx)
        sb_puts(sb, " g++");
    if (pkg)
        sb_puts(sb, " pkg-config");
}

/* The image's ENV line from @docker(environment): names and values a
   Dockerfile can hold, or -1 naming the one it cannot. */
static int environment_lines(bundle *b, const pipe_mimage *given, const char *step, strbuf *env, char *err,
                             size_t errsize)
{
    for (size_t i = 0; i < given->nenvironment; i++) {
        const pipe_kv *m = &given->environment[i];
        if (!esc_env_name_ok(m->key)) {
            snprintf(err, errsize, "environment variable name %s of step `%s` cannot be set in a Dockerfile",
                     quoted(b, m->key), step);
            return -1;
        }
        sb_puts(env, i == 0 ? "ENV " : " \\\n    ");
        sb_printf(env, "%s=", m->key);
        if (!dockerfile_quoted(env, m->value)) {
            snprintf(err, errsize,
                     "environment variable %s of step `%s` holds a control character (a newline?), "
                     "which a Dockerfile ENV cannot hold",
                     m->key, step);
            return -1;
        }
    }
    if (env->len)
        sb_putc(env, '\n');
    return 0;
}

/* BuildKit reads a word `<<NAME` in RUN as a here-document, even quoted. */
static bool run_word_ok(const char *s) { return !strstr(s, "<<") && !strchr(s, '\n') && !strchr(s, '\r'); }

/* A URL for pip's --index-url or --extra-index-url, as a RUN word. */
static int url_word(bundle *b, strbuf *pip, const char *flag, const char *url, const char *option, const char *step,
                    char *err, size_t errsize)
{
    if (!run_word_ok(url)) {
        snprintf(err, errsize, "%s %s of step `%s` is not a URL", option, quoted(b, url), step);
        return -1;
    }
    sb_printf(pip, " \\\n      %s ", flag);
    shell_word(pip, url);
    return 0;
}

/* The requirements installed into a virtual environment of the image's own
   (PEP 668: no pip into the system's Python), seeing the base image's
   packages (a PyTorch image's torch), from @docker(index_url) and
   extra_index_urls when given: the requirements file (copied to
   IMAGE_REQUIREMENTS), then the entries, after `--`: an entry is a
   requirement, never a pip option. */
static int pip_lines(bundle *b, const bundle_image *img, const char *step, strbuf *pip, char *err, size_t errsize)
{
    const pipe_mimage *given = img->given;
    sb_puts(pip, "    python3 -m venv --system-site-packages /opt/pipe/venv; \\\n"
                 "    /opt/pipe/venv/bin/python3 -m pip install --no-cache-dir");
    if (given->index_url && url_word(b, pip, "--index-url", given->index_url, "index_url", step, err, errsize) != 0)
        return -1;
    for (size_t i = 0; i < given->nextra_index_urls; i++)
        if (url_word(b, pip, "--extra-index-url", given->extra_index_urls[i], "extra_index_urls", step, err,
                     errsize) != 0)
            return -1;
    if (img->requirements)
        sb_puts(pip, " \\\n      -r " IMAGE_REQUIREMENTS);
    if (given->nrequirements)
        sb_puts(pip, " \\\n      --");
    for (size_t i = 0; i < given->nrequirements; i++) {
        const char *r = given->requirements[i];
        if (!run_word_ok(r)) {
            snprintf(err, errsize, "requirement %s of step `%s` is not a pip requirement", quoted(b, r), step);
            return -1;
        }
        sb_puts(pip, " \\\n      ");
        shell_word(pip, r);
    }
    sb_puts(pip, "; \\\n");
    return 0;
}

/* The build stage's COPY lines: what docker_copies says. */
static void copy_context(strbuf *sb)
{
    for (size_t i = 0; i < sizeof build_context / sizeof build_context[0]; i++) {
        const char *p = build_context[i];
        sb_printf(sb, "COPY %s %s\n", p, p[strlen(p) - 1] == '/' ? p : "./");
    }
}

int docker_dockerfile(bundle *b, const bundle_image *img, strbuf *out, char *err, size_t errsize)
{
    const pipe_mimage *given = img->given;
    const char *step = bundle_step_of(b, img->invs.items[0])->name;
    const char *what[2] = {"parent_image", "build_image"};
    const char *refs[2] = {img->parent, img->build};
    for (int k = 0; k < 2; k++) {
        if (!image_ref_valid(refs[k])) {
            snprintf(err, errsize,
                     "%s %s of step `%s` is not an image reference (expected [REGISTRY/]NAME[:TAG][@DIGEST])",
                     what[k], quoted(b, refs[k]), step);
            return -1;
        }
    }

    /* CUDA: compiled when both images have it (an executable linked with
       libcudart does not start without it) and the bundle has CUDA code. */
    bool cuda = bundle_has_cuda_code(b) && image_is_cuda(img->build) && image_is_cuda(img->parent);
    strbuf cmake = STRBUF_INIT, archs = STRBUF_INIT, build_pkgs = STRBUF_INIT, run_pkgs = STRBUF_INIT,
           env = STRBUF_INIT, pip = STRBUF_INIT, invs = STRBUF_INIT, entry = STRBUF_INIT, context = STRBUF_INIT;
    int rc = -1;
    if (cuda) {
        sb_puts(&cmake, "-DPIPE_WITH_CUDA=ON");
        if (gpu_architectures(&img->invs, &archs)) {
            sb_puts(&cmake, " ");
            shell_word(&cmake, arena_printf(b->arena, "-DCMAKE_CUDA_ARCHITECTURES=%s", sb_cstr(&archs)));
        }
    } else {
        sb_puts(&cmake, "-DPIPE_WITH_CUDA=OFF");
    }
    ptr_vec build_apt = {0}, run_apt = {0};
    stage_packages(b, img, &build_apt, &run_apt);
    strbuf tools = STRBUF_INIT;
    build_tools(b, &tools);
    if (cuda && !strstr(sb_cstr(&tools), "g++"))
        sb_puts(&tools, " g++");
    package_words(&build_pkgs, arena_printf(b->arena, "%s%s", BUILD_PACKAGES, sb_cstr(&tools)), &build_apt);
    sb_free(&tools);
    package_words(&run_pkgs, RUNTIME_PACKAGES, &run_apt);

    bool have_reqs = given->nrequirements > 0 || img->requirements, python = have_reqs || runs_python(b, img);
    if (environment_lines(b, given, step, &env, err, errsize) != 0 ||
        (have_reqs && pip_lines(b, img, step, &pip, err, errsize) != 0))
        goto done;
    copy_context(&context);

    invocation_list(&invs, img);
    sb_putc(&entry, '[');
    esc_json_string(&entry, arena_printf(b->arena, "/opt/pipe/bin/%s", b->mf->pipeline));
    sb_putc(&entry, ']');

    const char *default_note = "";
    if (img->is_default && image_is_cuda(img->parent))
        default_note = "# No @docker(parent_image) applies to these steps: pipec chose its pinned\n"
                       "# CUDA image (PIPEC_CUDA_VERSION overrides the version).\n";
    else if (img->is_default)
        default_note = "# No @docker(parent_image) applies to these steps: pipec chose Debian.\n";
    tmpl_var vars[] = {
        {"source", b->source_name},
        {"id", img->id},
        {"name", img->name},
        {"copy_context", sb_cstr(&context)},
        {"requirements_copy",
         img->requirements ? arena_printf(b->arena, "# @docker(requirements_file), installed below.\nCOPY %s %s\n",
                                          docker_requirements_path(b, img), IMAGE_REQUIREMENTS)
                           : ""},
        {"pipeline", b->mf->pipeline},
        {"invocations", sb_cstr(&invs)},
        {"cuda_note", cuda ? " and nvcc" : ""},
        {"default_note", default_note},
        {"build_image", img->build},
        {"build_packages", sb_cstr(&build_pkgs)},
        {"nvcc_check", cuda ? "command -v nvcc >/dev/null || { echo \"error: no nvcc in the build image: set "
                              "build_image to a CUDA -devel image\" >&2; exit 1; }; \\\n    "
                            : ""},
        {"cmake_options", sb_cstr(&cmake)},
        {"parent_image", img->parent},
        {"runtime_ignores", have_reqs ? "DL3008,DL3013" : "DL3008"},
        {"runtime_packages", sb_cstr(&run_pkgs)},
        {"pip_check", have_reqs ? "    python3 -m ensurepip --version >/dev/null 2>&1 || set -- \"$@\" python3-venv; \\\n"
                      : python ? "    command -v python3 >/dev/null 2>&1 || set -- \"$@\" python3; \\\n"
                               : ""},
        {"pip_install", sb_cstr(&pip)},
        {"python_path", have_reqs ? "# Command steps' programs find the requirements first.\n"
                                    "ENV PATH=\"/opt/pipe/venv/bin:$PATH\"\n"
                                  : ""},
        {"bundle_files",
         arena_printf(b->arena,
                      "%s"
                      "COPY --from=build /opt/pipe/share/pipe/%s /opt/pipe/share/pipe/%s\n",
                      b->has_commands ? "# The files command steps run with (the executable finds them here) and\n"
                                        "# python/, the `pipe` module (on PYTHONPATH above).\n"
                                      : "# python/, the `pipe` module (on PYTHONPATH above).\n",
                      b->mf->pipeline, b->mf->pipeline)},
        {"pipe_module", arena_printf(b->arena, "ENV PYTHONPATH=\"/opt/pipe/share/pipe/%s/python${PYTHONPATH:+:$PYTHONPATH}\"\n",
                                     b->mf->pipeline)},
        {"environment", sb_cstr(&env)},
        {"entrypoint", sb_cstr(&entry)},
    };
    const char *missing = NULL;
    if (tmpl_render("Dockerfile.tmpl", vars, sizeof vars / sizeof vars[0], out, &missing) != 0) {
        snprintf(err, errsize, "internal error: template Dockerfile.tmpl needs `%.40s`", missing);
        goto done;
    }
    rc = 0;
done:
    sb_free(&cmake);
    sb_free(&archs);
    sb_free(&build_pkgs);
    sb_free(&run_pkgs);
    sb_free(&env);
    sb_free(&pip);
    sb_free(&invs);
    sb_free(&entry);
    sb_free(&context);
    return rc;
}
