#include "hash_pipeline.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest_note.h"
#include "pipe/error.h"
#include "util/util.h"

/* Four slots of 1 MiB: enough for the producer to run ahead of a hash that
   stalls for a moment, little memory. */
enum { NSLOTS = 4, SLOT = 1 << 20 };

/* The handoff (all shared fields under mu; no other state is shared):
   slots head .. head+count-1 (mod NSLOTS) are published and belong to the
   hasher, which reads them without the lock; every other slot belongs to
   the producer, which fills slot `fill` (== head+count) without the lock
   while count < NSLOTS. Publishing (count++) and giving back (count--) take
   the lock, so the bytes written before either are visible after it. The
   SHA-256 state is the hasher's alone until pthread_join hands it back. */
struct pipe_hash_pipeline {
    pthread_mutex_t mu;
    pthread_cond_t changed; /* count, done or cancelled changed */
    size_t len[NSLOTS];     /* the bytes in each published slot */
    int head, count;        /* the published slots, oldest first */
    bool done;              /* the producer publishes no more */
    bool cancelled;         /* stop without hashing the rest */
    /* The producer's alone: */
    unsigned char *slots;   /* NSLOTS * SLOT */
    size_t used;            /* bytes in slot `fill` so far (feed) */
    bool open;              /* slot `fill` is the producer's (count < NSLOTS was seen) */
    bool orphan;            /* a copy in a forked child: no thread behind it */
    pthread_t thread;
    pipe_sha256 sha;
    pipe_hash_pipeline *next; /* the live pipelines (fork handling) */
};

/* ---- fork: live pipelines are listed, so that a child can disown them ---- */

static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static pipe_hash_pipeline *live;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* Before a fork every live pipeline's lock is taken, so that the child's
   copies are not left locked by a thread it does not have. */
static void before_fork(void)
{
    pthread_mutex_lock(&live_mu);
    for (pipe_hash_pipeline *p = live; p; p = p->next)
        pthread_mutex_lock(&p->mu);
}

static void after_fork_parent(void)
{
    for (pipe_hash_pipeline *p = live; p; p = p->next)
        pthread_mutex_unlock(&p->mu);
    pthread_mutex_unlock(&live_mu);
}

/* The child has no hashing threads: its copies become orphans (fed
   nothing, finished without a digest and without a join). */
static void after_fork_child(void)
{
    for (pipe_hash_pipeline *p = live; p; p = p->next) {
        p->orphan = true;
        pthread_mutex_unlock(&p->mu);
    }
    live = NULL;
    pthread_mutex_unlock(&live_mu);
}

static void register_atfork(void) { (void)pthread_atfork(before_fork, after_fork_parent, after_fork_child); }

static void unlist(pipe_hash_pipeline *p)
{
    pthread_mutex_lock(&live_mu);
    for (pipe_hash_pipeline **q = &live; *q; q = &(*q)->next)
        if (*q == p) {
            *q = p->next;
            break;
        }
    pthread_mutex_unlock(&live_mu);
}

/* ---- the hashing thread ---- */

static void *hasher_main(void *arg)
{
    pipe_hash_pipeline *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->count == 0 && !p->done && !p->cancelled)
            pthread_cond_wait(&p->changed, &p->mu);
        if (p->cancelled || p->count == 0)
            break; /* cancelled, or done with nothing left */
        int slot = p->head;
        size_t len = p->len[slot];
        pthread_mutex_unlock(&p->mu);
        pipe_sha256_update(&p->sha, p->slots + (size_t)slot * SLOT, len);
        pthread_mutex_lock(&p->mu);
        p->head = (p->head + 1) % NSLOTS;
        p->count--;
        pthread_cond_broadcast(&p->changed);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

pipe_hash_pipeline *pipe_hash_pipeline_start(pipe_sha256 *from)
{
    pthread_once(&atfork_once, register_atfork);
    pipe_hash_pipeline *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    if (!(p->slots = malloc((size_t)NSLOTS * SLOT))) {
        free(p);
        errno = ENOMEM;
        return NULL;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->changed, NULL);
    if (from)
        p->sha = *from; /* taken over below, once the thread runs */
    else
        pipe_sha256_init(&p->sha);
    /* Signals stay with the step's threads: the hasher blocks them all. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_mutex_lock(&live_mu); /* no fork between the thread's start and its listing */
    int rc = pthread_create(&p->thread, NULL, hasher_main, p);
    if (rc == 0) {
        p->next = live;
        live = p;
    }
    pthread_mutex_unlock(&live_mu);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        if (!from)
            pipe_sha256_discard(&p->sha);
        pthread_cond_destroy(&p->changed);
        pthread_mutex_destroy(&p->mu);
        free(p->slots);
        free(p);
        errno = rc;
        return NULL;
    }
    if (from)
        pipe_sha256_init(from); /* ours now; what is left there holds nothing */
    return p;
}

void *pipe_hash_pipeline_slot(pipe_hash_pipeline *p, size_t *capacity)
{
    if (!p->open) {
        pthread_mutex_lock(&p->mu);
        while (p->count == NSLOTS && !p->orphan)
            pthread_cond_wait(&p->changed, &p->mu);
        pthread_mutex_unlock(&p->mu);
        p->open = true;
        p->used = 0;
    }
    *capacity = SLOT - p->used;
    /* head and count change only under the lock, but fill's slot is ours:
       it is head+count, read under the lock by publish. */
    pthread_mutex_lock(&p->mu);
    int fill = (p->head + p->count) % NSLOTS;
    pthread_mutex_unlock(&p->mu);
    return p->slots + (size_t)fill * SLOT + p->used;
}

void pipe_hash_pipeline_publish(pipe_hash_pipeline *p, size_t len)
{
    p->used += len;
    if (p->used == 0 || p->orphan) {
        p->open = false;
        p->used = 0;
        return;
    }
    pthread_mutex_lock(&p->mu);
    int fill = (p->head + p->count) % NSLOTS;
    p->len[fill] = p->used;
    p->count++;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->mu);
    p->open = false;
    p->used = 0;
}

void pipe_hash_pipeline_feed(pipe_hash_pipeline *p, const void *data, size_t len)
{
    const unsigned char *from = data;
    while (len > 0 && !p->orphan) {
        size_t room;
        unsigned char *to = pipe_hash_pipeline_slot(p, &room);
        size_t n = len < room ? len : room;
        memcpy(to, from, n);
        from += n;
        len -= n;
        if (n == room) {
            pipe_hash_pipeline_publish(p, n);
        } else {
            p->used += n; /* the slot stays open for the next feed */
        }
    }
}

/* Tells the thread to stop (after the queue, or at once) and joins it. */
static void end(pipe_hash_pipeline *p, bool cancel)
{
    unlist(p);
    pthread_mutex_lock(&p->mu);
    if (cancel)
        p->cancelled = true;
    p->done = true;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
}

static void free_pipeline(pipe_hash_pipeline *p)
{
    /* An orphan's lock and condition came from a fork: they are only freed. */
    if (!p->orphan) {
        pthread_cond_destroy(&p->changed);
        pthread_mutex_destroy(&p->mu);
    }
    free(p->slots);
    free(p);
}

bool pipe_hash_pipeline_finish(pipe_hash_pipeline *p, unsigned char digest[PIPE_SHA256_SIZE])
{
    if (p->orphan) {
        pipe_sha256_discard(&p->sha);
        free_pipeline(p);
        return false;
    }
    if (p->open && p->used > 0)
        pipe_hash_pipeline_publish(p, 0); /* the last, partly filled slot */
    end(p, false);
    pipe_sha256_final(&p->sha, digest); /* the thread's state, ours after the join */
    free_pipeline(p);
    return true;
}

void pipe_hash_pipeline_cancel(pipe_hash_pipeline *p)
{
    if (!p)
        return;
    if (!p->orphan)
        end(p, true);
    pipe_sha256_discard(&p->sha);
    free_pipeline(p);
}

/* ---- files ---- */

/* The digest of what fd (open for reading, at its start) holds, read on this
   thread into the ring; path names it in errors. Closes fd. */
static int hash_fd(int fd, const char *path, char hex[PIPE_SHA256_HEX_SIZE], char *err, size_t errsize)
{
    pipe_hash_pipeline *p = pipe_hash_pipeline_start(NULL);
    unsigned char d[PIPE_SHA256_SIZE];
    if (!p) /* no thread: hash on this one */
        return pipe_sha256_fd(fd, path, hex, err, errsize);
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    for (;;) {
        size_t room;
        void *to = pipe_hash_pipeline_slot(p, &room);
        ssize_t n = read(fd, to, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            pipe_errf(err, errsize, "cannot read %s: %s", path, strerror(errno));
            close(fd);
            pipe_hash_pipeline_cancel(p);
            return PIPE_EIO;
        }
        if (n == 0)
            break;
        /* A short read fills the slot further before it is handed over. */
        if ((size_t)n == room)
            pipe_hash_pipeline_publish(p, (size_t)n);
        else
            p->used += (size_t)n;
    }
    close(fd);
    if (!pipe_hash_pipeline_finish(p, d)) {
        pipe_errf(err, errsize, "cannot hash %s: its hashing thread was lost in a fork", path);
        return PIPE_EIO;
    }
    pipe_sha256_to_hex(d, hex);
    return 0;
}

static int open_for_hash(const char *path, char *err, size_t errsize)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        pipe_errf(err, errsize, "cannot read %s: %s", path, strerror(errno));
    return fd;
}

int pipe_hash_pipeline_file(const char *path, char hex[PIPE_SHA256_HEX_SIZE], char *err, size_t errsize)
{
    int fd = open_for_hash(path, err, errsize);
    if (fd < 0)
        return errno == ENOENT ? PIPE_ENOENT : PIPE_EIO;
    return hash_fd(fd, path, hex, err, errsize);
}

struct pipe_file_hash {
    pthread_t thread;
    int fd;                  /* opened by start: a rename meanwhile does not matter */
    struct stat before, after; /* the file when the read began and ended */
    char *path;              /* for errors */
    int rc;
    char hex[PIPE_SHA256_HEX_SIZE];
    char err[512];
};

static void *file_hash_main(void *arg)
{
    pipe_file_hash *h = arg;
    int fd = dup(h->fd); /* hash_fd closes its own */
    h->rc = fd < 0 ? PIPE_EIO : hash_fd(fd, h->path, h->hex, h->err, sizeof h->err);
    if (h->rc == 0 && fstat(h->fd, &h->after) != 0)
        h->rc = PIPE_EIO;
    return NULL;
}

pipe_file_hash *pipe_file_hash_start(const char *path)
{
    pipe_file_hash *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (h->fd < 0 || fstat(h->fd, &h->before) != 0 || !S_ISREG(h->before.st_mode) ||
        h->before.st_size <= PIPE_HASH_PIPELINE_MIN || !(h->path = pipe_strdup(path))) {
        if (h->fd >= 0)
            close(h->fd);
        free(h);
        return NULL; /* not worth a thread, or not a file: the supervisor reads it */
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&h->thread, NULL, file_hash_main, h);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        close(h->fd);
        free(h->path);
        free(h);
        return NULL;
    }
    return h;
}

/* The same file, unchanged from the read's start to its end. */
static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

void pipe_file_hash_note(pipe_file_hash *h, const char *final_path)
{
    if (!h)
        return;
    pthread_join(h->thread, NULL);
    if (final_path && h->rc == 0 && same_file(&h->before, &h->after))
        (void)pipe_digest_note_write(final_path, h->hex, &h->before); /* a hint, as a stream's */
    close(h->fd);
    free(h->path);
    free(h);
}
