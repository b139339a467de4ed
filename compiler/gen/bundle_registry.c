/* The registry of the images (bundle_images.c gives each its reference):
   what the scripts that push or pull them do when none was given. They
   take PIPE_REGISTRY, checked to hold only what image names hold, so that
   it can replace BUNDLE_REGISTRY_PLACEHOLDER in YAML or a sed expression. */
#include "bundle.h"
#include "util/escape.h"

bool bundle_images_need_registry(const bundle *b)
{
    for (size_t i = 0; i < b->images.len; i++)
        if (!((const bundle_image *)b->images.items[i])->registry_given)
            return true;
    return false;
}

void bundle_registry_guard(const bundle *b, strbuf *sb, const char *script, const char *action)
{
    if (!bundle_images_need_registry(b))
        return;
    sb_printf(sb,
              "# No registry was given when the bundle was built (@docker(registry) or\n"
              "# `pipec build --registry`): the images are named PIPE_REGISTRY/NAME:TAG.\n"
              "if [ -z \"${PIPE_REGISTRY:-}\" ]; then\n"
              "    echo \"%s: PIPE_REGISTRY is not set: it names the registry to %s, e.g.\" >&2\n"
              "    echo \"  PIPE_REGISTRY=ghcr.io/team %s\" >&2\n"
              "    echo \"(or build the bundle with \\`pipec build --registry REGISTRY\\` or @docker(registry = ...))\" >&2\n"
              "    exit 1\n"
              "fi\n"
              "PIPE_REGISTRY=${PIPE_REGISTRY%%/}\n"
              "# Only what image names hold: safe in YAML, sed and shell words.\n"
              "case $PIPE_REGISTRY in\n"
              "*[!A-Za-z0-9._:/-]* | /* | *//*)\n"
              "    echo \"%s: PIPE_REGISTRY=$PIPE_REGISTRY is not a registry (e.g. ghcr.io/team, localhost:5000)\" >&2\n"
              "    exit 1\n"
              "    ;;\n"
              "esac\n",
              script, action, script, script);
}

void bundle_image_ref_shell(const bundle_image *img, strbuf *sb)
{
    if (img->registry_given)
        esc_shell_word(sb, img->ref);
    else
        sb_printf(sb, "\"$PIPE_REGISTRY/%s:%s\"", img->name, img->tag);
}
