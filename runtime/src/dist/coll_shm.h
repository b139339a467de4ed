/* The shared memory of a machine's ranks (private): one segment per
   attempt, a memfd the launcher creates (pipe_launch_begin) and passes to
   its local ranks as PIPE_SHM_FD. Its layout, in this order:

     the hung-rank table      coll_watch.h: the supervisor reads it
     a header                 a process-shared barrier for the local ranks
     a slot per local rank    the CPU backend's chunks (coll_cpu.c)
     the result               one more slot
     the same again           a second set: chunks alternate between them

   The launcher, the CPU backend and the supervisor all go by this file, and
   it calls none of them. */
#ifndef PIPE_COLL_SHM_H
#define PIPE_COLL_SHM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pipe_coll_shm_header {
    pthread_barrier_t barrier;
    uint32_t local_world;
    uint64_t slot_bytes;
} pipe_coll_shm_header;

/* The whole segment's size for local_world ranks. */
size_t pipe_coll_shm_bytes(int local_world);

/* Creates the segment the local ranks share (a memfd, close-on-exec, with
   an empty hung-rank table and a process-shared barrier for local_world
   ranks). PIPE_ENOMEM with a message when it cannot. */
int pipe_coll_shm_create(int local_world, int *fd, char *err, size_t errsize);

/* In a mapping of the whole segment: the header, and the slots after it. */
pipe_coll_shm_header *pipe_coll_shm_header_of(void *map, int local_world);
unsigned char *pipe_coll_shm_slots(pipe_coll_shm_header *h);

#endif
