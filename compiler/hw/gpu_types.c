#include "gpu_types.h"

#include <string.h>

#include "gpu_models.h"

int gpu_type_sm(const char *gpu_type)
{
    const gpu_model *m = gpu_model_find(gpu_type);
    return m ? m->sm : 0;
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
