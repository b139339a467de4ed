/* Room for the records on a full disk (docs/reliability.md, "Logs and a
   full disk"): a few KB taken at the start of a run or an invocation as a
   file of their own, given back just before the record of the end is
   written; and the message that names the disk that filled. */
#ifndef PIPE_STORE_RESERVE_H
#define PIPE_STORE_RESERVE_H

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
/* "no space left on device writing PATH (the disk of the store, mounted at
   MOUNT, is full)", malloc'ed; for another errno its strerror instead. */
char *pipe_disk_error(const char *path, int errnum);

#endif
