/* Artifacts on disk (private): an output or input is a file or, for a
   command step (`save_pretrained` writes one), a folder. What the store, the
   cache and the supervisor need to handle both alike: existence, a digest,
   durability, and an atomic move or copy into place. */
#ifndef PIPE_ARTIFACT_H
#define PIPE_ARTIFACT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "pipe/base.h"

/* A regular file or a folder (symbolic links followed). */
bool pipe_artifact_exists(const char *path);

/* The hex SHA-256 of a file's bytes (as pipe_sha256_file), or of a folder:
   "pipe-folder-1" and, per entry in byte order of names, its kind, name and
   content digest (a file's bytes, a folder's own digest, a symbolic link's
   target text). PIPE_ENOENT when path does not exist, PIPE_EIO with a
   message naming the entry that cannot be read. */
int pipe_artifact_digest(const char *path, char hex[PIPE_SHA256_HEX_SIZE], char *err, size_t errsize);

/* fsync of a file, or of every file and folder below a folder and of the
   folder itself. PIPE_EIO naming the entry. */
int pipe_artifact_sync(const char *path, char *err, size_t errsize);

/* Moves a finished artifact into place: syncs it, renames tmp to final
   (replacing a file, or an empty folder), syncs final's folder. */
int pipe_artifact_commit(const char *tmp, const char *final, char *err, size_t errsize);

/* The bytes of file src into dst (created with mode, truncated), fsynced.
   PIPE_EIO naming the file that cannot be read or written. */
int pipe_artifact_copy_file(const char *src, const char *dst, mode_t mode, char *err, size_t errsize);

/* Copies a folder tree to dst (which must not exist), hard-linking files
   where the file system allows, through a temporary name in dst's folder
   renamed at the end: dst is complete or absent. */
int pipe_artifact_copy_folder(const char *src, const char *dst, char *err, size_t errsize);

#endif
