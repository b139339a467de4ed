/* What the image resolution (bundle_images.c) and the docker target
   (targets/docker/) ask of the Dockerfiles (dockerfile.c): their text,
   which the image's tag digests, and what they copy. */
#ifndef PIPEC_DOCKERFILE_H
#define PIPEC_DOCKERFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "bundle.h"

/* The Dockerfile of img (templates/Dockerfile.tmpl) into out: 0, or -1
   with a message in err naming a value a Dockerfile cannot hold. */
int docker_dockerfile(bundle *b, const bundle_image *img, strbuf *out, char *err, size_t errsize);
/* Whether the Dockerfiles copy this bundle path (relative to the bundle
   root) into their build stage. */
bool docker_copies(const char *path);
/* Where img's @docker(requirements_file) is in the bundle. */
const char *docker_requirements_path(bundle *b, const bundle_image *img);

#endif
