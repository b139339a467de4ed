/* gpu_type names and their CUDA architectures (compiler/hw/gpu_types.c), which
   pick CMAKE_CUDA_ARCHITECTURES in the bundle and in its Dockerfiles. */
#include "hw/gpu_types.h"

#include "check.h"

int main(void)
{
    static const struct {
        const char *name;
        int sm;
    } cases[] = {
        {"H100", 90},
        {"h100", 90},
        {"H100-SXM", 90},
        {"H100 NVL", 90},
        {"NVIDIA-H100-80GB-HBM3", 90}, /* the Kubernetes gpu.product label */
        {"H200", 90},
        {"GH200", 90},
        {"H20", 90},
        {"A100", 80},
        {"A100-80GB", 80},
        {"NVIDIA-A100-SXM4-40GB", 80},
        {"A30", 80},
        {"A10", 86},
        {"A10G", 86},
        {"A40", 86},
        {"RTX A6000", 86},
        {"L4", 89},
        {"NVIDIA-L4", 89},
        {"L40", 89},
        {"L40S", 89},
        {"RTX 4090", 89},
        {"NVIDIA GeForce RTX 4090", 89},
        {"T4", 75},
        {"Tesla-T4", 75},
        {"V100", 70},
        {"V100-SXM2-32GB", 70},
        {"B200", 100},
        {"GB200", 100},
        {"B300", 103},
        {"RTX 5090", 120},
        /* unknown: a longer number is another model, AMD is not CUDA */
        {"A1000", 0},
        {"L400", 0},
        {"T400", 0},
        {"MI300X", 0},
        {"", 0},
        {"NVIDIA", 0},
        {"-", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int sm = gpu_type_sm(cases[i].name);
        if (sm != cases[i].sm)
            printf("gpu_type_sm(\"%s\") = %d, expected %d\n", cases[i].name, sm, cases[i].sm);
        CHECK(sm == cases[i].sm);
    }
    return check_summary();
}
