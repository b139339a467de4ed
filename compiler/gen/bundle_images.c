/* Which container image each invocation runs in, and the defaults for
   steps without @docker. Every deploy target that builds or runs the images
   asks here, so they agree. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "check/images.h"
#include "pipe/base.h"
#include "pipe/settings.h"

#ifndef PIPEC_CUDA_VERSION
#define PIPEC_CUDA_VERSION "12.4.1" /* CMake passes the local toolkit's version */
#endif

#define DEFAULT_CPU_PARENT "debian:bookworm-slim"
#define DEFAULT_CPU_BUILD "debian:bookworm"

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

const bundle_image *bundle_image_of(bundle *b, const pipe_minvocation *inv)
{
    const pipe_mimage *given = &inv->image;
    bundle_image want = {0};
    bool gpu = pipe_invocation_needs_gpu(inv);
    if (given->parent) {
        want.parent = given->parent;
        want.build = given->build;
    } else if (gpu) {
        /* PIPEC_CUDA_VERSION in the environment pins it (golden tests do). */
        const char *version = getenv("PIPEC_CUDA_VERSION");
        if (!version || !*version)
            version = PIPEC_CUDA_VERSION;
        want.parent = arena_printf(b->arena, "nvidia/cuda:%s-runtime-ubuntu22.04", version);
        want.build = given->build ? given->build
                                  : arena_printf(b->arena, "nvidia/cuda:%s-devel-ubuntu22.04", version);
        want.is_default = true;
    } else {
        want.parent = DEFAULT_CPU_PARENT;
        want.build = given->build ? given->build : DEFAULT_CPU_BUILD;
        want.is_default = true;
    }
    want.given = given;

    pipe_sha256 h;
    pipe_sha256_init(&h);
    pipe_sha256_update(&h, want.parent, strlen(want.parent) + 1);
    pipe_sha256_update(&h, want.build, strlen(want.build) + 1);
    /* Then every other @docker option that is set, by the settings table:
       an option added there changes the image's id without a line here. */
    const pipe_decorator_info *docker = pipe_decorator_get(PIPE_DEC_DOCKER);
    for (int i = 0; i < docker->noptions; i++)
        if (i != PIPE_DOCKER_PARENT_IMAGE && i != PIPE_DOCKER_BUILD_IMAGE)
            pipe_option_hash(&docker->options[i], inv, &h);
    unsigned char digest[PIPE_SHA256_SIZE];
    pipe_sha256_final(&h, digest);
    char hex[PIPE_SHA256_HEX_SIZE];
    pipe_sha256_to_hex(digest, hex);
    const char *id = arena_printf(b->arena, "%s-%.8s", base_name(b, want.parent), hex);

    bool cuda = gpu || bundle_step_of(b, inv)->needs_cuda;
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
    char *repo = arena_strdup(b->arena, b->mf->pipeline);
    for (char *p = repo; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    img->ref = arena_printf(b->arena, "pipec/%s-%s:latest", repo, id);
    img->cuda = cuda;
    vec_push(b->arena, &b->images, img);
    return img;
}
