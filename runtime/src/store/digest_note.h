/* Digest notes (private): how a worker hands the digest it computed while
   writing an output (hashed_stream.h) to its supervisor, so that the
   supervisor records it without reading the file again. The note sits
   next to the output (outputs/.NAME.sha256) and names the file it was made
   for by size, modification time, inode and device; a note that does not
   match the file, or cannot be read, is ignored and the file is read as
   before. Notes are hints, not records: they are not fsynced (a note lost
   in a crash only costs a read) and the supervisor removes them.

   A supervisor whose ranks are its own forks opens a board first: a page
   of memory shared with them, where notes go instead of files (no file
   made and removed per output on the disk); a note that does not fit
   there, or a writer without the board (a command's program), uses the
   file. */
#ifndef PIPE_DIGEST_NOTE_H
#define PIPE_DIGEST_NOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "pipe/base.h"

/* Opens this process's board (inherited by its forks) or empties it for a
   new attempt; without memory for it, notes go to files. */
void pipe_digest_board_open(void);

/* Writes the note of the file at output_path whose status is st. */
int pipe_digest_note_write(const char *output_path, const char *hex, const struct stat *st);

/* The note's digest when it matches the file at output_path now; removes
   the note either way. */
bool pipe_digest_note_take(const char *output_path, char hex[PIPE_SHA256_HEX_SIZE]);

#endif
