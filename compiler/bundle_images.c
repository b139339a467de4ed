/* Which container image each invocation runs in, and the defaults for
   steps without @docker. Deploy targets (Dockerfiles, Kubernetes, SkyPilot,
   Slurm with containers) all ask here, so they agree. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "images.h"
#include "pipe/base.h"

#ifndef PIPEC_CUDA_VERSION
#define PIPEC_CUDA_VERSION "12.4.1" /* CMake passes the local toolkit's version */
#endif

#define DEFAULT_CPU_PARENT "debian:bookworm-slim"
#define DEFAULT_CPU_BUILD "debian:bookworm"

static void hash_expr(pipe_sha256 *h, const ast_expr *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->u.items.len; i++) {
        if (e->kind == EXPR_MAP) {
            const ast_map_entry *m = e->u.items.items[i];
            pipe_sha256_update(h, m->key.text, strlen(m->key.text) + 1);
            if (m->value->kind == EXPR_STRING)
                pipe_sha256_update(h, m->value->u.s.text, strlen(m->value->u.s.text) + 1);
        } else {
            const ast_expr *item = e->u.items.items[i];
            if (item->kind == EXPR_STRING)
                pipe_sha256_update(h, item->u.s.text, strlen(item->u.s.text) + 1);
        }
    }
    pipe_sha256_update(h, "|", 1);
}

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

const bundle_image *bundle_image_of(bundle *b, const invocation *inv)
{
    const effective_options *o = &inv->options;
    bundle_image want = {0};
    opt_value parent = effective_opt(o, DEC_DOCKER, DOCKER_PARENT_IMAGE);
    opt_value build = effective_opt(o, DEC_DOCKER, DOCKER_BUILD_IMAGE);
    bool gpu = invocation_needs_gpu(inv);
    if (parent.set) {
        want.parent = parent.s;
        want.build = build.set ? build.s : image_default_build(b->arena, parent.s);
    } else if (gpu) {
        /* PIPEC_CUDA_VERSION in the environment pins it (golden tests do). */
        const char *version = getenv("PIPEC_CUDA_VERSION");
        if (!version || !*version)
            version = PIPEC_CUDA_VERSION;
        want.parent = arena_printf(b->arena, "nvidia/cuda:%s-runtime-ubuntu22.04", version);
        want.build = build.set ? build.s : arena_printf(b->arena, "nvidia/cuda:%s-devel-ubuntu22.04", version);
        want.is_default = true;
    } else {
        want.parent = DEFAULT_CPU_PARENT;
        want.build = build.set ? build.s : DEFAULT_CPU_BUILD;
        want.is_default = true;
    }
    want.apt_packages = effective_opt(o, DEC_DOCKER, DOCKER_APT_PACKAGES).expr;
    want.requirements = effective_opt(o, DEC_DOCKER, DOCKER_REQUIREMENTS).expr;
    want.environment = effective_opt(o, DEC_DOCKER, DOCKER_ENVIRONMENT).expr;

    pipe_sha256 h;
    pipe_sha256_init(&h);
    pipe_sha256_update(&h, want.parent, strlen(want.parent) + 1);
    pipe_sha256_update(&h, want.build, strlen(want.build) + 1);
    hash_expr(&h, want.apt_packages);
    hash_expr(&h, want.requirements);
    hash_expr(&h, want.environment);
    unsigned char digest[PIPE_SHA256_SIZE];
    pipe_sha256_final(&h, digest);
    char hex[PIPE_SHA256_HEX_SIZE];
    pipe_sha256_to_hex(digest, hex);
    const char *id = arena_printf(b->arena, "%s-%.8s", base_name(b, want.parent), hex);

    bool cuda = gpu;
    const bundle_step *bs = bundle_find_step(b, inv->step);
    if (bs && bs->has_cuda_sources)
        cuda = true;
    for (size_t i = 0; i < b->images.len; i++) {
        bundle_image *img = b->images.items[i];
        if (strcmp(img->id, id) == 0) {
            img->cuda = img->cuda || cuda;
            return img;
        }
    }
    bundle_image *img = arena_alloc(b->arena, sizeof *img);
    *img = want;
    img->id = id;
    /* Repository names are lower-case: `Train_v2` becomes `train_v2`. */
    char *repo = arena_strdup(b->arena, b->pl->name);
    for (char *p = repo; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    img->ref = arena_printf(b->arena, "pipec/%s-%s:latest", repo, id);
    img->cuda = cuda;
    vec_push(b->arena, &b->images, img);
    return img;
}
