/* Artifacts on disk (private): an output or input is a file or, for a
   command step (`save_pretrained` writes one), a folder. What the store, the
   cache and the supervisor need to handle both alike: existence, a digest,
   what an artifact may hold, read-only and durable, and an atomic move or
   copy into place. A committed artifact is read-only and holds nothing
   that changes with a file outside it (docs/runtime.md, "Artifact
   store"). */
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
   target text: what it leads to is inside, hashed as itself). PIPE_ENOENT
   when path does not exist, PIPE_EINVAL naming a link that leads out of
   the folder (pipe_artifact_check), PIPE_EIO with a message naming the
   entry that cannot be read. */
int pipe_artifact_digest(const char *path, char hex[PIPE_SHA256_HEX_SIZE], char *err, size_t errsize);

/* What a step wrote at path, before it becomes the artifact `name` (used in
   messages: "model/sub/cur is a symbolic link to ..."): a regular file with
   no other hard link, or a folder of files, folders and symbolic links
   where each link leads to something inside it (resolved as the kernel
   resolves it, not absolute, no ".." past the top) and each file with
   several hard links has all of them inside. A consumer then reads what
   the digest covers. PIPE_EINVAL naming the entry and why; PIPE_ENOENT
   when path does not exist; PIPE_EIO when it cannot be read. */
int pipe_artifact_check(const char *path, const char *name, char *err, size_t errsize);

/* Takes write permission away from a file, or from a folder and all it
   holds (a file 0644 becomes 0444, a folder 0755 0555; the owner keeps
   reading); links are left alone. PIPE_EIO naming the entry. */
int pipe_artifact_seal(const char *path, char *err, size_t errsize);

/* fsync of a file, or of every file and folder below a folder and of the
   folder itself. PIPE_EIO naming the entry. */
int pipe_artifact_sync(const char *path, char *err, size_t errsize);

/* Moves a finished artifact into place: seals and syncs it, renames tmp to
   final (replacing a file, or an empty folder), syncs final's folder; the
   syncs are left to the runner's group commit when deferred (commit.h). */
int pipe_artifact_commit(const char *tmp, const char *final, bool deferred, char *err, size_t errsize);

/* The bytes of file src into dst (created with mode, truncated), fsynced.
   PIPE_EIO naming the file that cannot be read or written. */
int pipe_artifact_copy_file(const char *src, const char *dst, mode_t mode, char *err, size_t errsize);

/* dst (which must not exist) as a hard link to file src, made read-only
   (which src then is too); a read-only copy where no link can be made or
   src cannot be made read-only. Two artifacts never share a writable
   file. */
int pipe_artifact_link(const char *src, const char *dst, char *err, size_t errsize);

/* Copies a folder tree to dst (which must not exist), files as
   pipe_artifact_link makes them, through a temporary name in dst's folder
   renamed at the end, sealed: dst is complete or absent. */
int pipe_artifact_copy_folder(const char *src, const char *dst, bool deferred, char *err, size_t errsize);

#endif
