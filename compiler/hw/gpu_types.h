/* The CUDA architectures nvcc compiles for: the gpu_type of @resources
   picks CMAKE_CUDA_ARCHITECTURES (the bundle's CMakeLists.txt, the
   Dockerfiles' build stage), through the table of known models
   (gpu_models.h). */
#ifndef PIPEC_GPU_TYPES_H
#define PIPEC_GPU_TYPES_H

#include <stdbool.h>

#include "util/arena.h"
#include "pipe/manifest.h"
#include "util/strbuf.h"

/* The compute capability of a GPU model as CMake and nvcc write it (90 for
   sm_90), or 0 when gpu_model_find knows no model by that name (W0408) or
   the model is not CUDA (MI300X): "H100", "h100-sxm", "A100-80GB",
   "NVIDIA-L4", "Tesla-T4", "NVIDIA-H100-80GB-HBM3" (the Kubernetes
   gpu.product label), "RTX 4090". */
int gpu_type_sm(const char *gpu_type);

/* CMAKE_CUDA_ARCHITECTURES for the invocations in invs (pipe_minvocation*):
   the distinct compute capabilities of those that need a GPU, ascending and
   separated by ';' ("80;90"), appended to out. False, with out untouched,
   when none needs a GPU or one of them has no gpu_type or an unknown one
   (the caller then keeps its default list). */
bool gpu_architectures(const ptr_vec *invs, strbuf *out);

#endif
