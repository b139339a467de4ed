/* SHA-256 (FIPS 180-4), streaming, and the digest of a file. Private to the
   runtime: step.yaml records the digest of every input and output, and cache
   keys are digests. */
#ifndef PIPE_SHA256_H
#define PIPE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define PIPE_SHA256_SIZE 32
#define PIPE_SHA256_HEX_SIZE 65 /* 64 lower-case hex digits and a NUL */

typedef struct pipe_sha256 {
    uint32_t h[8];
    uint64_t length; /* bytes hashed so far */
    unsigned char block[64];
    size_t used; /* bytes waiting in block */
} pipe_sha256;

void pipe_sha256_init(pipe_sha256 *s);
void pipe_sha256_update(pipe_sha256 *s, const void *data, size_t len);
void pipe_sha256_final(pipe_sha256 *s, unsigned char digest[PIPE_SHA256_SIZE]);
/* Both at once: the hex digest of len bytes. */
void pipe_sha256_hex_of(const void *data, size_t len, char hex[PIPE_SHA256_HEX_SIZE]);
void pipe_sha256_to_hex(const unsigned char digest[PIPE_SHA256_SIZE], char hex[PIPE_SHA256_HEX_SIZE]);
/* The hex digest of a file's bytes, read in blocks. PIPE_ENOENT when it does
   not exist, PIPE_EIO when it cannot be read, with a message naming it. */
int pipe_sha256_file(const char *path, char hex[PIPE_SHA256_HEX_SIZE], char *err, size_t errsize);

#endif
