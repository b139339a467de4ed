/* The stream pipe_output_open returns on rank 0 (private): a FILE over the
   output's descriptor that hashes the bytes as they are written, so that
   committing the output needs no second read of it. The digest is kept only
   while the file is written front to back: a write anywhere but at the end
   of what was hashed (after an fseek back) makes it unknown, and the
   supervisor then reads the file (digest_note.h). The stream has no
   descriptor of its own: fileno() returns -1 (pipe_output_path is the way
   to a descriptor or mmap). */
#ifndef PIPE_HASHED_STREAM_H
#define PIPE_HASHED_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pipe/base.h"

typedef struct pipe_hashed_stream pipe_hashed_stream;

/* A "wb" stream writing to fd (which stays the caller's: fclose does not
   close it). NULL with errno set when it cannot be made. */
FILE *pipe_hashed_stream_open(int fd, pipe_hashed_stream **hs);

/* After fclose of the stream: the hex digest of the file's bytes and their
   count, when every byte went through the stream in order; false when the
   digest is unknown. */
bool pipe_hashed_stream_digest(pipe_hashed_stream *hs, char hex[PIPE_SHA256_HEX_SIZE], uint64_t *size);

void pipe_hashed_stream_free(pipe_hashed_stream *hs);

#endif
