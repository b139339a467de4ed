/* Writing outputs: atomically (temp file, fsync, rename) and only when the
   bytes change, so Make and Ninja see unchanged outputs as up to date. */
#ifndef PIPEC_WRITE_FILE_H
#define PIPEC_WRITE_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Returns 0, or -1 with a message in err. */
int write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errsize);
/* Leaves the file alone when it already holds exactly these bytes (so Make
   sees it unchanged); else replaces it atomically, without fsync: generated
   files can be made again. *changed says whether it wrote. */
int write_file_if_changed(const char *path, const void *data, size_t len, bool *changed, char *err,
                          size_t errsize);
/* Adds the execute bits (for generated scripts). */
int chmod_executable(const char *path);
/* mkdir -p. Returns 0 or -1 with a message. */
int make_dirs(const char *path, char *err, size_t errsize);
/* The same, calling made(arg, dir) for each directory it created. */
int make_dirs_noting(const char *path, void (*made)(void *arg, const char *dir), void *arg, char *err,
                     size_t errsize);
/* Whether the file at path holds exactly these bytes. */
bool file_has_bytes(const char *path, const void *data, size_t len);

#endif
