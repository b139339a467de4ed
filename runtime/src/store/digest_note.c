#include "digest_note.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipe/error.h"
#include "util/util.h"

#define NOTE_TAG "pipe-digest-1"

/* DIR/.NAME.sha256 for DIR/NAME. */
static char *note_path(const char *output_path)
{
    const char *slash = strrchr(output_path, '/');
    if (!slash)
        return pipe_asprintf(".%s.sha256", output_path);
    return pipe_asprintf("%.*s/.%s.sha256", (int)(slash - output_path), output_path, slash + 1);
}

static void describe(const struct stat *st, const char *hex, char *line, size_t size)
{
    snprintf(line, size, NOTE_TAG " %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 " %ld\n", hex,
             (uint64_t)st->st_size, (uint64_t)st->st_ino, (uint64_t)st->st_dev, (int64_t)st->st_mtim.tv_sec,
             (long)st->st_mtim.tv_nsec);
}

int pipe_digest_note_write(const char *output_path, const char *hex, const struct stat *st)
{
    char line[256];
    describe(st, hex, line, sizeof line);
    char *path = note_path(output_path);
    if (!path)
        return PIPE_ENOMEM;
    int rc = 0, fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    size_t len = strlen(line);
    if (fd < 0 || write(fd, line, len) != (ssize_t)len)
        rc = PIPE_EIO;
    if (fd >= 0 && close(fd) != 0)
        rc = PIPE_EIO;
    if (rc != 0)
        unlink(path); /* a half note would only be ignored, but leaves no litter */
    free(path);
    return rc;
}

bool pipe_digest_note_take(const char *output_path, char hex[PIPE_SHA256_HEX_SIZE])
{
    char *path = note_path(output_path);
    if (!path)
        return false;
    char *text = NULL;
    size_t len = 0;
    bool ok = false;
    struct stat st;
    if (pipe_read_file_max(path, 256, &text, &len, NULL, 0) == 0 && stat(output_path, &st) == 0 &&
        S_ISREG(st.st_mode)) {
        char want[256];
        /* The digest is the note's second field; the rest must match the
           file as it is now, byte for byte. */
        const char *digest = text + strlen(NOTE_TAG) + 1;
        if (len > strlen(NOTE_TAG) + 1 + 64 && strncmp(text, NOTE_TAG " ", strlen(NOTE_TAG) + 1) == 0) {
            char got[PIPE_SHA256_HEX_SIZE];
            memcpy(got, digest, 64);
            got[64] = '\0';
            bool hex_ok = strspn(got, "0123456789abcdef") == 64;
            describe(&st, got, want, sizeof want);
            if (hex_ok && len == strlen(want) && memcmp(text, want, len) == 0) {
                memcpy(hex, got, PIPE_SHA256_HEX_SIZE);
                ok = true;
            }
        }
    }
    free(text);
    unlink(path);
    free(path);
    return ok;
}
