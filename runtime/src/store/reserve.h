/* Room for the records on a full disk (docs/reliability.md, "Logs and a
   full disk"): a few KB taken at the start of a run or an invocation as a
   file of their own, given back just before the record of the end is
   written; and the message that names the disk that filled. */
#ifndef PIPE_STORE_RESERVE_H
#define PIPE_STORE_RESERVE_H

#include <stdbool.h>
#include <stddef.h>

#define PIPE_RUN_RESERVE_BYTES (16u << 10)  /* run.yaml's last status */
#define PIPE_STEP_RESERVE_BYTES (64u << 10) /* a failed step.yaml with its log's tail */

/* DIR/NAME (`.reserve` for a run and machine 0, `.reserve.machine-N` for
   machine N, which shares the invocation folder), bytes long and allocated
   on the disk, its path into *path (malloc'ed). 0, or the errno (ENOSPC:
   the disk has less free; nothing is left behind). */
int pipe_reserve_take(const char *dir, const char *name, size_t bytes, char **path);
/* Gives the room back (removes the file); *path is freed and NULL. */
void pipe_reserve_release(char **path);

/* Room a local run lends the supervisors it forks, so that a step costs no
   file of its own (three changes to the disk's metadata a step): one file,
   RUN/.reserve.steps, of PIPE_STEP_RESERVE_BYTES ranges, each lent to one
   supervisor at a time. A supervisor gives its range's room back by
   freeing its blocks (pipe_reserve_lease_give_back), and the runner
   allocates it again once that supervisor has ended; a range that no
   longer fits is not lent, and a supervisor without one takes its own
   file as `step` does. */
typedef struct pipe_reserve_pool {
    char *path;
    int fd;               /* -1: nothing is lent (no file, or it cannot free a range) */
    size_t n;             /* ranges in the file */
    unsigned char *state; /* per range: RANGE_FREE, RANGE_LENT or RANGE_EMPTY */
} pipe_reserve_pool;

/* Makes the file with one range. A file system that cannot allocate or
   free a range leaves the pool closed; that is not an error. */
void pipe_reserve_pool_open(pipe_reserve_pool *p, const char *run_dir);
/* A free range (allocated when the file needs one more), or -1. */
long pipe_reserve_pool_lend(pipe_reserve_pool *p);
/* Range r is back; given_back: its supervisor may have freed it (it did
   not end well), so it is allocated again. */
void pipe_reserve_pool_return(pipe_reserve_pool *p, long r, bool given_back);
/* Removes the file. */
void pipe_reserve_pool_close(pipe_reserve_pool *p);

/* A range the runner lent a supervisor it forked
   (pipe_step_options.reserve_lent; path NULL: none). */
typedef struct pipe_reserve_lease {
    const char *path;
    long long offset;
} pipe_reserve_lease;

/* The lease's room back to the disk: its range's blocks freed. */
void pipe_reserve_lease_give_back(const char *path, long long offset);
/* "no space left on device writing PATH (the disk of the store, mounted at
   MOUNT, is full)", malloc'ed; for another errno its strerror instead. */
char *pipe_disk_error(const char *path, int errnum);

#endif
