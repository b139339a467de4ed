/* The table of known GPU models (compiler/hw/gpu_models.c): the
 * spellings users write find the model they mean, memory tells the A100s
 * apart, unknown names find nothing, and every model has a SkyPilot name,
 * at least one node label and, from NVIDIA, a CUDA architecture. */
#include "hw/gpu_models.h"

#include "check.h"

#include <string.h>

static void finds(const char *gpu_type, const char *name)
{
    const gpu_model *m = gpu_model_find(gpu_type);
    if (!m) {
        fprintf(stderr, "  %s: not found, expected %s\n", gpu_type, name);
        CHECK(m != NULL);
        return;
    }
    CHECK_STREQ(m->name, name);
}

int main(void)
{
    finds("H100", "H100");
    finds("h100", "H100");
    finds("h100-sxm", "H100");
    finds("NVIDIA-H100-80GB-HBM3", "H100");
    finds("NVIDIA H100 PCIe", "H100");
    finds("H200", "H200");
    finds("A100", "A100-40GB");
    finds("A100-40GB", "A100-40GB");
    finds("a100-80gb", "A100-80GB");
    finds("NVIDIA-A100-SXM4-80GB", "A100-80GB");
    finds("nvidia-tesla-a100", "A100-40GB");
    finds("L40S", "L40S");
    finds("L4", "L4");
    finds("NVIDIA-L4", "L4");
    finds("A10G", "A10G");
    finds("Tesla-T4", "T4");
    finds("tesla-v100-sxm2-32gb", "V100");
    finds("B200", "B200");
    finds("MI300X", "MI300X");
    finds("AMD_Instinct_MI300X_OAM", "MI300X");
    CHECK_NULL(gpu_model_find("H10"));
    CHECK_NULL(gpu_model_find("A100-64GB"));
    finds("NVIDIA GeForce RTX 4090", "RTX-4090");
    finds("RTX A6000", "RTX-A6000");
    finds("NVIDIA-B300-SXM6-AC", "B300");
    CHECK_NULL(gpu_model_find("RTX-4060"));
    CHECK_NULL(gpu_model_find("A1000"));
    CHECK_NULL(gpu_model_find("H100 A100"));
    CHECK_NULL(gpu_model_find(""));
    CHECK_NULL(gpu_model_find(NULL));
    CHECK_STREQ(gpu_model_find("A100")->skypilot, "A100");
    CHECK_STREQ(gpu_model_find("A100-80GB")->skypilot, "A100-80GB");
    for (size_t i = 0; i < gpu_models_known_count; i++) {
        const gpu_model *m = gpu_models_known[i];
        CHECK(m->skypilot && *m->skypilot);
        CHECK(m->labels[0].key != NULL);
        CHECK(strcmp(m->vendor, "nvidia") == 0 ? m->sm >= 60 : m->sm == 0); /* a CUDA architecture for NVIDIA's */
        CHECK(gpu_model_find(m->name) == m); /* its own name finds it */
        for (const gpu_label *l = m->labels; l->key; l++)
            CHECK(gpu_model_find(l->value) == m); /* and so does every label value */
    }
    strbuf sb = STRBUF_INIT;
    gpu_model_names(&sb);
    CHECK(strstr(sb_cstr(&sb), "H200, H100, A100-80GB, A100-40GB") == sb_cstr(&sb));
    sb_free(&sb);
    return check_summary();
}
