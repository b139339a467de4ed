/* NCCL and the CUDA runtime through dlopen (nccl_lib.h). The build names
   the files it found (PIPE_NCCL_LIBRARY_PATH, PIPE_CUDART_LIBRARY_PATH);
   where they are not there (a bundle built in one image and run in
   another), the sonames. The CUDA runtime the executable already has (a
   bundle with CUDA sources links it) is the one dlopen returns, so the
   backend's streams are the step's. */
#include "nccl_lib.h"

#if defined(PIPE_HAVE_NCCL) && PIPE_HAVE_NCCL

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "pipe/error.h"
#include "util/util.h"

#ifndef PIPE_NCCL_LIBRARY_PATH
#define PIPE_NCCL_LIBRARY_PATH "libnccl.so.2"
#endif
#ifndef PIPE_CUDART_LIBRARY_PATH
#define PIPE_CUDART_LIBRARY_PATH "libcudart.so"
#endif

static pipe_nccl_lib lib;
static char why[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded; /* 1: every function found */

static void *open_first(const char *const *names, size_t n)
{
    void *h = NULL;
    for (size_t i = 0; i < n && !h; i++)
        if (names[i] && *names[i])
            h = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    return h;
}

/* dlsym into a function pointer, through memcpy (ISO C has no cast
   between object and function pointers). False when missing. */
static int sym(void *h, const char *name, void *fn, size_t size)
{
    void *p = dlsym(h, name);
    if (!p) {
        snprintf(why, sizeof why, "the library has no %s", name);
        return 0;
    }
    memcpy(fn, &p, size);
    return 1;
}

#define SYM(h, field, name) sym(h, name, &lib.field, sizeof lib.field)

static void load(void)
{
    /* CUDA 12 and later name the soname by the major version alone. */
    char cudart_major[32];
    snprintf(cudart_major, sizeof cudart_major, "libcudart.so.%d", CUDART_VERSION / 1000);
    const char *cudart_names[] = {PIPE_CUDART_LIBRARY_PATH, cudart_major, "libcudart.so"};
    const char *nccl_names[] = {PIPE_NCCL_LIBRARY_PATH, "libnccl.so.2", "libnccl.so"};
    void *cudart = open_first(cudart_names, sizeof cudart_names / sizeof cudart_names[0]);
    if (!cudart) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "cannot load the CUDA runtime (%s)", e ? e : PIPE_CUDART_LIBRARY_PATH);
        return;
    }
    void *nccl = open_first(nccl_names, sizeof nccl_names / sizeof nccl_names[0]);
    if (!nccl) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "cannot load NCCL (%s)", e ? e : PIPE_NCCL_LIBRARY_PATH);
        return;
    }
    loaded = SYM(nccl, GetUniqueId, "ncclGetUniqueId") && SYM(nccl, CommInitRankConfig, "ncclCommInitRankConfig") &&
             SYM(nccl, CommGetAsyncError, "ncclCommGetAsyncError") && SYM(nccl, CommAbort, "ncclCommAbort") &&
             SYM(nccl, CommDestroy, "ncclCommDestroy") && SYM(nccl, GetErrorString, "ncclGetErrorString") &&
             SYM(nccl, AllReduce, "ncclAllReduce") && SYM(nccl, Broadcast, "ncclBroadcast") &&
             SYM(nccl, AllGather, "ncclAllGather") &&
             SYM(cudart, StreamCreateWithFlags, "cudaStreamCreateWithFlags") &&
             SYM(cudart, StreamQuery, "cudaStreamQuery") && SYM(cudart, StreamDestroy, "cudaStreamDestroy") &&
             SYM(cudart, Malloc, "cudaMalloc") && SYM(cudart, Free, "cudaFree") &&
             SYM(cudart, CudaErrorString, "cudaGetErrorString");
}

const pipe_nccl_lib *pipe_nccl_lib_load(char *err, size_t errsize)
{
    pthread_once(&once, load);
    if (loaded)
        return &lib;
    pipe_errf(err, errsize, "%s", why);
    return NULL;
}

#endif
