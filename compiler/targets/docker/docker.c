/* The docker target: docker/<image-id>/Dockerfile for each distinct image
   of the pipeline's invocations, whose text gen/dockerfile.c wrote when the
   images were resolved (their tags digest it); docker/<image-id>/
   requirements.txt, the image's @docker(requirements_file); and
   docker/build.sh, which builds and pushes them all
   (templates/docker-build.sh.tmpl; docs/deploy-docker.md). */
#include <stdio.h>

#include "gen/bundle.h"
#include "gen/dockerfile.h"
#include "gen/template.h"
#include "targets/targets.h"

/* docker/build.sh: each image built from the bundle's root with its
   reference, then pushed. */
static int build_script(bundle *b, char *err, size_t errsize)
{
    strbuf guard = STRBUF_INIT, images = STRBUF_INIT;
    bundle_registry_guard(b, &guard, "docker/build.sh", "push the images to");
    for (size_t i = 0; i < b->images.len; i++) {
        const bundle_image *img = b->images.items[i];
        sb_printf(&images, "image docker/%s/Dockerfile ", img->id);
        bundle_image_ref_shell(img, &images);
        sb_putc(&images, '\n');
    }
    tmpl_var vars[] = {
        {"source", b->source_name},
        {"pipeline", b->mf->pipeline},
        {"registry_guard", sb_cstr(&guard)},
        {"images", sb_cstr(&images)},
    };
    strbuf *out = bundle_add_file(b, "docker/build.sh", true);
    const char *missing = NULL;
    int rc = tmpl_render("docker-build.sh.tmpl", vars, sizeof vars / sizeof vars[0], out, &missing);
    if (rc != 0)
        snprintf(err, errsize, "internal error: template docker-build.sh.tmpl needs `%.40s`", missing);
    sb_free(&guard);
    sb_free(&images);
    return rc;
}

static int gen_docker(bundle *b, char *err, size_t errsize)
{
    for (size_t i = 0; i < b->images.len; i++) {
        const bundle_image *img = b->images.items[i];
        sb_puts(bundle_add_file(b, arena_printf(b->arena, "docker/%s/Dockerfile", img->id), false), img->dockerfile);
        if (img->requirements)
            sb_putn(bundle_add_file(b, docker_requirements_path(b, img), false), img->requirements->text,
                    img->requirements->len);
    }
    return build_script(b, err, errsize);
}

const deploy_target target_docker = {
    .name = "docker",
    .summary = "docker/<image>/Dockerfile: one multi-stage build per distinct image; docker/build.sh",
    .runs_containers = true,
    .generate = gen_docker,
    .templates = (const char *const[]){"Dockerfile.tmpl", "docker-build.sh.tmpl", NULL},
};
