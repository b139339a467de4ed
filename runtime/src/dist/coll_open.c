/* A rank's collectives opened and closed (collectives.h): the backend
   chosen (coll_select.c) and started, and this rank's slot of the
   hung-rank table mapped. */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coll_watch.h"
#include "collectives.h"

static void watch_attach(pipe_coll *coll)
{
    const char *v = getenv("PIPE_SHM_FD");
    if (coll->world_size <= 1 || !v || !*v)
        return;
    char *end;
    errno = 0;
    long fd = strtol(v, &end, 10);
    size_t size = pipe_coll_watch_bytes(coll->local_world_size);
    struct stat st;
    if (errno || *end || fd < 0 || fd > 1 << 20 || fstat((int)fd, &st) != 0 || (size_t)st.st_size < size)
        return; /* not the launcher's segment: no watch, nothing else changes */
    void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
    if (map == MAP_FAILED)
        return;
    coll->watch_map = map;
    coll->watch_size = size;
    coll->watch = pipe_coll_watch_slots(map) + coll->local_rank;
    atomic_store(&coll->watch->pid, (int)getpid());
}

static void watch_detach(pipe_coll *coll)
{
    if (coll->watch_map)
        munmap(coll->watch_map, coll->watch_size);
    coll->watch_map = NULL;
    coll->watch = NULL;
}

int pipe_coll_open(pipe_coll *coll, char *err, size_t errsize)
{
    const pipe_coll_backend *b = pipe_coll_select(coll);
    int rc = b->init ? b->init(coll, err, errsize) : 0;
    if (rc != 0)
        return rc;
    coll->backend = b;
    watch_attach(coll);
    return 0;
}

void pipe_coll_close(pipe_coll *coll)
{
    if (coll->backend && coll->backend->destroy)
        coll->backend->destroy(coll);
    coll->backend = NULL;
    watch_detach(coll);
}
