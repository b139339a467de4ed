/* Which container image each invocation runs in, the defaults for steps
   without @docker, and each image's reference. Every deploy target that
   builds or runs the images asks here, so they agree.

   The reference is REGISTRY/NAME:TAG. NAME is the pipeline and the image's
   id (its base image and a digest of its @docker options as written): it
   stays while the options do. TAG digests what the image is built from:
   its Dockerfile, the files the Dockerfile copies (the bundle's
   CMakeLists.txt, runtime/, src/ with the user's sources and the generated
   driver, which embeds bundle.yaml), its requirements file and its
   settings. So any change to the code gives every image that holds it a
   new tag, and a node that has an old image never runs it for new code.
   Every image holds the whole executable (each step's code, and the digest
   of each step's code in the embedded bundle.yaml), so a step's source is
   in every image of its pipeline; the driver is digested with the
   embedded bundle.yaml's `image` sections left out, so that what only one
   image holds (its packages, requirements, environment) changes only its
   tag. No file the tag digests holds a reference, so it is not circular. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "util/images.h"
#include "pipe/base.h"
#include "pipe/settings.h"
#include "dockerfile.h"

/* The CUDA image of GPU steps without @docker(parent_image): a release that
   the drivers in use run (CUDA 12.4 Update 1 needs driver 550.54.15 or newer,
   525 or newer through CUDA's minor-version compatibility), not the toolkit
   of the machine that built pipec. PIPEC_CUDA_VERSION in the environment
   overrides it (docs/deploy-docker.md). */
#define DEFAULT_CUDA_VERSION "12.4.1"

#define DEFAULT_CPU_PARENT "debian:bookworm-slim"
#define DEFAULT_CPU_BUILD "debian:bookworm"

/* Hex digits of the id (in the repository name) and of the tag. */
#define ID_DIGITS 8
#define TAG_DIGITS 16

/* "nvidia/cuda:12.4.1-runtime-ubuntu22.04" -> "cuda": the last path
   component without its tag, reduced to [a-z0-9-]. */
static const char *base_name(bundle *b, const char *image)
{
    const char *slash = strrchr(image, '/');
    const char *name = slash ? slash + 1 : image;
    size_t n = strcspn(name, ":@");
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n && sb.len < 40; i++) {
        char c = (char)tolower((unsigned char)name[i]);
        sb_putc(&sb, isalnum((unsigned char)c) ? c : '-');
    }
    const char *out = arena_strdup(b->arena, sb.len ? sb_cstr(&sb) : "image");
    sb_free(&sb);
    return out;
}

/* The pipeline's name as a repository path component: lower case, each run
   of other characters one `-`, none at either end (`_Train__v2` is
   `train-v2`). */
static const char *repository_word(bundle *b, const char *pipeline)
{
    strbuf sb = STRBUF_INIT;
    bool dash = false;
    for (const char *p = pipeline; *p; p++) {
        if (isalnum((unsigned char)*p)) {
            if (dash && sb.len)
                sb_putc(&sb, '-');
            sb_putc(&sb, (char)tolower((unsigned char)*p));
            dash = false;
        } else {
            dash = true;
        }
    }
    const char *out = arena_strdup(b->arena, sb.len ? sb_cstr(&sb) : "pipeline");
    sb_free(&sb);
    return out;
}

/* The base images of inv: its @docker ones, else the defaults. */
static void choose_bases(bundle *b, const pipe_minvocation *inv, bundle_image *want)
{
    const pipe_mimage *given = &inv->image;
    if (given->parent) {
        want->parent = given->parent;
        want->build = given->build;
    } else if (pipe_invocation_needs_gpu(inv)) {
        const char *version = getenv("PIPEC_CUDA_VERSION");
        if (!version || !*version)
            version = DEFAULT_CUDA_VERSION;
        want->parent = arena_printf(b->arena, "nvidia/cuda:%s-runtime-ubuntu22.04", version);
        want->build = given->build ? given->build
                                   : arena_printf(b->arena, "nvidia/cuda:%s-devel-ubuntu22.04", version);
        want->is_default = true;
    } else {
        want->parent = DEFAULT_CPU_PARENT;
        want->build = given->build ? given->build : DEFAULT_CPU_BUILD;
        want->is_default = true;
    }
    want->given = given;
}

/* "<base-name>-<8 hex>": the bases, then every other @docker option of the
   cache key that is set, by the settings table (an option added there
   changes the id without a line here); a file by its path only, so that
   editing it changes the tag, not the name; with_content adds its digest
   (two files of one name, from .pipe files in two folders). */
static const char *image_id(bundle *b, const pipe_minvocation *inv, const bundle_image *want, bool with_content)
{
    pipe_sha256 h;
    pipe_sha256_init(&h);
    pipe_sha256_update(&h, want->parent, strlen(want->parent) + 1);
    pipe_sha256_update(&h, want->build, strlen(want->build) + 1);
    const pipe_decorator_info *docker = pipe_decorator_get(PIPE_DEC_DOCKER);
    for (int i = 0; i < docker->noptions; i++) {
        const pipe_option *o = &docker->options[i];
        if (i == PIPE_DOCKER_PARENT_IMAGE || i == PIPE_DOCKER_BUILD_IMAGE || !o->keyed)
            continue;
        if (pipe_option_ctype(o) == PIPE_CTYPE_MFILE && !with_content) {
            pipe_value v = pipe_option_load(o, inv);
            if (v.s)
                pipe_sha256_update(&h, v.s, strlen(v.s) + 1);
            continue;
        }
        pipe_option_hash(o, inv, &h);
    }
    unsigned char digest[PIPE_SHA256_SIZE];
    pipe_sha256_final(&h, digest);
    char hex[PIPE_SHA256_HEX_SIZE];
    pipe_sha256_to_hex(digest, hex);
    return arena_printf(b->arena, "%s-%.*s", base_name(b, want->parent), ID_DIGITS, hex);
}

static bool same_text(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

/* The image of inv: one already made for an invocation with the same
   options, else a new one. NULL, with a message in err, when two
   invocations of one image name different registries. */
static bundle_image *image_for(bundle *b, const pipe_minvocation *inv, char *err, size_t errsize)
{
    bundle_image want = {0};
    choose_bases(b, inv, &want);
    const char *id = image_id(b, inv, &want, false);
    bool cuda = pipe_invocation_needs_gpu(inv) || bundle_step_of(b, inv)->needs_cuda;
    for (size_t i = 0; i < b->images.len; i++) {
        bundle_image *img = b->images.items[i];
        if (strcmp(img->id, id) != 0)
            continue;
        if (!same_text(img->given->requirements_file.sha256, inv->image.requirements_file.sha256)) {
            id = image_id(b, inv, &want, true);
            continue; /* in the list further on, or a new image */
        }
        if (!b->opts->registry && !same_text(img->given->registry, inv->image.registry)) {
            const pipe_minvocation *first = img->invs.items[0];
            snprintf(err, errsize,
                     "invocations `%s` and `%s` run the same image but name different registries (%s, %s): give "
                     "@docker(registry) once, on the pipeline, or `pipec build --registry`",
                     first->id, inv->id, img->given->registry ? img->given->registry : "none",
                     inv->image.registry ? inv->image.registry : "none");
            return NULL;
        }
        img->cuda = img->cuda || cuda;
        return img;
    }
    bundle_image *img = arena_alloc(b->arena, sizeof *img);
    *img = want;
    img->id = id;
    img->cuda = cuda;
    vec_push(b->arena, &b->images, img);
    return img;
}

static void hash_bytes(pipe_sha256 *h, const void *data, size_t len)
{
    char n[32];
    snprintf(n, sizeof n, "%zu:", len);
    pipe_sha256_update(h, n, strlen(n));
    pipe_sha256_update(h, data, len);
}

static void hash_text(pipe_sha256 *h, const char *s) { hash_bytes(h, s, strlen(s)); }

/* The tag: the Dockerfile, each file of the build context it copies (path,
   mode, bytes, in the bundle's order), the requirements file, and the
   settings of the cache key's @docker options. */
static const char *image_tag(bundle *b, const bundle_image *img, const char *driver_text)
{
    pipe_sha256 h;
    pipe_sha256_init(&h);
    hash_text(&h, "pipec image 1");
    hash_text(&h, img->dockerfile);
    const char *driver = gen_driver_path(b);
    for (size_t i = 0; i < b->files.len; i++) {
        const bundle_file *f = b->files.items[i];
        if (!docker_copies(f->path))
            continue;
        hash_text(&h, f->path);
        hash_text(&h, f->executable ? "755" : "644");
        if (strcmp(f->path, driver) == 0)
            hash_text(&h, driver_text);
        else
            hash_bytes(&h, f->text.len ? f->text.data : "", f->text.len);
    }
    if (img->requirements) {
        hash_text(&h, docker_requirements_path(b, img));
        hash_bytes(&h, img->requirements->text, img->requirements->len);
    }
    hash_text(&h, img->parent);
    hash_text(&h, img->build);
    const pipe_minvocation *inv = img->invs.items[0];
    const pipe_decorator_info *docker = pipe_decorator_get(PIPE_DEC_DOCKER);
    for (int i = 0; i < docker->noptions; i++)
        if (docker->options[i].keyed)
            pipe_option_hash(&docker->options[i], inv, &h);
    unsigned char digest[PIPE_SHA256_SIZE];
    pipe_sha256_final(&h, digest);
    char hex[PIPE_SHA256_HEX_SIZE];
    pipe_sha256_to_hex(digest, hex);
    return arena_printf(b->arena, "%.*s", TAG_DIGITS, hex);
}

/* The model's copy of the file @docker(requirements_file) names. */
static const model_file *requirements_of(const bundle *b, const pipe_mimage *given)
{
    if (!given->requirements_file.path)
        return NULL;
    for (size_t i = 0; i < b->model->nfiles; i++)
        if (strcmp(b->model->files[i].sha256, given->requirements_file.sha256) == 0)
            return &b->model->files[i];
    return NULL;
}

/* The driver as the tags digest it: embedding bundle.yaml without the
   `image` sections, which each image's own settings stand for. */
static const char *driver_for_tags(bundle *b, char *err, size_t errsize)
{
    strbuf manifest = STRBUF_INIT, driver = STRBUF_INIT;
    const char *text = NULL;
    if (gen_manifest_text(b, false, &manifest, err, errsize) == 0 &&
        gen_driver(b, sb_cstr(&manifest), &driver, err, errsize) == 0)
        text = arena_strdup(b->arena, sb_cstr(&driver));
    sb_free(&manifest);
    sb_free(&driver);
    return text;
}

int bundle_resolve_images(bundle *b, char *err, size_t errsize)
{
    b->image_of = arena_alloc(b->arena, (b->mf->ninvocations + 1) * sizeof *b->image_of);
    for (size_t i = 0; i < b->mf->ninvocations; i++) {
        const pipe_minvocation *inv = &b->mf->invocations[i];
        bundle_image *img = image_for(b, inv, err, errsize);
        if (!img)
            return -1;
        vec_push(b->arena, &img->invs, (void *)inv);
        b->image_of[i] = img;
    }
    const char *driver = driver_for_tags(b, err, errsize);
    if (!driver)
        return -1;
    const char *repo = repository_word(b, b->mf->pipeline);
    for (size_t k = 0; k < b->images.len; k++) {
        bundle_image *img = b->images.items[k];
        img->requirements = requirements_of(b, img->given);
        if (img->given->requirements_file.path && !img->requirements) {
            snprintf(err, errsize, "internal error: requirements file %s was not read",
                     img->given->requirements_file.path);
            return -1;
        }
        img->name = arena_printf(b->arena, "%s-%s", repo, img->id); /* the Dockerfile names it */
        strbuf text = STRBUF_INIT;
        if (docker_dockerfile(b, img, &text, err, errsize) != 0) {
            sb_free(&text);
            return -1;
        }
        img->dockerfile = arena_strdup(b->arena, sb_cstr(&text));
        sb_free(&text);
        img->tag = image_tag(b, img, driver);
        const char *registry = b->opts->registry ? b->opts->registry : img->given->registry;
        img->registry_given = registry != NULL;
        img->registry = registry ? registry : BUNDLE_REGISTRY_PLACEHOLDER;
        img->ref = arena_printf(b->arena, "%s/%s:%s", img->registry, img->name, img->tag);
        if (img->registry_given && !image_ref_valid(img->ref)) {
            snprintf(err, errsize, "`%s/%s:%s` is not an image reference: check the registry", img->registry,
                     img->name, img->tag);
            return -1;
        }
    }
    return 0;
}

const bundle_image *bundle_image_of(const bundle *b, const pipe_minvocation *inv)
{
    /* A generator that asks before bundle_build resolved the images is a bug. */
    if (!b->image_of) {
        fprintf(stderr, "pipec: internal error: an image was asked for before the images were resolved\n");
        abort();
    }
    return b->image_of[inv - b->mf->invocations];
}
