#include "digest_note.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* The board: slots taken in order by an atomic count, each published by
   its ready flag once written (writers are processes sharing the page). */
#define BOARD_SLOTS 63
#define NOTE_LINE_MAX 256
#define NOTE_PATH_MAX (1024 - NOTE_LINE_MAX - 8)

typedef struct board_slot {
    atomic_int ready;
    char path[NOTE_PATH_MAX];
    char line[NOTE_LINE_MAX];
} board_slot;

typedef struct board {
    atomic_uint used;
    board_slot slots[BOARD_SLOTS];
} board;

static board *the_board;

void pipe_digest_board_open(void)
{
    if (!the_board) {
        void *p = mmap(NULL, sizeof(board), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return;
        the_board = p;
    }
    unsigned used = atomic_load(&the_board->used);
    for (unsigned i = 0; i < used && i < BOARD_SLOTS; i++)
        atomic_store(&the_board->slots[i].ready, 0);
    atomic_store(&the_board->used, 0);
}

/* line posted for output_path on the board; false when it is not open or full. */
static bool board_post(const char *output_path, const char *line)
{
    if (!the_board || strlen(output_path) >= NOTE_PATH_MAX)
        return false;
    unsigned i = atomic_fetch_add(&the_board->used, 1);
    if (i >= BOARD_SLOTS)
        return false;
    board_slot *slot = &the_board->slots[i];
    snprintf(slot->path, sizeof slot->path, "%s", output_path);
    snprintf(slot->line, sizeof slot->line, "%s", line);
    atomic_store_explicit(&slot->ready, 1, memory_order_release);
    return true;
}

/* The newest line posted for output_path into text (malloc'ed), or NULL. */
static char *board_find(const char *output_path)
{
    if (!the_board)
        return NULL;
    unsigned used = atomic_load(&the_board->used);
    for (unsigned i = used < BOARD_SLOTS ? used : BOARD_SLOTS; i-- > 0;) {
        board_slot *slot = &the_board->slots[i];
        if (atomic_load_explicit(&slot->ready, memory_order_acquire) && strcmp(slot->path, output_path) == 0)
            return pipe_strdup(slot->line);
    }
    return NULL;
}

static void describe(const struct stat *st, const char *hex, char *line, size_t size)
{
    snprintf(line, size, NOTE_TAG " %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 " %ld\n", hex,
             (uint64_t)st->st_size, (uint64_t)st->st_ino, (uint64_t)st->st_dev, (int64_t)st->st_mtim.tv_sec,
             (long)st->st_mtim.tv_nsec);
}

int pipe_digest_note_write(const char *output_path, const char *hex, const struct stat *st)
{
    char line[NOTE_LINE_MAX];
    describe(st, hex, line, sizeof line);
    if (board_post(output_path, line))
        return 0;
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
    char *text = board_find(output_path);
    size_t len = text ? strlen(text) : 0;
    bool ok = false;
    struct stat st;
    if ((text || pipe_read_file_max(path, NOTE_LINE_MAX, &text, &len, NULL, 0) == 0) && stat(output_path, &st) == 0 &&
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
