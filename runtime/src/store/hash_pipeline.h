/* SHA-256 on a second thread, so that hashing and the I/O around it (the
   write of a streamed output, the read of a file) go at the pace of the
   slower of the two instead of the sum. The bytes travel through a bounded
   ring of buffers: the producer copies (or reads) into a free slot and
   publishes it; the hashing thread takes published slots in order and gives
   them back. The digest is the plain SHA-256 of the bytes in the order they
   were fed, the same as pipe_sha256_update on one thread.

   Threads and fork: the hashing thread blocks every signal (they stay the
   step's), and a fork while a pipeline is alive leaves the child a dead
   copy: feeding it does nothing and finishing it gives no digest (the child
   has no hashing thread; nothing in it waits for one). */
#ifndef PIPE_HASH_PIPELINE_H
#define PIPE_HASH_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "pipe/base.h"

typedef struct pipe_hash_pipeline pipe_hash_pipeline;

/* Below this many bytes a thread costs more than it hides: hash inline. */
#define PIPE_HASH_PIPELINE_MIN (1 << 20)

/* A hashing thread and its ring; NULL (errno set) when memory or a thread
   cannot be had: the caller hashes on its own thread then. With from, the
   thread goes on from that state (bytes hashed so far on the caller's
   thread), which it takes over: *from is left empty (from is untouched
   when NULL is returned). */
pipe_hash_pipeline *pipe_hash_pipeline_start(pipe_sha256 *from);

/* Copies len bytes into the ring, waiting while every slot is full. */
void pipe_hash_pipeline_feed(pipe_hash_pipeline *p, const void *data, size_t len);

/* For a producer that reads into the ring itself: the free slot to fill
   (waiting for one) and its capacity; then publish with the count filled
   (0 publishes nothing). */
void *pipe_hash_pipeline_slot(pipe_hash_pipeline *p, size_t *capacity);
void pipe_hash_pipeline_publish(pipe_hash_pipeline *p, size_t len);

/* Waits until everything fed is hashed, then ends the thread and frees p.
   false when the digest is unknown (a copy in a forked child). */
bool pipe_hash_pipeline_finish(pipe_hash_pipeline *p, unsigned char digest[PIPE_SHA256_SIZE]);

/* Ends the thread without hashing what is still queued, and frees p (a
   failed or abandoned output). NULL is fine. */
void pipe_hash_pipeline_cancel(pipe_hash_pipeline *p);

/* pipe_sha256_file's digest of the file at path, read on this thread while
   another hashes (the file's read and the hash overlap); the same errors. */
int pipe_hash_pipeline_file(const char *path, char hex[PIPE_SHA256_HEX_SIZE], char *err, size_t errsize);

/* A large file hashed in the background while the caller does something
   else with it (a command step's output, fsynced and moved into place):
   start opens it (NULL for a folder, a small file, or no thread: nothing
   to wait for), then note waits for the digest and, when the file did not
   change while it was read, leaves it in a digest note for final_path (the
   file's path by then; digest_note.h), where the supervisor takes it
   instead of reading the file again. note(h, NULL) only waits and frees. */
typedef struct pipe_file_hash pipe_file_hash;
pipe_file_hash *pipe_file_hash_start(const char *path);
void pipe_file_hash_note(pipe_file_hash *h, const char *final_path);

#endif
