/* The join through the rendezvous that every collectives backend starts
   with (private), from what the rank read of its world (rank_env.h). */
#ifndef PIPE_DIST_H
#define PIPE_DIST_H

#include <stddef.h>

#include "rank_env.h"
#include "rendezvous.h"

/* Connects to the rendezvous, announces this rank and waits until every
   rank of the world has joined (rdzv_timeout). The client stays open for
   the backend (NCCL shares its unique id through it). */
int pipe_dist_join(const pipe_dist_env *env, pipe_rdzv_client **out, char *err, size_t errsize);

#endif
