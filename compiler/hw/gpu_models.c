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

/* GFD's values are NVML's device names with '-' for ' '. The first eleven
   models are the common cloud ones (listed first in help); the others are
   the rest of the CUDA cards whose architecture the bundle compiles for. */
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
static const gpu_label gb300[] = {{GFD, "NVIDIA-GB300"}, {NULL, NULL}};
static const gpu_label b300[] = {{GFD, "NVIDIA-B300-SXM6-AC"}, {NULL, NULL}};
static const gpu_label gb200[] = {{GFD, "NVIDIA-GB200"}, {GKE, "nvidia-gb200"}, {NULL, NULL}};
static const gpu_label b100[] = {{GFD, "NVIDIA-B100"}, {NULL, NULL}};
static const gpu_label rtx5090[] = {{GFD, "NVIDIA-GeForce-RTX-5090"}, {NULL, NULL}};
static const gpu_label rtx5080[] = {{GFD, "NVIDIA-GeForce-RTX-5080"}, {NULL, NULL}};
static const gpu_label gh200[] = {{GFD, "NVIDIA-GH200-480GB"}, {NULL, NULL}};
static const gpu_label h800[] = {{GFD, "NVIDIA-H800"}, {GFD, "NVIDIA-H800-80GB-HBM3"}, {GFD, "NVIDIA-H800-PCIe"},
                                 {NULL, NULL}};
static const gpu_label h20[] = {{GFD, "NVIDIA-H20"}, {NULL, NULL}};
static const gpu_label l40[] = {{GFD, "NVIDIA-L40"}, {NULL, NULL}};
static const gpu_label l20[] = {{GFD, "NVIDIA-L20"}, {NULL, NULL}};
static const gpu_label rtx4090[] = {{GFD, "NVIDIA-GeForce-RTX-4090"}, {NULL, NULL}};
static const gpu_label rtx4080[] = {{GFD, "NVIDIA-GeForce-RTX-4080"}, {NULL, NULL}};
static const gpu_label a800[] = {{GFD, "NVIDIA-A800-SXM4-80GB"}, {GFD, "NVIDIA-A800-80GB-PCIe"}, {NULL, NULL}};
static const gpu_label a30[] = {{GFD, "NVIDIA-A30"}, {NULL, NULL}};
static const gpu_label a40[] = {{GFD, "NVIDIA-A40"}, {NULL, NULL}};
static const gpu_label a10[] = {{GFD, "NVIDIA-A10"}, {NULL, NULL}};
static const gpu_label a16[] = {{GFD, "NVIDIA-A16"}, {NULL, NULL}};
static const gpu_label a2[] = {{GFD, "NVIDIA-A2"}, {NULL, NULL}};
static const gpu_label rtx_a6000[] = {{GFD, "NVIDIA-RTX-A6000"}, {NULL, NULL}};
static const gpu_label rtx_a5000[] = {{GFD, "NVIDIA-RTX-A5000"}, {NULL, NULL}};
static const gpu_label rtx_a4000[] = {{GFD, "NVIDIA-RTX-A4000"}, {NULL, NULL}};
static const gpu_label rtx3090[] = {{GFD, "NVIDIA-GeForce-RTX-3090"}, {NULL, NULL}};
static const gpu_label rtx3080[] = {{GFD, "NVIDIA-GeForce-RTX-3080"}, {NULL, NULL}};
static const gpu_label rtx2080[] = {{GFD, "NVIDIA-GeForce-RTX-2080"}, {NULL, NULL}};
static const gpu_label p100[] = {{GFD, "Tesla-P100-PCIE-16GB"}, {GFD, "Tesla-P100-SXM2-16GB"},
                                 {GKE, "nvidia-tesla-p100"}, {NULL, NULL}};
static const gpu_label p40[] = {{GFD, "Tesla-P40"}, {NULL, NULL}};
static const gpu_label p4[] = {{GFD, "Tesla-P4"}, {GKE, "nvidia-tesla-p4"}, {NULL, NULL}};

/* name, SkyPilot's name (its catalog's where it lists the model), vendor,
   labels, compute capability */
static const gpu_model model_h200 = {"H200", "H200", "nvidia", h200, 90};
static const gpu_model model_h100 = {"H100", "H100", "nvidia", h100, 90};
static const gpu_model model_a100_80 = {"A100-80GB", "A100-80GB", "nvidia", a100_80, 80};
static const gpu_model model_a100_40 = {"A100-40GB", "A100", "nvidia", a100_40, 80};
static const gpu_model model_l40s = {"L40S", "L40S", "nvidia", l40s, 89};
static const gpu_model model_l4 = {"L4", "L4", "nvidia", l4, 89};
static const gpu_model model_a10g = {"A10G", "A10G", "nvidia", a10g, 86};
static const gpu_model model_t4 = {"T4", "T4", "nvidia", t4, 75};
static const gpu_model model_v100 = {"V100", "V100", "nvidia", v100, 70};
static const gpu_model model_b200 = {"B200", "B200", "nvidia", b200, 100};
static const gpu_model model_mi300x = {"MI300X", "MI300X", "amd", mi300x, 0};
static const gpu_model model_gb300 = {"GB300", "GB300", "nvidia", gb300, 103};
static const gpu_model model_b300 = {"B300", "B300", "nvidia", b300, 103};
static const gpu_model model_gb200 = {"GB200", "GB200", "nvidia", gb200, 100};
static const gpu_model model_b100 = {"B100", "B100", "nvidia", b100, 100};
static const gpu_model model_rtx5090 = {"RTX-5090", "RTX5090", "nvidia", rtx5090, 120};
static const gpu_model model_rtx5080 = {"RTX-5080", "RTX5080", "nvidia", rtx5080, 120};
static const gpu_model model_gh200 = {"GH200", "GH200", "nvidia", gh200, 90};
static const gpu_model model_h800 = {"H800", "H800", "nvidia", h800, 90};
static const gpu_model model_h20 = {"H20", "H20", "nvidia", h20, 90};
static const gpu_model model_l40 = {"L40", "L40", "nvidia", l40, 89};
static const gpu_model model_l20 = {"L20", "L20", "nvidia", l20, 89};
static const gpu_model model_rtx4090 = {"RTX-4090", "RTX4090", "nvidia", rtx4090, 89};
static const gpu_model model_rtx4080 = {"RTX-4080", "RTX4080", "nvidia", rtx4080, 89};
static const gpu_model model_a800 = {"A800", "A800", "nvidia", a800, 80};
static const gpu_model model_a30 = {"A30", "A30", "nvidia", a30, 80};
static const gpu_model model_a40 = {"A40", "A40", "nvidia", a40, 86};
static const gpu_model model_a10 = {"A10", "A10", "nvidia", a10, 86};
static const gpu_model model_a16 = {"A16", "A16", "nvidia", a16, 86};
static const gpu_model model_a2 = {"A2", "A2", "nvidia", a2, 86};
static const gpu_model model_rtx_a6000 = {"RTX-A6000", "A6000", "nvidia", rtx_a6000, 86};
static const gpu_model model_rtx_a5000 = {"RTX-A5000", "A5000", "nvidia", rtx_a5000, 86};
static const gpu_model model_rtx_a4000 = {"RTX-A4000", "A4000", "nvidia", rtx_a4000, 86};
static const gpu_model model_rtx3090 = {"RTX-3090", "RTX3090", "nvidia", rtx3090, 86};
static const gpu_model model_rtx3080 = {"RTX-3080", "RTX3080", "nvidia", rtx3080, 86};
static const gpu_model model_rtx2080 = {"RTX-2080", "RTX2080", "nvidia", rtx2080, 75};
static const gpu_model model_p100 = {"P100", "P100", "nvidia", p100, 60};
static const gpu_model model_p40 = {"P40", "P40", "nvidia", p40, 61};
static const gpu_model model_p4 = {"P4", "P4", "nvidia", p4, 61};

const gpu_model *const gpu_models_known[] = {
    &model_h200,    &model_h100,    &model_a100_80,   &model_a100_40,   &model_l40s,      &model_l4,
    &model_a10g,    &model_t4,      &model_v100,      &model_b200,      &model_mi300x,    &model_gb300,
    &model_b300,    &model_gb200,   &model_b100,      &model_rtx5090,   &model_rtx5080,   &model_gh200,
    &model_h800,    &model_h20,     &model_l40,       &model_l20,       &model_rtx4090,   &model_rtx4080,
    &model_a800,    &model_a30,     &model_a40,       &model_a10,       &model_a16,       &model_a2,
    &model_rtx_a6000, &model_rtx_a5000, &model_rtx_a4000, &model_rtx3090, &model_rtx3080, &model_rtx2080,
    &model_p100,    &model_p40,     &model_p4,
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
    {"MI300X", NULL, true, &model_mi300x}, {"GB300", NULL, true, &model_gb300},
    {"B300", NULL, true, &model_b300},     {"GB200", NULL, true, &model_gb200},
    {"B100", NULL, true, &model_b100},     {"5090", NULL, true, &model_rtx5090},
    {"5080", NULL, true, &model_rtx5080},  {"GH200", NULL, true, &model_gh200},
    {"H800", NULL, true, &model_h800},     {"H20", NULL, true, &model_h20},
    {"L40", NULL, true, &model_l40},       {"L20", NULL, true, &model_l20},
    {"4090", NULL, true, &model_rtx4090},  {"4080", NULL, true, &model_rtx4080},
    {"A800", NULL, true, &model_a800},     {"A30", NULL, true, &model_a30},
    {"A40", NULL, true, &model_a40},       {"A10", NULL, true, &model_a10},
    {"A16", NULL, true, &model_a16},       {"A2", NULL, true, &model_a2},
    {"A6000", NULL, true, &model_rtx_a6000}, {"A5000", NULL, true, &model_rtx_a5000},
    {"A4000", NULL, true, &model_rtx_a4000}, {"3090", NULL, true, &model_rtx3090},
    {"3080", NULL, true, &model_rtx3080},  {"2080", NULL, true, &model_rtx2080},
    {"P100", NULL, true, &model_p100},     {"P40", NULL, true, &model_p40},
    {"P4", NULL, true, &model_p4},
};

/* Words that name a vendor, a product line or a form factor, not a model. */
static const char *const skipped_words[] = {"NVIDIA", "TESLA", "GEFORCE", "RTX", "QUADRO", "AMD", "INSTINCT",
                                            "GPU", "SXM", "SXM2", "SXM4", "SXM5", "SXM6", "PCIE", "HBM3",
                                            "HBM3E", "NVL", "OAM", "MEGA", "AC"};

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
