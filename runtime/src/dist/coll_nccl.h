/* The NCCL collectives backend (private), for GPU steps: rank 0's
   ncclUniqueId is shared through the rendezvous, then ncclCommInitRank.
   Compiled only when the runtime is built with NCCL (PIPE_HAVE_NCCL). */
#ifndef PIPE_COLL_NCCL_H
#define PIPE_COLL_NCCL_H

#include "collectives.h"

#if defined(PIPE_HAVE_NCCL) && PIPE_HAVE_NCCL
extern const pipe_coll_backend pipe_coll_nccl_backend;
#endif

#endif
