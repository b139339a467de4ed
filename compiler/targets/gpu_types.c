#include "gpu_types.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>


/* Model names (upper case, as the first word of a gpu_type after vendor
   words) and their compute capability. A name matches a word that starts
   with it and does not go on with a digit: "A10" matches "A10G" but not
   "A100"; the longest match wins. */
static const struct {
    const char *model;
    int sm;
} gpu_models[] = {
    /* Blackwell */
    {"GB300", 103}, {"B300", 103}, {"GB200", 100}, {"B200", 100}, {"B100", 100}, {"5090", 120}, {"5080", 120},
    /* Hopper */
    {"GH200", 90}, {"H200", 90}, {"H100", 90}, {"H800", 90}, {"H20", 90},
    /* Ada */
    {"L40S", 89}, {"L40", 89}, {"L20", 89}, {"L4", 89}, {"4090", 89}, {"4080", 89},
    /* Ampere */
    {"A100", 80}, {"A800", 80}, {"A30", 80}, {"A40", 86}, {"A10", 86}, {"A16", 86}, {"A2", 86},
    {"A6000", 86}, {"A5000", 86}, {"A4000", 86}, {"3090", 86}, {"3080", 86},
    /* Turing, Volta, Pascal */
    {"T4", 75}, {"2080", 75}, {"V100", 70}, {"P100", 60}, {"P40", 61}, {"P4", 61},
};

/* Words that name the vendor or the product line, not the model. */
static const char *const vendor_words[] = {"NVIDIA", "TESLA", "GEFORCE", "RTX", "QUADRO", "GPU"};

int gpu_type_sm(const char *gpu_type)
{
    const char *p = gpu_type;
    for (;;) {
        while (*p && !isalnum((unsigned char)*p))
            p++;
        if (!*p)
            return 0;
        size_t n = 0;
        while (isalnum((unsigned char)p[n]))
            n++;
        bool vendor = false;
        for (size_t i = 0; i < sizeof vendor_words / sizeof vendor_words[0]; i++)
            if (strlen(vendor_words[i]) == n && strncasecmp(p, vendor_words[i], n) == 0)
                vendor = true;
        if (!vendor)
            break;
        p += n;
    }
    int sm = 0;
    size_t best = 0;
    for (size_t i = 0; i < sizeof gpu_models / sizeof gpu_models[0]; i++) {
        size_t k = strlen(gpu_models[i].model);
        if (k > best && strncasecmp(p, gpu_models[i].model, k) == 0 && !isdigit((unsigned char)p[k])) {
            best = k;
            sm = gpu_models[i].sm;
        }
    }
    return sm;
}

bool gpu_architectures(const ptr_vec *invs, strbuf *out)
{
    int sms[32];
    size_t n = 0;
    for (size_t i = 0; i < invs->len; i++) {
        const pipe_minvocation *inv = invs->items[i];
        if (!pipe_invocation_needs_gpu(inv))
            continue;
        int sm = inv->resources.gpu_type ? gpu_type_sm(inv->resources.gpu_type) : 0;
        if (sm == 0)
            return false;
        size_t k = 0;
        while (k < n && sms[k] < sm)
            k++;
        if (k < n && sms[k] == sm)
            continue;
        if (n == sizeof sms / sizeof sms[0])
            return false;
        memmove(&sms[k + 1], &sms[k], (n - k) * sizeof sms[0]);
        sms[k] = sm;
        n++;
    }
    if (n == 0)
        return false;
    for (size_t k = 0; k < n; k++)
        sb_printf(out, "%s%d", k ? ";" : "", sms[k]);
    return true;
}
