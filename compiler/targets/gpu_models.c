#include "gpu_models.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* The node label keys: GPU Feature Discovery (any cluster with NVIDIA's
   GPU operator), GKE, Karpenter on EKS, AMD's node labeller. */
#define GFD "nvidia.com/gpu.product"
#define GKE "cloud.google.com/gke-accelerator"
#define KARPENTER "karpenter.k8s.aws/instance-gpu-name"
#define AMD "amd.com/gpu.product-name"

/* GFD's values are NVML's device names with '-' for ' '. */
static const gpu_label h200[] = {{GFD, "NVIDIA-H200"}, {GFD, "NVIDIA-H200-NVL"}, {GKE, "nvidia-h200-141gb"},
                                 {KARPENTER, "h200"}, {NULL, NULL}};
static const gpu_label h100[] = {{GFD, "NVIDIA-H100-80GB-HBM3"}, {GFD, "NVIDIA-H100-PCIe"}, {GFD, "NVIDIA-H100-NVL"},
                                 {GKE, "nvidia-h100-80gb"}, {GKE, "nvidia-h100-mega-80gb"}, {KARPENTER, "h100"},
                                 {NULL, NULL}};
/* Karpenter's name label does not tell the two A100s apart: left out. */
static const gpu_label a100_80[] = {{GFD, "NVIDIA-A100-SXM4-80GB"}, {GFD, "NVIDIA-A100-80GB-PCIe"},
                                    {GKE, "nvidia-a100-80gb"}, {NULL, NULL}};
static const gpu_label a100_40[] = {{GFD, "NVIDIA-A100-SXM4-40GB"}, {GFD, "NVIDIA-A100-PCIE-40GB"},
                                    {GKE, "nvidia-tesla-a100"}, {NULL, NULL}};
static const gpu_label l40s[] = {{GFD, "NVIDIA-L40S"}, {KARPENTER, "l40s"}, {NULL, NULL}};
static const gpu_label l4[] = {{GFD, "NVIDIA-L4"}, {GKE, "nvidia-l4"}, {KARPENTER, "l4"}, {NULL, NULL}};
static const gpu_label a10g[] = {{GFD, "NVIDIA-A10G"}, {KARPENTER, "a10g"}, {NULL, NULL}};
static const gpu_label t4[] = {{GFD, "Tesla-T4"}, {GKE, "nvidia-tesla-t4"}, {KARPENTER, "t4"}, {NULL, NULL}};
static const gpu_label v100[] = {{GFD, "Tesla-V100-SXM2-16GB"}, {GFD, "Tesla-V100-SXM2-32GB"},
                                 {GFD, "Tesla-V100-PCIE-16GB"}, {GFD, "Tesla-V100-PCIE-32GB"},
                                 {GKE, "nvidia-tesla-v100"}, {KARPENTER, "v100"}, {NULL, NULL}};
static const gpu_label b200[] = {{GFD, "NVIDIA-B200"}, {GKE, "nvidia-b200"}, {KARPENTER, "b200"}, {NULL, NULL}};
static const gpu_label mi300x[] = {{AMD, "AMD_Instinct_MI300X_OAM"}, {AMD, "AMD_Instinct_MI300X"}, {NULL, NULL}};

static const gpu_model model_h200 = {"H200", "H200", "nvidia", h200};
static const gpu_model model_h100 = {"H100", "H100", "nvidia", h100};
static const gpu_model model_a100_80 = {"A100-80GB", "A100-80GB", "nvidia", a100_80};
static const gpu_model model_a100_40 = {"A100-40GB", "A100", "nvidia", a100_40};
static const gpu_model model_l40s = {"L40S", "L40S", "nvidia", l40s};
static const gpu_model model_l4 = {"L4", "L4", "nvidia", l4};
static const gpu_model model_a10g = {"A10G", "A10G", "nvidia", a10g};
static const gpu_model model_t4 = {"T4", "T4", "nvidia", t4};
static const gpu_model model_v100 = {"V100", "V100", "nvidia", v100};
static const gpu_model model_b200 = {"B200", "B200", "nvidia", b200};
static const gpu_model model_mi300x = {"MI300X", "MI300X", "amd", mi300x};

const gpu_model *const gpu_models_known[] = {
    &model_h200, &model_h100, &model_a100_80, &model_a100_40, &model_l40s, &model_l4,
    &model_a10g, &model_t4,   &model_v100,    &model_b200,    &model_mi300x,
};
const size_t gpu_models_known_count = sizeof gpu_models_known / sizeof gpu_models_known[0];

/* How a gpu_type's words find a model: its model word, and its memory word
   where the model comes in several sizes (NULL: any). `bare` is the one a
   model word alone means. */
static const struct {
    const char *word;
    const char *memory;
    bool bare;
    const gpu_model *model;
} by_word[] = {
    {"H200", NULL, true, &model_h200},     {"H100", NULL, true, &model_h100},
    {"A100", "80GB", false, &model_a100_80}, {"A100", "40GB", true, &model_a100_40},
    {"L40S", NULL, true, &model_l40s},     {"L4", NULL, true, &model_l4},
    {"A10G", NULL, true, &model_a10g},     {"T4", NULL, true, &model_t4},
    {"V100", NULL, true, &model_v100},     {"B200", NULL, true, &model_b200},
    {"MI300X", NULL, true, &model_mi300x},
};

/* Words that name a vendor, a product line or a form factor, not a model. */
static const char *const skipped_words[] = {"NVIDIA", "TESLA", "AMD", "INSTINCT", "GPU", "SXM", "SXM2", "SXM4",
                                            "SXM5", "PCIE", "HBM3", "HBM3E", "NVL", "OAM", "MEGA"};

static bool word_is(const char *w, size_t n, const char *s)
{
    return strlen(s) == n && strncasecmp(w, s, n) == 0;
}

static bool skipped(const char *w, size_t n)
{
    for (size_t i = 0; i < sizeof skipped_words / sizeof skipped_words[0]; i++)
        if (word_is(w, n, skipped_words[i]))
            return true;
    return false;
}

/* "80GB", "80G", "141GB": a memory size word. */
static bool memory_word(const char *w, size_t n)
{
    size_t d = 0;
    while (d < n && isdigit((unsigned char)w[d]))
        d++;
    return d > 0 && (word_is(w + d, n - d, "GB") || word_is(w + d, n - d, "G"));
}

const gpu_model *gpu_model_find(const char *gpu_type)
{
    const char *model = NULL, *memory = NULL;
    size_t model_n = 0, memory_n = 0;
    for (const char *p = gpu_type ? gpu_type : ""; *p;) {
        if (!isalnum((unsigned char)*p)) {
            p++;
            continue;
        }
        size_t n = 0;
        while (isalnum((unsigned char)p[n]))
            n++;
        if (memory_word(p, n)) {
            memory = p;
            memory_n = n;
        } else if (!skipped(p, n)) {
            if (model)
                return NULL; /* two model words: not a name pipec knows */
            model = p;
            model_n = n;
        }
        p += n;
    }
    if (!model)
        return NULL;
    for (size_t i = 0; i < sizeof by_word / sizeof by_word[0]; i++) {
        if (!word_is(model, model_n, by_word[i].word))
            continue;
        const char *want = by_word[i].memory;
        /* "80G" is "80GB" */
        bool same_memory = want && memory && strncasecmp(memory, want, memory_n) == 0 &&
                           (memory_n == strlen(want) || memory_n == strlen(want) - 1);
        if (!want || same_memory || (!memory && by_word[i].bare))
            return by_word[i].model;
    }
    return NULL;
}

void gpu_model_names(strbuf *out)
{
    for (size_t i = 0; i < gpu_models_known_count; i++)
        sb_printf(out, "%s%s", i ? ", " : "", gpu_models_known[i]->name);
}
