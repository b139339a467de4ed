/* TensorBoard event files (events.out.tfevents.*): the scalars in them, as
   torch.utils.tensorboard, tensorboardX and TensorFlow write them. The
   file is TFRecord framing around Event protobuf messages; this reads the
   few fields it needs by hand (no protobuf library). Private to the runtime. */
#ifndef PIPE_TFEVENTS_H
#define PIPE_TFEVENTS_H

#include <stddef.h>
#include <stdint.h>

/* One scalar: the summary value's tag (raw bytes, not NUL-terminated), the
   event's step and wall time (seconds since the epoch). */
typedef void (*pipe_tfevents_fn)(void *arg, const char *tag, size_t tag_len, int64_t step, double wall_time,
                                 double value);

typedef struct pipe_tfevents_stats {
    size_t records; /* whole records read */
    size_t scalars; /* calls of fn */
    size_t corrupt; /* records skipped: a bad checksum or a message that does not parse */
    char why[160];  /* the first problem, with its byte offset, when corrupt > 0 or truncated */
    int truncated;  /* the file ends inside a record (a writer still writing, or cut) */
} pipe_tfevents_stats;

/* Calls fn for each scalar in the bytes of an event file, in order. Never
   reads outside data[0, len); a record with a bad checksum or a bad message
   is skipped, and a length whose checksum is bad ends the reading (the
   framing cannot be trusted after it). */
void pipe_tfevents_parse(const unsigned char *data, size_t len, pipe_tfevents_fn fn, void *arg,
                         pipe_tfevents_stats *stats);

/* CRC-32C (Castagnoli) of n bytes, as TFRecord frames use it (unmasked). */
uint32_t pipe_crc32c(const unsigned char *p, size_t n);

#endif
