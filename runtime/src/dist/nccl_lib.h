/* NCCL and the CUDA runtime functions the NCCL backend calls (coll_nccl.c),
   loaded with dlopen when a rank first starts that backend. Linked, they
   were loaded by every start of every bundle built with NCCL, a CPU step's
   too: libnccl and the libstdc++ it needs are most of a bundle's start-up
   time and make each fork of the supervisor dearer (docs/performance.md,
   "Launch"). Compiled only with PIPE_HAVE_NCCL. */
#ifndef PIPE_NCCL_LIB_H
#define PIPE_NCCL_LIB_H

#if defined(PIPE_HAVE_NCCL) && PIPE_HAVE_NCCL

#include <cuda_runtime.h>
#include <nccl.h>
#include <stddef.h>

typedef struct pipe_nccl_lib {
    ncclResult_t (*GetUniqueId)(ncclUniqueId *);
    ncclResult_t (*CommInitRankConfig)(ncclComm_t *, int, ncclUniqueId, int, ncclConfig_t *);
    ncclResult_t (*CommGetAsyncError)(ncclComm_t, ncclResult_t *);
    ncclResult_t (*CommAbort)(ncclComm_t);
    ncclResult_t (*CommDestroy)(ncclComm_t);
    const char *(*GetErrorString)(ncclResult_t);
    ncclResult_t (*AllReduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
    ncclResult_t (*Broadcast)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*AllGather)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
    cudaError_t (*StreamCreateWithFlags)(cudaStream_t *, unsigned int);
    cudaError_t (*StreamQuery)(cudaStream_t);
    cudaError_t (*StreamDestroy)(cudaStream_t);
    cudaError_t (*Malloc)(void **, size_t);
    cudaError_t (*Free)(void *);
    const char *(*CudaErrorString)(cudaError_t);
} pipe_nccl_lib;

/* The functions, loaded once per process: NULL with why in err when NCCL or
   the CUDA runtime cannot be loaded. */
const pipe_nccl_lib *pipe_nccl_lib_load(char *err, size_t errsize);

#endif

#endif
