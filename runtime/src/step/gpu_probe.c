#include "gpu_probe.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/util.h"

typedef int (*nvml_init_fn)(void);
typedef int (*nvml_count_fn)(unsigned int *);
typedef const char *(*nvml_string_fn)(int);

int pipe_gpu_probe(char *why, size_t whysize)
{
    const char *lib = getenv("PIPE_NVML_LIBRARY");
    if (!lib || !*lib)
        lib = "libnvidia-ml.so.1";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, whysize, "NVML cannot be loaded (%s): no NVIDIA driver here", e ? e : lib);
        return 0;
    }
    nvml_init_fn init = (nvml_init_fn)dlsym(h, "nvmlInit_v2");
    nvml_count_fn count = (nvml_count_fn)dlsym(h, "nvmlDeviceGetCount_v2");
    nvml_init_fn shutdown = (nvml_init_fn)dlsym(h, "nvmlShutdown");
    nvml_string_fn text = (nvml_string_fn)dlsym(h, "nvmlErrorString");
    unsigned int n = 0;
    if (!init || !count || !shutdown) {
        snprintf(why, whysize, "%s lacks nvmlInit_v2 or nvmlDeviceGetCount_v2", lib);
    } else {
        int rc = init();
        if (rc != 0) {
            snprintf(why, whysize, "NVML: %s", text ? text(rc) : "nvmlInit_v2 failed");
        } else {
            rc = count(&n);
            if (rc != 0)
                snprintf(why, whysize, "NVML: %s", text ? text(rc) : "nvmlDeviceGetCount_v2 failed");
            else if (n == 0)
                snprintf(why, whysize, "NVML found no GPU");
            shutdown();
        }
    }
    dlclose(h);
    return (int)n;
}
