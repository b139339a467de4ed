/* docker/<image-id>/Dockerfile, one per distinct image of the pipeline's
   invocations (bundle_image_of): a multi-stage build that compiles the
   bundle in build_image and runs it in parent_image (templates/Dockerfile.tmpl,
   docs/deploy-docker.md).

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

#include "gen/bundle.h"
#include "targets.h"
#include "gen/escape.h"
#include "gpu_types.h"
#include "check/images.h"
#include "gen/template.h"

/* Packages the build stage needs (CUDA images add g++, nvcc's host compiler). */
#define BUILD_PACKAGES "cmake make gcc libc6-dev libyaml-dev libssl-dev"
/* What the executable links at run time besides libc (and CUDA's libraries,
   which CUDA images bring). */
#define RUNTIME_PACKAGES "libyaml-0-2 libssl3"

typedef struct image_use {
    const bundle_image *img;
    ptr_vec invs; /* pipe_minvocation* running in it, in pipeline order */
} image_use;

/* --- image references ---------------------------------------------------- */

static bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

/* path-component := [a-z0-9]+ ( ( "." | "_" | "__" | "-"+ ) [a-z0-9]+ )* */
static bool valid_path_component(const char *s, size_t n)
{
    size_t i = 0;
    for (;;) {
        size_t run = i;
        while (i < n && is_lower_alnum(s[i]))
            i++;
        if (i == run)
            return false;
        if (i == n)
            return true;
        if (s[i] == '.')
            i++;
        else if (s[i] == '_')
            i += (i + 1 < n && s[i + 1] == '_') ? 2 : 1;
        else if (s[i] == '-')
            while (i < n && s[i] == '-')
                i++;
        else
            return false;
    }
}

/* host[:port], host := components of [A-Za-z0-9-] (no '-' at either end) joined by '.' */
static bool valid_domain(const char *s, size_t n)
{
    const char *colon = memchr(s, ':', n);
    size_t host = colon ? (size_t)(colon - s) : n;
    if (colon) {
        if (colon + 1 == s + n)
            return false;
        for (const char *p = colon + 1; p < s + n; p++)
            if (!isdigit((unsigned char)*p))
                return false;
    }
    size_t start = 0;
    for (size_t i = 0; i <= host; i++) {
        if (i < host && s[i] != '.') {
            if (!isalnum((unsigned char)s[i]) && s[i] != '-')
                return false;
            continue;
        }
        if (i == start || s[start] == '-' || s[i - 1] == '-')
            return false;
        start = i + 1;
    }
    return true;
}

/* The grammar of docker/distribution's reference package:
   [domain/]path[:tag][@algorithm:hex]. Everything it allows is plain text
   in a FROM line (no spaces, quotes, `$` or `\`). */
static bool valid_image_ref(const char *ref)
{
    size_t len = strlen(ref);
    if (len == 0 || len > 255)
        return false;
    const char *at = strchr(ref, '@');
    size_t name_end = at ? (size_t)(at - ref) : len;
    if (at) {
        const char *alg = at + 1, *colon = strchr(alg, ':');
        if (!colon || colon == alg || !isalpha((unsigned char)*alg))
            return false;
        for (const char *p = alg; p < colon; p++)
            if (!isalnum((unsigned char)*p) && !strchr("+.-_", *p))
                return false;
        size_t hex = strlen(colon + 1);
        if (hex < 32)
            return false;
        for (const char *p = colon + 1; *p; p++)
            if (!isxdigit((unsigned char)*p))
                return false;
    }
    /* The tag: after a ':' that follows the last '/'. */
    size_t slash = 0;
    for (size_t i = 0; i < name_end; i++)
        if (ref[i] == '/')
            slash = i + 1;
    const char *colon = memchr(ref + slash, ':', name_end - slash);
    if (colon) {
        const char *tag = colon + 1;
        size_t n = (size_t)(ref + name_end - tag);
        if (n == 0 || n > 128 || !(isalnum((unsigned char)tag[0]) || tag[0] == '_'))
            return false;
        for (size_t i = 0; i < n; i++)
            if (!isalnum((unsigned char)tag[i]) && !strchr("_.-", tag[i]))
                return false;
        name_end = (size_t)(colon - ref);
    }
    /* The first component is a registry when it looks like a host name. */
    size_t i = 0;
    const char *first_slash = memchr(ref, '/', name_end);
    if (first_slash) {
        size_t n = (size_t)(first_slash - ref);
        bool domain = (n == 9 && strncmp(ref, "localhost", 9) == 0) || memchr(ref, '.', n) || memchr(ref, ':', n);
        for (size_t k = 0; k < n && !domain; k++)
            domain = isupper((unsigned char)ref[k]);
        if (domain) {
            if (!valid_domain(ref, n))
                return false;
            i = n + 1;
        }
    }
    while (i <= name_end) {
        const char *end = memchr(ref + i, '/', name_end - i);
        size_t n = end ? (size_t)(end - (ref + i)) : name_end - i;
        if (!valid_path_component(ref + i, n))
            return false;
        i += n + 1;
    }
    return true;
}

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
static void invocation_list(strbuf *sb, const image_use *u)
{
    size_t col = 0;
    for (size_t i = 0; i < u->invs.len; i++) {
        const pipe_minvocation *inv = u->invs.items[i];
        size_t n = strlen(inv->id) + 2;
        if (col == 0 || col + n > 78) {
            if (col)
                sb_putc(sb, '\n');
            sb_puts(sb, "#  ");
            col = 3;
        }
        sb_printf(sb, " %s%s", inv->id, i + 1 < u->invs.len ? "," : "");
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
static void stage_packages(bundle *b, const image_use *u, ptr_vec *build, ptr_vec *run)
{
    add_packages(b, run, u->img->given->apt_packages, u->img->given->napt_packages);
    for (size_t i = 0; i < b->mf->ninvocations; i++) {
        const pipe_minvocation *inv = &b->mf->invocations[i];
        add_packages(b, build, inv->image.apt_packages, inv->image.napt_packages);
        if (bundle_step_of(b, inv)->nlibraries)
            add_packages(b, run, inv->image.apt_packages, inv->image.napt_packages);
    }
}

/* A program the image must have an interpreter for: `python`, `python3`,
   `python3.11` as a command step's first word. */
static bool runs_python(bundle *b, const image_use *u)
{
    for (size_t i = 0; i < u->invs.len; i++) {
        const pipe_mstep *st = bundle_step_of(b, u->invs.items[i]);
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

/* The requirements installed into a virtual environment of the image's own
   (PEP 668: no pip into the system's Python), seeing the base image's
   packages (a PyTorch image's torch), from @docker(index_url) when given;
   `--`: an entry is a requirement, never a pip option. */
static int pip_lines(bundle *b, const pipe_mimage *given, const char *step, strbuf *pip, char *err, size_t errsize)
{
    sb_puts(pip, "    python3 -m venv --system-site-packages /opt/pipe/venv; \\\n"
                 "    /opt/pipe/venv/bin/python3 -m pip install --no-cache-dir");
    if (given->index_url) {
        if (!run_word_ok(given->index_url)) {
            snprintf(err, errsize, "index_url %s of step `%s` is not a URL", quoted(b, given->index_url), step);
            return -1;
        }
        sb_puts(pip, " --index-url ");
        shell_word(pip, given->index_url);
    }
    sb_puts(pip, " --");
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

static int render(bundle *b, const image_use *u, char *err, size_t errsize)
{
    const bundle_image *img = u->img;
    const pipe_mimage *given = img->given;
    const char *step = bundle_step_of(b, u->invs.items[0])->name;
    const char *what[2] = {"parent_image", "build_image"};
    const char *refs[2] = {img->parent, img->build};
    for (int k = 0; k < 2; k++) {
        if (!valid_image_ref(refs[k])) {
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
           env = STRBUF_INIT, pip = STRBUF_INIT, invs = STRBUF_INIT, entry = STRBUF_INIT;
    int rc = -1;
    if (cuda) {
        sb_puts(&cmake, "-DPIPE_WITH_CUDA=ON");
        if (gpu_architectures(&u->invs, &archs)) {
            sb_puts(&cmake, " ");
            shell_word(&cmake, arena_printf(b->arena, "-DCMAKE_CUDA_ARCHITECTURES=%s", sb_cstr(&archs)));
        }
    } else {
        sb_puts(&cmake, "-DPIPE_WITH_CUDA=OFF");
    }
    ptr_vec build_apt = {0}, run_apt = {0};
    stage_packages(b, u, &build_apt, &run_apt);
    strbuf tools = STRBUF_INIT;
    build_tools(b, &tools);
    if (cuda && !strstr(sb_cstr(&tools), "g++"))
        sb_puts(&tools, " g++");
    package_words(&build_pkgs, arena_printf(b->arena, "%s%s", BUILD_PACKAGES, sb_cstr(&tools)), &build_apt);
    sb_free(&tools);
    package_words(&run_pkgs, RUNTIME_PACKAGES, &run_apt);

    bool have_reqs = given->nrequirements > 0, python = have_reqs || runs_python(b, u);
    if (environment_lines(b, given, step, &env, err, errsize) != 0 ||
        (have_reqs && pip_lines(b, given, step, &pip, err, errsize) != 0))
        goto done;

    invocation_list(&invs, u);
    sb_putc(&entry, '[');
    esc_json_string(&entry, arena_printf(b->arena, "/opt/pipe/bin/%s", b->mf->pipeline));
    sb_putc(&entry, ']');

    const char *default_note = "";
    if (img->is_default && image_is_cuda(img->parent))
        default_note = "# No @docker(parent_image) applies to these steps: pipec chose a CUDA image\n"
                       "# matching its CUDA toolkit (PIPEC_CUDA_VERSION overrides the version).\n";
    else if (img->is_default)
        default_note = "# No @docker(parent_image) applies to these steps: pipec chose Debian.\n";
    tmpl_var vars[] = {
        {"source", b->source_name},
        {"id", img->id},
        {"ref", img->ref},
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
        {"bundle_files", b->has_commands
                             ? arena_printf(b->arena,
                                            "# The files command steps run with (the executable finds them here).\n"
                                            "COPY --from=build /opt/pipe/share/pipe/%s /opt/pipe/share/pipe/%s\n",
                                            b->mf->pipeline, b->mf->pipeline)
                             : ""},
        {"environment", sb_cstr(&env)},
        {"entrypoint", sb_cstr(&entry)},
    };
    strbuf *out = bundle_add_file(b, arena_printf(b->arena, "docker/%s/Dockerfile", img->id), false);
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
    return rc;
}

static int gen_docker(bundle *b, char *err, size_t errsize)
{
    ptr_vec uses = {0};
    for (size_t i = 0; i < b->mf->ninvocations; i++) {
        const pipe_minvocation *inv = &b->mf->invocations[i];
        const bundle_image *img = bundle_image_of(b, inv);
        image_use *u = NULL;
        for (size_t k = 0; k < uses.len && !u; k++)
            if (((image_use *)uses.items[k])->img == img)
                u = uses.items[k];
        if (!u) {
            u = arena_alloc(b->arena, sizeof *u);
            u->img = img;
            vec_push(b->arena, &uses, u);
        }
        vec_push(b->arena, &u->invs, (void *)inv);
    }
    for (size_t k = 0; k < uses.len; k++)
        if (render(b, uses.items[k], err, errsize) != 0)
            return -1;
    return 0;
}

const deploy_target target_docker = {
    .name = "docker",
    .summary = "docker/<image>/Dockerfile: one multi-stage build per distinct image",
    .runs_containers = true,
    .generate = gen_docker,
};
