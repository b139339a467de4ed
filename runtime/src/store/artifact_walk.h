/* Walking an artifact on disk (private to store/): a folder's entries in
   byte order of names, never following a symbolic link, and where a link
   inside a folder artifact leads. What artifact.c's digest, checks,
   sealing and syncing share. */
#ifndef PIPE_ARTIFACT_WALK_H
#define PIPE_ARTIFACT_WALK_H

#include <dirent.h>
#include <stddef.h>
#include <sys/stat.h>

/* A folder tree deeper than this is refused (links are not followed, so a
   loop cannot occur, but a runaway program can nest). */
#define PIPE_ARTIFACT_MAX_DEPTH 256

/* The entries of folder path in byte order of names, "." and ".." left
   out: their number, with names[i]->d_name; or PIPE_EIO naming the folder.
   Free with pipe_artifact_list_free. */
int pipe_artifact_list(const char *path, struct dirent ***names, char *err, size_t errsize);
void pipe_artifact_list_free(struct dirent **names, int n);

/* Called for an entry of a walk with its path and lstat; 0 to go on. */
typedef int (*pipe_artifact_visit)(void *arg, const char *path, const struct stat *st, char *err, size_t errsize);

/* Calls visit for everything at path: below a folder, its entries in byte
   order of names, a folder's own entries before the folder (so that a
   folder is synced after what it holds), path itself last; and enter, when
   not NULL, for each folder before its entries (so that a copy makes the
   folder first). Links are visited, never followed. The first non-zero
   return stops the walk and is returned; PIPE_EIO naming an entry that
   cannot be read or a tree nested deeper than PIPE_ARTIFACT_MAX_DEPTH. */
int pipe_artifact_walk(const char *path, pipe_artifact_visit enter, pipe_artifact_visit visit, void *arg, char *err,
                       size_t errsize);

/* Whether the symbolic link at root/rel (rel: its path inside the folder
   root, with no link among its folders) leads out of root, resolved as
   the kernel resolves a path: each link met on the way followed, ".."
   taken from where that leaves it (a link to a deep folder followed by
   ".." stays deep; one to root followed by ".." leaves). A name that does
   not exist ends the resolution; the rest is taken as written. NULL when
   it stays inside; else why not: "is an absolute link", "goes above the
   top with `..`", "passes through too many links". The link's own text is
   copied into target (for the caller's message). */
const char *pipe_artifact_link_leaves(const char *root, const char *rel, char *target, size_t tsize);

#endif
