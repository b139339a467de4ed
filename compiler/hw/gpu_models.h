/* The GPU models pipec knows, and how each deploy target spells them:
   `@resources(gpu_type)` is written once, in the user's words ("H100",
   "a100-80gb", "NVIDIA-H100-80GB-HBM3"), and every target asks here for
   its own name (SkyPilot's accelerator, the Kubernetes node labels that
   GPU Feature Discovery and the clouds put on GPU nodes), the bundle's
   CMake for the model's CUDA architecture (gpu_types.h). Slurm's GRES
   types are the cluster's own: @slurm(gpu_type) names them. A gpu_type
   that finds no model here gets W0408 and reaches every target as
   written. */
#ifndef PIPEC_GPU_MODELS_H
#define PIPEC_GPU_MODELS_H

#include <stddef.h>

#include "util/strbuf.h"

/* One node label that names a model: its key and one of its values. */
typedef struct gpu_label {
    const char *key;
    const char *value;
} gpu_label;

typedef struct gpu_model {
    const char *name;          /* pipec's name, listed in help: "H100", "A100-40GB" */
    const char *skypilot;      /* SkyPilot's accelerator name: "H100", "A100" (the 40 GB one) */
    const char *vendor;        /* "nvidia" or "amd" */
    const gpu_label *labels;   /* every label spelling on nodes with it; {NULL, NULL} ends it */
    int sm;                    /* CUDA compute capability as CMake writes it (90 for sm_90); 0: not CUDA */
} gpu_model;

/* The model a gpu_type names, or NULL when pipec does not know it. Case,
   vendor words ("NVIDIA", "Tesla"), separators and form-factor words
   ("SXM", "PCIe", "HBM3") do not matter; memory does where a model comes in
   several sizes ("A100" is the 40 GB one, as SkyPilot reads it). */
const gpu_model *gpu_model_find(const char *gpu_type);

/* Every known model, in the table's order. */
extern const gpu_model *const gpu_models_known[];
extern const size_t gpu_models_known_count;

/* "H200, H100, ..." : the known canonical names, for a diagnostic's help. */
void gpu_model_names(strbuf *out);

#endif
