/* What pipec knows about container images: CUDA or not, which CUDA. */
#ifndef PIPEC_IMAGES_H
#define PIPEC_IMAGES_H

#include <stdbool.h>

#include "arena.h"

/* CUDA-enabled when the name or tag shows it: nvidia/cuda, nvcr.io/nvidia/...,
   a tag containing "cuda", or a tag ending in "-gpu". */
bool image_is_cuda(const char *image);
/* The CUDA version an image's tag names: "nvidia/cuda:12.4.1-runtime-..." and
   "pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime" give 12.4 and 12.1.
   False when the tag does not say. */
bool image_cuda_version(const char *image, int *major, int *minor);
/* The default build image: the parent with "-runtime" replaced by "-devel"
   (the parent itself when it has no "-runtime"). */
const char *image_default_build(arena *a, const char *parent);
/* The grammar of docker/distribution's reference package:
   [domain/]path[:tag][@algorithm:hex]. Everything it allows is plain text
   in a FROM line, a YAML scalar or a shell word (no spaces, quotes, `$` or
   `\`). */
bool image_ref_valid(const char *ref);
/* A registry that images can be named under: "ghcr.io/team",
   "localhost:5000", "123456789012.dkr.ecr.us-east-1.amazonaws.com" (what
   comes before "/NAME:TAG" in a valid reference; no tag, no final `/`). */
bool image_registry_valid(const char *registry);

#endif
