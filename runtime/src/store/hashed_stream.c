/* fopencookie is a GNU extension (glibc, musl). */
#define _GNU_SOURCE

#include "hashed_stream.h"

#include "hash_pipeline.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

/* Written bytes are handed to the disk every this many (sync_file_range's
   SYNC_FILE_RANGE_WRITE: the write-back starts, nothing waits for it), so
   that the disk writes while the step goes on writing and hashing, and the
   commit that makes the output durable (an fsync, or the run's syncfs)
   finds little left to write: without it the kernel starts only at that
   commit (or once a tenth of memory is dirty), and the disk's time adds to
   the hashing's instead of hiding behind it. */
#define WRITE_BEHIND (8u << 20)

struct pipe_hashed_stream {
    int fd;
    /* Past PIPE_HASH_PIPELINE_MIN bytes a thread hashes (hash_pipeline.h) while this one
       writes; until then (or when no thread can start) sha, on this one. */
    pipe_hash_pipeline *pipe;
    bool inline_only; /* no thread could start */
    pipe_sha256 sha;
    uint64_t pos;    /* the descriptor's offset */
    uint64_t behind; /* bytes before this were handed to the disk (WRITE_BEHIND) */
    uint64_t hashed; /* bytes 0..hashed-1 of the file went through sha */
    bool valid;      /* false once a write landed elsewhere than at `hashed` */
    bool done;       /* sha finished or discarded */
    char hex[PIPE_SHA256_HEX_SIZE];
};

static ssize_t on_write(void *cookie, const char *buf, size_t size)
{
    pipe_hashed_stream *hs = cookie;
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(hs->fd, buf + off, size - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    if (off > 0) {
        if (hs->valid && hs->pos == hs->hashed) {
            if (!hs->pipe && !hs->inline_only && hs->hashed + off > PIPE_HASH_PIPELINE_MIN &&
                !(hs->pipe = pipe_hash_pipeline_start(&hs->sha)))
                hs->inline_only = true;
            if (hs->pipe)
                pipe_hash_pipeline_feed(hs->pipe, buf, off);
            else
                pipe_sha256_update(&hs->sha, buf, off);
            hs->hashed += off;
        } else {
            hs->valid = false;
        }
        hs->pos += off;
        if (hs->pos >= hs->behind + WRITE_BEHIND) {
            (void)sync_file_range(hs->fd, (off_t)hs->behind, (off_t)(hs->pos - hs->behind), SYNC_FILE_RANGE_WRITE);
            hs->behind = hs->pos;
        }
    }
    /* glibc reads a short count (0 included) as an error and keeps the rest
       buffered. Never -1 (fopencookie(3)): a large fwrite that goes straight
       to this function takes it for SIZE_MAX bytes written and then reads a
       byte past the caller's buffer (seen under TSan with a full disk). */
    return (ssize_t)off;
}

/* fseek, ftell and rewind: the descriptor moves; the digest stays valid
   until a write lands elsewhere than at the end of what was hashed. */
static int on_seek(void *cookie, off64_t *offset, int whence)
{
    pipe_hashed_stream *hs = cookie;
    off_t to = lseek(hs->fd, (off_t)*offset, whence);
    if (to < 0)
        return -1;
    hs->pos = (uint64_t)to;
    *offset = (off64_t)to;
    return 0;
}

static int on_close(void *cookie)
{
    (void)cookie; /* the descriptor is the caller's: it is fsynced before close */
    return 0;
}

FILE *pipe_hashed_stream_open(int fd, pipe_hashed_stream **out)
{
    *out = NULL;
    pipe_hashed_stream *hs = calloc(1, sizeof *hs);
    if (!hs)
        return NULL;
    hs->fd = fd;
    hs->valid = true;
    pipe_sha256_init(&hs->sha);
    cookie_io_functions_t io = {.read = NULL, .write = on_write, .seek = on_seek, .close = on_close};
    FILE *f = fopencookie(hs, "wb", io);
    if (!f) {
        int saved = errno;
        pipe_hashed_stream_free(hs);
        errno = saved;
        return NULL;
    }
    *out = hs;
    return f;
}

bool pipe_hashed_stream_digest(pipe_hashed_stream *hs, char hex[PIPE_SHA256_HEX_SIZE], uint64_t *size)
{
    if (!hs->done) {
        unsigned char d[PIPE_SHA256_SIZE];
        if (!hs->pipe) {
            pipe_sha256_final(&hs->sha, d);
        } else {
            pipe_sha256_discard(&hs->sha); /* unused: the pipeline hashed */
            if (!hs->valid)
                pipe_hash_pipeline_cancel(hs->pipe); /* the digest is lost anyway */
            else if (!pipe_hash_pipeline_finish(hs->pipe, d))
                hs->valid = false; /* a copy in a forked child */
            hs->pipe = NULL;
        }
        if (hs->valid)
            pipe_sha256_to_hex(d, hs->hex);
        hs->done = true;
    }
    if (!hs->valid)
        return false;
    snprintf(hex, PIPE_SHA256_HEX_SIZE, "%s", hs->hex);
    *size = hs->hashed;
    return true;
}

void pipe_hashed_stream_free(pipe_hashed_stream *hs)
{
    if (!hs)
        return;
    if (!hs->done) {
        pipe_sha256_discard(&hs->sha);
        pipe_hash_pipeline_cancel(hs->pipe); /* a failed or abandoned output */
    }
    free(hs);
}
