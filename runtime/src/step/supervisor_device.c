/* Where an invocation's ranks run (supervisor.h), decided once before its
   cache key, which names the device: the CPU, or the GPUs they are given
   with their models. A step that asks for GPUs on a machine without a
   usable one either fails before it starts (a native step built with CUDA
   would fail in every rank when it selects its device) or runs on the CPU
   with the launch of `cpu = true`, so that its ranks still form one process
   group. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_probe.h"
#include "observe/gpu_list.h"
#include "observe/nvml.h"
#include "pipe/base.h"
#include "pipe/error.h"
#include "supervisor.h"

/* "gpu: 2 x NVIDIA H100 80GB HBM3, 1 x NVIDIA A100-SXM4-40GB": the models
   of the GPUs the ranks are given (gpu_ids when set, else
   CUDA_VISIBLE_DEVICES, else every GPU), as many as the step uses, in
   order; "unknown model" where NVML cannot name one. */
static void describe_gpus(const pipe_supervisor *s, char *buf, size_t size)
{
    const pipe_minvocation *inv = s->id.inv;
    char why[256];
    pipe_nvml *nv = NULL;
    unsigned count = 0;
    if (pipe_nvml_open(&nv, why, sizeof why) != 0 || pipe_nvml_count(nv, &count, why, sizeof why) != 0) {
        const char *declared = getenv("PIPE_LOCAL_GPUS"); /* trusted as the local scheduler trusts it */
        count = declared && pipe_all_digits(declared) && strlen(declared) <= 6 ? (unsigned)atoi(declared) : 0;
    }
    char **specs = NULL;
    size_t n = 0;
    const char *which = s->launch.gpu_ids[0] ? s->launch.gpu_ids : getenv("CUDA_VISIBLE_DEVICES");
    if (pipe_gpu_list(count, which, &specs, &n) != 0)
        n = 0;
    size_t used = inv->accelerate.enabled && inv->accelerate.multi_gpu ? (size_t)s->id.nlocal
                  : inv->resources.gpu > 0                            ? (size_t)inv->resources.gpu
                                                                      : 1;
    if (used > n)
        used = n;
    enum { MODELS = 8 };
    char names[MODELS][96];
    size_t counts[MODELS] = {0}, nmodels = 0, others = 0;
    for (size_t k = 0; k < used; k++) {
        pipe_nvml_gpu g;
        const char *name = nv && pipe_nvml_device(nv, specs[k], &g, why, sizeof why) == 0 ? g.name : "unknown model";
        size_t m = 0;
        while (m < nmodels && strcmp(names[m], name) != 0)
            m++;
        if (m == nmodels && nmodels == MODELS) {
            others++;
            continue;
        }
        if (m == nmodels)
            snprintf(names[nmodels++], sizeof names[0], "%s", name);
        counts[m]++;
    }
    size_t len = (size_t)snprintf(buf, size, "gpu");
    for (size_t m = 0; m < nmodels && len < size; m++)
        len += (size_t)snprintf(buf + len, size - len, "%s%zu x %s", m ? ", " : ": ", counts[m], names[m]);
    if (others && len < size)
        snprintf(buf + len, size - len, ", %zu of other models", others);
    pipe_gpu_list_free(specs, n);
    pipe_nvml_close(nv);
}

/* A native step built with CUDA selects its device in every rank: without
   a GPU each would fail. */
static bool selects_device(const pipe_step_ident *id)
{
    return !id->command && id->prog->cuda && id->prog->cuda->select_device;
}

/* Whether this machine has a GPU the step can use, else why not.
   PIPE_LOCAL_GPUS, when set, is trusted as the local scheduler trusts it. */
static bool gpu_usable(char *why, size_t whysize)
{
    const char *declared = getenv("PIPE_LOCAL_GPUS");
    if (declared && *declared)
        return true;
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    if (cvd && (!*cvd || strcmp(cvd, "-1") == 0)) {
        snprintf(why, whysize, "CUDA_VISIBLE_DEVICES=\"%s\" hides them all", cvd);
        return false;
    }
    return pipe_gpu_probe(why, whysize) > 0;
}

void pipe_supervisor_choose_device(pipe_supervisor *s)
{
    const pipe_step_ident *id = &s->id;
    const pipe_minvocation *inv = id->inv;
    bool asks = !s->launch.cpu_only && pipe_invocation_needs_gpu(inv);
    bool gpu_code = !s->launch.cpu_only && !id->command && id->ms->needs_cuda;
    char why[512] = "";
    snprintf(s->device, sizeof s->device, "cpu");
    s->no_gpu[0] = '\0';
    if (!asks && !gpu_code)
        return;
    if (gpu_usable(why, sizeof why)) {
        describe_gpus(s, s->device, sizeof s->device);
        return;
    }
    if (!asks)
        return; /* CUDA code without a GPU count: its worker says what it finds */
    long long asked = inv->resources.gpu > 0 ? (long long)inv->resources.gpu : (long long)id->nlocal;
    char what[64];
    if (inv->resources.gpu > 0)
        snprintf(what, sizeof what, "@resources(gpu = %lld)", asked);
    else
        snprintf(what, sizeof what, "multi_gpu with %d local ranks", id->nlocal);
    snprintf(s->no_gpu, sizeof s->no_gpu, "step `%s` asks for %lld GPU%s (%s) but this machine has no usable GPU: %s",
             inv->id, asked, asked == 1 ? "" : "s", what, why);
    /* Every rank on the CPU, as with cpu = true: ACCELERATE_USE_CPU, no
       visible GPU, the CPU collectives; one training, not world copies. */
    if (!selects_device(id))
        pipe_launch_use_cpu(&s->launch);
}

int pipe_supervisor_check_device(pipe_supervisor *s, char *err, size_t errsize)
{
    const pipe_step_ident *id = &s->id;
    if (!s->no_gpu[0])
        return 0;
    if (selects_device(id)) {
        pipe_errf(err, errsize, "%s", s->no_gpu);
        return PIPE_ERESOURCE;
    }
    char how[128];
    if (id->world > 1)
        snprintf(how, sizeof how, "its %d ranks run on the CPU as one process group, as with cpu = true", id->world);
    else
        snprintf(how, sizeof how, "it runs on the CPU");
    pipe_supervisor_note(&s->log, "warning: %s; %s", s->no_gpu, how);
    if (!id->o.echo) /* with --echo the note reached stderr */
        fprintf(stderr, "warning: %s; %s\n", s->no_gpu, how);
    return 0;
}
