/* The rendezvous server (rendezvous.h): one thread running one poll loop
   over a fixed table of non-blocking connections.

   A connection is READ (a request coming in), WAIT (a GET or WAIT_GE parked
   until its key changes or its timeout), or WRITE (a reply going out). A
   request must arrive whole within PIPE_RDZV_REQUEST_TIMEOUT_MS of its
   first byte (a new connection: of its accept), whatever the pace of its
   bytes. When the table is full, the oldest connection that has not yet
   completed a request makes room; when none can, the newcomer is told BUSY
   and closed. When accept() runs out of descriptors the loop stops
   listening for a while (50 ms, doubling to 1 s) instead of spinning. */
#define _GNU_SOURCE /* accept4, pipe2 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pipe/error.h"
#include "rendezvous.h"
#include "rendezvous_wire.h"
#include "util/util.h"

enum {
    BUCKETS = 1024,
    SPARE_CONNECTIONS = 256, /* beyond the peers: their retries, and strangers */
    FD_RESERVE = 64,         /* descriptors left to the rest of the process */
    MIN_CAPACITY = 8,
    ACCEPT_BATCH = 64,
    LOOP_MAX_WAIT_MS = 1000,
    BACKOFF_MIN_MS = 50,
    BACKOFF_MAX_MS = 1000,
};
#define MAX_PARK_MS (7ull * 24 * 3600 * 1000) /* the longest a GET may wait */

/* Why a connection was turned away; each is one line of the log. */
typedef enum {
    R_NOT_PIPE,
    R_VERSION,
    R_TOKEN,
    R_SIZE,
    R_EMPTY,
    R_TRUNCATED,
    R_SLOW,
    R_SLOW_READER,
    R_EVICTED,
    R_FULL,
    R_COUNT
} reason;

static const char *const reason_text[R_COUNT] = {
    [R_NOT_PIPE] = "not a pipe rendezvous request",
    [R_VERSION] = "another version of the rendezvous protocol",
    [R_TOKEN] = "wrong token",
    [R_SIZE] = "key or value too large, or an unknown request",
    [R_EMPTY] = "closed without a request",
    [R_TRUNCATED] = "closed in the middle of a request",
    [R_SLOW] = "no complete request within the request deadline",
    [R_SLOW_READER] = "did not read its reply within the request deadline",
    [R_EVICTED] = "dropped to make room (the connection table was full)",
    [R_FULL] = "refused: the connection table was full",
};

typedef struct entry {
    char *key;
    void *value;
    size_t len;
    struct entry *next;
} entry;

typedef enum { C_FREE, C_READ, C_WAIT, C_WRITE } conn_state;

typedef struct conn {
    int fd;
    conn_state state;
    bool authenticated; /* completed a request with the right token */
    bool denied;        /* wrong token: the body is read and dropped, then DENIED */
    bool close_after;   /* close once the reply is out */
    uint64_t serial;    /* accept order */
    char peer[64];
    double deadline; /* READ: the request's, WRITE: the reply's; 0: none */
    pipe_rdzv_request rq;
    size_t head;       /* header bytes in */
    char *key, *value; /* the body, allocated once the header passed */
    size_t body;       /* body bytes in: key, then value */
    double wait_until; /* WAIT */
    char *out;         /* the reply */
    size_t out_len, out_sent;
} conn;

typedef struct tally {
    size_t count;
    char first_peer[64];
} tally;

struct pipe_rdzv_server {
    int listen_fd;
    int wake[2];
    char token[PIPE_RDZV_TOKEN_MAX];
    double request_timeout_s;
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t lock; /* the store, the counters and `stopping` */
    entry *buckets[BUCKETS];
    conn *conns;
    size_t capacity;
    atomic_size_t open; /* read by pipe_rdzv_server_connections */
    uint64_t next_serial;
    struct pollfd *pfd;
    size_t *pfd_conn;
    double accept_resume; /* pipe_now() when accept() may be tried again */
    unsigned backoff_ms;
    size_t rejected;
    tally tallies[R_COUNT];
    size_t accept_failures;
    char accept_error[128];
    bool stopping;
};

/* ---- the store (under lock) ---- */

static size_t hash(const char *key)
{
    size_t h = 5381;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = h * 33 + *p;
    return h % BUCKETS;
}

static entry *find(pipe_rdzv_server *s, const char *key)
{
    for (entry *e = s->buckets[hash(key)]; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

static int put(pipe_rdzv_server *s, const char *key, const void *value, size_t len)
{
    entry *e = find(s, key);
    void *copy = malloc(len ? len : 1);
    if (!copy)
        return PIPE_ENOMEM;
    memcpy(copy, value, len);
    if (!e) {
        e = calloc(1, sizeof *e);
        char *k = pipe_strdup(key);
        if (!e || !k) {
            free(e);
            free(k);
            free(copy);
            return PIPE_ENOMEM;
        }
        size_t b = hash(key);
        e->key = k;
        e->next = s->buckets[b];
        s->buckets[b] = e;
    } else {
        free(e->value);
    }
    e->value = copy;
    e->len = len;
    return 0;
}

static int64_t int_value(const entry *e)
{
    if (!e || e->len == 0 || e->len > 30)
        return 0;
    char buf[32];
    memcpy(buf, e->value, e->len);
    buf[e->len] = '\0';
    return strtoll(buf, NULL, 10);
}

static int put_int(pipe_rdzv_server *s, const char *key, int64_t v)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
    return put(s, key, buf, (size_t)n);
}

/* ---- the log ---- */

static void count_rejection(pipe_rdzv_server *s, reason why, const char *peer)
{
    pthread_mutex_lock(&s->lock);
    s->rejected++;
    tally *t = &s->tallies[why];
    if (t->count++ == 0)
        snprintf(t->first_peer, sizeof t->first_peer, "%s", peer);
    pthread_mutex_unlock(&s->lock);
}

char *pipe_rdzv_server_take_log(pipe_rdzv_server *s)
{
    char text[4096];
    size_t used = 0;
    pthread_mutex_lock(&s->lock);
    for (int r = 0; r < R_COUNT; r++) {
        tally *t = &s->tallies[r];
        if (t->count == 0)
            continue;
        char deadline[48] = "";
        if (r == R_SLOW || r == R_SLOW_READER)
            snprintf(deadline, sizeof deadline, " (%g s)", s->request_timeout_s);
        if (t->count == 1)
            used += (size_t)snprintf(text + used, sizeof text - used,
                                     "rendezvous: turned away a connection from %s: %s%s\n", t->first_peer,
                                     reason_text[r], deadline);
        else
            used += (size_t)snprintf(text + used, sizeof text - used,
                                     "rendezvous: turned away %zu connections (the first from %s): %s%s\n", t->count,
                                     t->first_peer, reason_text[r], deadline);
        t->count = 0;
        if (used >= sizeof text)
            used = sizeof text - 1;
    }
    if (s->accept_failures > 0) {
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "rendezvous: accept() failed %zu time%s: %s; pausing before trying again\n",
                                 s->accept_failures, s->accept_failures == 1 ? "" : "s", s->accept_error);
        s->accept_failures = 0;
        if (used >= sizeof text)
            used = sizeof text - 1;
    }
    pthread_mutex_unlock(&s->lock);
    return used ? pipe_strndup(text, used) : NULL;
}

/* ---- connections ---- */

static void conn_reset_request(conn *c)
{
    free(c->key);
    free(c->value);
    c->key = c->value = NULL;
    c->head = c->body = 0;
    c->deadline = 0;
}

static void conn_close(pipe_rdzv_server *s, conn *c)
{
    if (c->state == C_FREE)
        return;
    close(c->fd);
    conn_reset_request(c);
    free(c->out);
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->state = C_FREE;
    s->open--;
}

/* A one-off reply to a connection that is being closed (BUSY, DENIED): one
   non-blocking send; a peer that is not reading does not get it. */
static void parting_reply(int fd, uint8_t status)
{
    pipe_rdzv_response rs = {.status = status};
    ssize_t w = send(fd, &rs, sizeof rs, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)w;
}

static void turn_away(pipe_rdzv_server *s, conn *c, reason why)
{
    count_rejection(s, why, c->peer);
    if (why == R_EVICTED)
        parting_reply(c->fd, PIPE_RDZV_ST_BUSY);
    conn_close(s, c);
}

static void try_write(pipe_rdzv_server *s, conn *c)
{
    while (c->out_sent < c->out_len) {
        ssize_t w = send(c->fd, c->out + c->out_sent, c->out_len - c->out_sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (w <= 0) {
            conn_close(s, c);
            return;
        }
        c->out_sent += (size_t)w;
    }
    free(c->out);
    c->out = NULL;
    c->out_len = c->out_sent = 0;
    if (c->close_after) {
        conn_close(s, c);
        return;
    }
    c->state = C_READ;
    conn_reset_request(c); /* the next request has no deadline until its first byte */
}

static void reply(pipe_rdzv_server *s, conn *c, uint8_t status, int64_t result, const void *value, size_t len,
                  double now)
{
    pipe_rdzv_response rs = {.status = status, .value_len = (uint32_t)len, .result = result};
    free(c->out);
    c->out = malloc(sizeof rs + len);
    if (!c->out) {
        conn_close(s, c);
        return;
    }
    memcpy(c->out, &rs, sizeof rs);
    if (len)
        memcpy(c->out + sizeof rs, value, len);
    c->out_len = sizeof rs + len;
    c->out_sent = 0;
    c->state = C_WRITE;
    c->deadline = now + s->request_timeout_s;
    try_write(s, c);
}

/* A parked GET or WAIT_GE: replies when its key is there (at least its
   target). Under lock. */
static bool answer_wait(pipe_rdzv_server *s, conn *c, double now)
{
    entry *e = find(s, c->key);
    if (c->rq.op == PIPE_RDZV_OP_GET && e) {
        reply(s, c, PIPE_RDZV_ST_OK, 0, e->value, e->len, now);
        return true;
    }
    if (c->rq.op == PIPE_RDZV_OP_WAIT_GE && e && int_value(e) >= c->rq.arg) {
        reply(s, c, PIPE_RDZV_ST_OK, int_value(e), NULL, 0, now);
        return true;
    }
    return false;
}

static void wake_waiters(pipe_rdzv_server *s, double now)
{
    for (size_t i = 0; i < s->capacity; i++)
        if (s->conns[i].state == C_WAIT)
            answer_wait(s, &s->conns[i], now);
}

/* A whole, authenticated request. */
static void serve(pipe_rdzv_server *s, conn *c, double now)
{
    const pipe_rdzv_request *rq = &c->rq;
    bool changed = false;
    pthread_mutex_lock(&s->lock);
    switch (rq->op) {
    case PIPE_RDZV_OP_SET:
        changed = put(s, c->key, c->value, rq->value_len) == 0;
        reply(s, c, changed ? PIPE_RDZV_ST_OK : PIPE_RDZV_ST_ERROR, 0, NULL, 0, now);
        break;
    case PIPE_RDZV_OP_ADD: {
        int64_t v = int_value(find(s, c->key)) + rq->arg;
        changed = put_int(s, c->key, v) == 0;
        reply(s, c, changed ? PIPE_RDZV_ST_OK : PIPE_RDZV_ST_ERROR, v, NULL, 0, now);
        break;
    }
    case PIPE_RDZV_OP_JOIN: {
        bool known = find(s, c->key) != NULL;
        int64_t joined = int_value(find(s, PIPE_RDZV_JOINED_KEY)) + (known ? 0 : 1);
        changed = put(s, c->key, c->value, rq->value_len) == 0 && put_int(s, PIPE_RDZV_JOINED_KEY, joined) == 0;
        reply(s, c, changed ? PIPE_RDZV_ST_OK : PIPE_RDZV_ST_ERROR, joined, NULL, 0, now);
        break;
    }
    default: /* GET, WAIT_GE */
        if (!answer_wait(s, c, now)) {
            uint64_t ms = rq->timeout_ms < MAX_PARK_MS ? rq->timeout_ms : MAX_PARK_MS;
            c->state = C_WAIT;
            c->deadline = 0;
            c->wait_until = now + (double)ms / 1000.0;
        }
        break;
    }
    if (changed)
        wake_waiters(s, now);
    pthread_mutex_unlock(&s->lock);
}

/* Checks a complete header; false after turning the connection away. A
   wrong token is answered DENIED once the body is in (closing on unread
   bytes would reset the connection and lose the answer), so that a rank
   with another token stops at once instead of retrying. */
static bool header_ok(pipe_rdzv_server *s, conn *c)
{
    const pipe_rdzv_request *rq = &c->rq;
    reason why = R_COUNT;
    if (rq->version != PIPE_RDZV_VERSION)
        why = R_VERSION;
    else if (rq->key_len == 0 || rq->key_len > PIPE_RDZV_MAX_KEY || rq->value_len > PIPE_RDZV_MAX_VALUE ||
             rq->op < PIPE_RDZV_OP_SET || rq->op > PIPE_RDZV_OP_JOIN)
        why = R_SIZE;
    if (why != R_COUNT) {
        turn_away(s, c, why);
        return false;
    }
    if (!pipe_token_equal(rq->token, s->token, PIPE_RDZV_TOKEN_MAX)) {
        count_rejection(s, R_TOKEN, c->peer);
        c->denied = true;
        return true;
    }
    c->key = malloc(rq->key_len + 1u);
    c->value = malloc(rq->value_len + 1u);
    if (!c->key || !c->value) {
        conn_close(s, c);
        return false;
    }
    return true;
}

static void read_request(pipe_rdzv_server *s, conn *c, double now)
{
    char discard[4096];
    while (c->state == C_READ) {
        const pipe_rdzv_request *rq = &c->rq;
        size_t want_key = c->key ? rq->key_len : 0;
        char *dst;
        size_t want;
        if (c->head < sizeof c->rq) {
            dst = (char *)&c->rq + c->head;
            want = sizeof c->rq - c->head;
        } else if (c->denied) {
            dst = discard;
            want = (size_t)rq->key_len + rq->value_len - c->body;
            if (want > sizeof discard)
                want = sizeof discard;
        } else if (c->body < want_key) {
            dst = c->key + c->body;
            want = want_key - c->body;
        } else {
            dst = c->value + (c->body - want_key);
            want = want_key + rq->value_len - c->body;
        }
        if (want == 0)
            return; /* cannot happen: a complete request was served above */
        ssize_t r = recv(c->fd, dst, want, MSG_DONTWAIT);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (r <= 0) {
            bool idle = c->head == 0;
            if (!c->authenticated)
                turn_away(s, c, idle ? R_EMPTY : R_TRUNCATED);
            else if (!idle)
                turn_away(s, c, R_TRUNCATED);
            else
                conn_close(s, c);
            return;
        }
        if (c->head == 0 && c->authenticated)
            c->deadline = now + s->request_timeout_s;
        if (c->head < sizeof c->rq) {
            size_t before = c->head;
            c->head += (size_t)r;
            /* The magic first: a stray client (an HTTP probe) is turned away
               at once, not after the deadline. */
            if (before < 4 && memcmp(c->rq.magic, "PIPR", c->head < 4 ? c->head : 4) != 0) {
                turn_away(s, c, R_NOT_PIPE);
                return;
            }
            if (c->head == sizeof c->rq && !header_ok(s, c))
                return;
        } else {
            c->body += (size_t)r;
        }
        if (c->head == sizeof c->rq && c->body == (size_t)rq->key_len + rq->value_len && c->denied) {
            c->close_after = true;
            reply(s, c, PIPE_RDZV_ST_DENIED, 0, NULL, 0, now);
        } else if (c->head == sizeof c->rq && c->body == (size_t)rq->key_len + rq->value_len) {
            c->key[rq->key_len] = '\0';
            c->value[rq->value_len] = '\0';
            c->authenticated = true;
            serve(s, c, now);
        }
    }
}

/* A parked connection should say nothing: bytes or a hang-up end it. */
static void check_parked(pipe_rdzv_server *s, conn *c)
{
    char b;
    ssize_t r = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    conn_close(s, c);
}

/* The oldest connection that has not completed a request, in READ. */
static conn *oldest_stranger(pipe_rdzv_server *s)
{
    conn *best = NULL;
    for (size_t i = 0; i < s->capacity; i++) {
        conn *c = &s->conns[i];
        if (c->state == C_READ && !c->authenticated && (!best || c->serial < best->serial))
            best = c;
    }
    return best;
}

static conn *free_slot(pipe_rdzv_server *s)
{
    for (size_t i = 0; i < s->capacity; i++)
        if (s->conns[i].state == C_FREE)
            return &s->conns[i];
    return NULL;
}

static void peer_name(const struct sockaddr_storage *addr, char *out, size_t size)
{
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (addr->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
        port = ntohs(in->sin_port);
    } else if (addr->ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;
        inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
        port = ntohs(in6->sin6_port);
    }
    snprintf(out, size, "%s:%d", host, port);
}

static void accept_failed(pipe_rdzv_server *s, int err, double now)
{
    pthread_mutex_lock(&s->lock);
    s->accept_failures++;
    snprintf(s->accept_error, sizeof s->accept_error, "%s", strerror(err));
    pthread_mutex_unlock(&s->lock);
    s->accept_resume = now + s->backoff_ms / 1000.0;
    s->backoff_ms = s->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : s->backoff_ms * 2;
}

static void accept_some(pipe_rdzv_server *s, double now)
{
    for (int k = 0; k < ACCEPT_BATCH; k++) {
        struct sockaddr_storage addr;
        socklen_t addrlen = sizeof addr;
        int fd = accept4(s->listen_fd, (struct sockaddr *)&addr, &addrlen, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            int e = errno;
            if (e == EAGAIN || e == EWOULDBLOCK)
                return;
            if (e == EINTR || e == ECONNABORTED)
                continue;
            /* Out of descriptors (EMFILE, ENFILE) or memory: a stranger's
               descriptor is the one to give back; else pause. */
            conn *victim = (e == EMFILE || e == ENFILE) ? oldest_stranger(s) : NULL;
            if (victim) {
                turn_away(s, victim, R_EVICTED);
                continue;
            }
            accept_failed(s, e, now);
            return;
        }
        s->backoff_ms = BACKOFF_MIN_MS;
        char peer[64];
        peer_name(&addr, peer, sizeof peer);
        conn *c = free_slot(s);
        if (!c) {
            conn *victim = oldest_stranger(s);
            if (victim) {
                turn_away(s, victim, R_EVICTED);
                c = free_slot(s);
            }
        }
        if (!c) {
            parting_reply(fd, PIPE_RDZV_ST_BUSY);
            close(fd);
            count_rejection(s, R_FULL, peer);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        memset(c, 0, sizeof *c);
        c->fd = fd;
        c->state = C_READ;
        c->serial = s->next_serial++;
        c->deadline = now + s->request_timeout_s;
        snprintf(c->peer, sizeof c->peer, "%s", peer);
        s->open++;
    }
}

/* Deadlines: a request too slow, a reply not read, a wait that ran out. */
static void expire(pipe_rdzv_server *s, double now)
{
    for (size_t i = 0; i < s->capacity; i++) {
        conn *c = &s->conns[i];
        if (c->state == C_READ && c->deadline > 0 && now >= c->deadline) {
            turn_away(s, c, R_SLOW);
        } else if (c->state == C_WRITE && now >= c->deadline) {
            turn_away(s, c, R_SLOW_READER);
        } else if (c->state == C_WAIT && now >= c->wait_until) {
            pthread_mutex_lock(&s->lock);
            reply(s, c, PIPE_RDZV_ST_TIMEOUT, 0, NULL, 0, now);
            pthread_mutex_unlock(&s->lock);
        }
    }
}

static bool stopping(pipe_rdzv_server *s)
{
    pthread_mutex_lock(&s->lock);
    bool stop = s->stopping;
    pthread_mutex_unlock(&s->lock);
    return stop;
}

static void *loop_main(void *arg)
{
    pipe_rdzv_server *s = arg;
    while (!stopping(s)) {
        double now = pipe_now(), next = now + LOOP_MAX_WAIT_MS / 1000.0;
        size_t n = 0;
        s->pfd[n++] = (struct pollfd){.fd = s->wake[0], .events = POLLIN};
        size_t listen_at = 0;
        if (now >= s->accept_resume) {
            listen_at = n;
            s->pfd[n++] = (struct pollfd){.fd = s->listen_fd, .events = POLLIN};
        } else if (s->accept_resume < next) {
            next = s->accept_resume;
        }
        size_t first_conn = n;
        for (size_t i = 0; i < s->capacity; i++) {
            conn *c = &s->conns[i];
            if (c->state == C_FREE)
                continue;
            double due = c->state == C_WAIT ? c->wait_until : c->deadline;
            if (due > 0 && due < next)
                next = due;
            s->pfd_conn[n] = i;
            s->pfd[n++] = (struct pollfd){.fd = c->fd, .events = c->state == C_WRITE ? POLLOUT : POLLIN};
        }
        int timeout = next <= now ? 0 : (int)((next - now) * 1000.0) + 1;
        int ready = poll(s->pfd, (nfds_t)n, timeout);
        if (ready < 0 && errno != EINTR)
            pipe_sleep_ms(10); /* cannot happen with valid descriptors; never spin */
        now = pipe_now();
        if (ready > 0 && (s->pfd[0].revents & POLLIN)) {
            char buf[64];
            while (read(s->wake[0], buf, sizeof buf) > 0) {
            }
        }
        for (size_t k = first_conn; ready > 0 && k < n; k++) {
            short ev = s->pfd[k].revents;
            conn *c = &s->conns[s->pfd_conn[k]];
            if (!ev || c->state == C_FREE || c->fd != s->pfd[k].fd)
                continue;
            if (ev & POLLNVAL)
                conn_close(s, c);
            else if (c->state == C_READ)
                read_request(s, c, now);
            else if (c->state == C_WAIT)
                check_parked(s, c);
            else
                try_write(s, c);
        }
        if (listen_at && (s->pfd[listen_at].revents & POLLIN))
            accept_some(s, now);
        expire(s, now);
    }
    return NULL;
}

/* ---- start and stop ---- */

/* Room for the peers and spare, within the descriptors this process may
   still open (the rest of the supervisor needs some too). */
static size_t table_capacity(int peers)
{
    size_t want = (size_t)(peers > 0 ? peers : 1) + SPARE_CONNECTIONS;
    size_t budget = pipe_descriptors_left(FD_RESERVE);
    if (budget < want)
        want = budget;
    return want < MIN_CAPACITY ? MIN_CAPACITY : want;
}

static void free_store(pipe_rdzv_server *s)
{
    for (size_t b = 0; b < BUCKETS; b++)
        for (entry *e = s->buckets[b]; e;) {
            entry *next = e->next;
            free(e->key);
            free(e->value);
            free(e);
            e = next;
        }
}

static void server_free(pipe_rdzv_server *s)
{
    for (size_t i = 0; s->conns && i < s->capacity; i++)
        conn_close(s, &s->conns[i]);
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    for (int i = 0; i < 2; i++)
        if (s->wake[i] >= 0)
            close(s->wake[i]);
    free_store(s);
    free(s->conns);
    free(s->pfd);
    free(s->pfd_conn);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

int pipe_rdzv_server_start(const pipe_rdzv_server_config *cfg, pipe_rdzv_server **out, int *bound_port, char *err,
                           size_t errsize)
{
    pipe_rdzv_server *s = calloc(1, sizeof *s);
    if (!s)
        return PIPE_ENOMEM;
    s->listen_fd = s->wake[0] = s->wake[1] = -1;
    pthread_mutex_init(&s->lock, NULL);
    pipe_token_copy(s->token, cfg->token, PIPE_RDZV_TOKEN_MAX);
    s->backoff_ms = BACKOFF_MIN_MS;
    s->request_timeout_s =
        (double)(cfg->request_timeout_ms ? cfg->request_timeout_ms : PIPE_RDZV_REQUEST_TIMEOUT_MS) / 1000.0;
    s->capacity = table_capacity(cfg->peers);
    s->conns = calloc(s->capacity, sizeof *s->conns);
    s->pfd = calloc(s->capacity + 2, sizeof *s->pfd);
    s->pfd_conn = calloc(s->capacity + 2, sizeof *s->pfd_conn);
    if (!s->conns || !s->pfd || !s->pfd_conn) {
        server_free(s);
        return PIPE_ENOMEM;
    }
    for (size_t i = 0; i < s->capacity; i++)
        s->conns[i].fd = -1;
    if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0 ||
        (s->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0) {
        pipe_errf(err, errsize, "rendezvous: cannot create a socket: %s", strerror(errno));
        server_free(s);
        return PIPE_ECOMM;
    }
    int one = 1;
    setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)cfg->port);
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    if (cfg->bind_addr && inet_pton(AF_INET, cfg->bind_addr, &addr.sin_addr) != 1) {
        pipe_errf(err, errsize, "rendezvous: %s is not an IPv4 address to listen on", cfg->bind_addr);
        server_free(s);
        return PIPE_ECOMM;
    }
    if (bind(s->listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(s->listen_fd, 128) != 0) {
        pipe_errf(err, errsize, "rendezvous: cannot listen on %s:%d: %s", cfg->bind_addr ? cfg->bind_addr : "*",
                  cfg->port, strerror(errno));
        server_free(s);
        return PIPE_ECOMM;
    }
    socklen_t len = sizeof addr;
    getsockname(s->listen_fd, (struct sockaddr *)&addr, &len);
    if (bound_port)
        *bound_port = ntohs(addr.sin_port);
    if (pthread_create(&s->thread, NULL, loop_main, s) != 0) {
        pipe_errf(err, errsize, "rendezvous: cannot start its thread");
        server_free(s);
        return PIPE_ECOMM;
    }
    s->thread_started = true;
    *out = s;
    return 0;
}

void pipe_rdzv_server_stop(pipe_rdzv_server *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->stopping = true;
    pthread_mutex_unlock(&s->lock);
    ssize_t w = write(s->wake[1], "x", 1);
    (void)w;
    if (s->thread_started)
        pthread_join(s->thread, NULL);
    server_free(s);
}

void pipe_rdzv_server_close_in_child(pipe_rdzv_server *s)
{
    if (!s)
        return;
    /* No lock: after fork this is the only thread, and the lock may have
       been held by the loop at the moment of the fork. */
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    for (int i = 0; i < 2; i++)
        if (s->wake[i] >= 0)
            close(s->wake[i]);
    for (size_t i = 0; i < s->capacity; i++)
        if (s->conns[i].state != C_FREE && s->conns[i].fd >= 0)
            close(s->conns[i].fd);
}

bool pipe_rdzv_server_has(pipe_rdzv_server *s, const char *key)
{
    pthread_mutex_lock(&s->lock);
    bool has = find(s, key) != NULL;
    pthread_mutex_unlock(&s->lock);
    return has;
}

size_t pipe_rdzv_server_rejected(pipe_rdzv_server *s)
{
    pthread_mutex_lock(&s->lock);
    size_t n = s->rejected;
    pthread_mutex_unlock(&s->lock);
    return n;
}

size_t pipe_rdzv_server_connections(pipe_rdzv_server *s, size_t *capacity)
{
    if (capacity)
        *capacity = s->capacity;
    return atomic_load(&s->open);
}
