/* The shared memory of a machine's ranks (coll_shm.h). */
#include "coll_shm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "coll_watch.h"
#include "pipe/error.h"
#include "util/util.h"

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif

/* A slot: the largest chunk the CPU backend reduces at once. 512 KiB: the
   two sets of slots and the ranks' chunks of 4 ranks stay in the cache
   between the copy in, the reduction and the copy out, and a 64 MiB
   all-reduce passes 129 barriers. Measured on 2 cores (docs/performance.md
   "All-reduce"): 4 MiB about 2x slower, 1 and 2 MiB slower, 128 KiB paid
   for its barriers. */
enum { SLOT_BYTES = 512 << 10, HEADER_BYTES = 4096 };

size_t pipe_coll_shm_bytes(int local_world)
{
    return pipe_coll_watch_bytes(local_world) + HEADER_BYTES + 2 * (size_t)(local_world + 1) * SLOT_BYTES;
}

pipe_coll_shm_header *pipe_coll_shm_header_of(void *map, int local_world)
{
    return (pipe_coll_shm_header *)((unsigned char *)map + pipe_coll_watch_bytes(local_world));
}

unsigned char *pipe_coll_shm_slots(pipe_coll_shm_header *h) { return (unsigned char *)h + HEADER_BYTES; }

int pipe_coll_shm_create(int local_world, int *fd, char *err, size_t errsize)
{
    size_t size = pipe_coll_shm_bytes(local_world), watch = pipe_coll_watch_bytes(local_world);
    /* Close-on-exec: forked ranks inherit it; a program a step executes has
       no use for it. */
    int f = (int)syscall(SYS_memfd_create, "pipe-collectives", MFD_CLOEXEC);
    if (f < 0 || ftruncate(f, (off_t)size) != 0) {
        pipe_errf(err, errsize, "cannot create the shared memory of the collectives (%zu MiB): %s", size >> 20,
                  strerror(errno));
        if (f >= 0)
            close(f);
        return PIPE_ENOMEM;
    }
    unsigned char *base = mmap(NULL, watch + HEADER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    if (base == MAP_FAILED) {
        pipe_errf(err, errsize, "cannot map the shared memory of the collectives: %s", strerror(errno));
        close(f);
        return PIPE_ENOMEM;
    }
    pipe_coll_watch_init(base, local_world);
    pipe_coll_shm_header *h = pipe_coll_shm_header_of(base, local_world);
    pthread_barrierattr_t attr;
    pthread_barrierattr_init(&attr);
    pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    int rc = pthread_barrier_init(&h->barrier, &attr, (unsigned)local_world);
    pthread_barrierattr_destroy(&attr);
    h->local_world = (uint32_t)local_world;
    h->slot_bytes = SLOT_BYTES;
    munmap(base, watch + HEADER_BYTES);
    if (rc != 0) {
        pipe_errf(err, errsize, "cannot set up the barrier of the collectives");
        close(f);
        return PIPE_ENOMEM;
    }
    *fd = f;
    return 0;
}
