#include "rendezvous.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pipe/error.h"
#include "net.h"
#include "util.h"

/* Wire format (little-endian): a fixed header, then key and value bytes.
   Request: magic "PIPR", version, op, 2 reserved, 64-byte token (zero padded),
   key length, value length, a 64-bit argument (ADD's delta, WAIT_GE's target)
   and a timeout in milliseconds (GET, WAIT_GE). Response: status, 3 reserved,
   value length, a 64-bit result, then the value. */
enum { OP_SET = 1, OP_GET = 2, OP_ADD = 3, OP_WAIT_GE = 4 };
enum { ST_OK = 0, ST_TIMEOUT = 1, ST_ERROR = 2 };
enum { VERSION = 1, HEADER_TIMEOUT_S = 5, MAX_CONNECTIONS = 4096 };

typedef struct request {
    char magic[4];
    uint8_t version, op, reserved[2];
    char token[PIPE_RDZV_TOKEN_MAX];
    uint32_t key_len, value_len;
    int64_t arg;
    uint64_t timeout_ms;
} request;

typedef struct response {
    uint8_t status, reserved[3];
    uint32_t value_len;
    int64_t result;
} response;

typedef struct entry {
    char *key;
    void *value;
    size_t len;
    struct entry *next;
} entry;

typedef struct connection {
    pipe_rdzv_server *server;
    int fd;
    pthread_t thread;
    char peer[64];
    bool done;
    struct connection *next;
} connection;

struct pipe_rdzv_server {
    int listen_fd;
    char token[PIPE_RDZV_TOKEN_MAX];
    pthread_t accept_thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    entry *entries;
    connection *connections;
    size_t nconnections, rejected;
    bool stopping;
};

struct pipe_rdzv_client {
    int fd;
    char token[PIPE_RDZV_TOKEN_MAX];
    char where[300];
    int64_t barrier_generation;
};

/* ---- I/O helpers ---- */

static void set_recv_timeout(int fd, unsigned seconds)
{
    struct timeval tv = {(time_t)seconds, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

/* Compares tokens in time independent of where they differ. */
static bool token_equal(const char *a, const char *b)
{
    unsigned char diff = 0;
    for (size_t i = 0; i < PIPE_RDZV_TOKEN_MAX; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

static void copy_token(char dst[PIPE_RDZV_TOKEN_MAX], const char *token)
{
    memset(dst, 0, PIPE_RDZV_TOKEN_MAX);
    if (token)
        memcpy(dst, token, strnlen(token, PIPE_RDZV_TOKEN_MAX));
}

/* ---- the store (server side, under lock) ---- */

static entry *find(pipe_rdzv_server *s, const char *key)
{
    for (entry *e = s->entries; e; e = e->next)
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
        e->key = k;
        e->next = s->entries;
        s->entries = e;
    } else {
        free(e->value);
    }
    e->value = copy;
    e->len = len;
    pthread_cond_broadcast(&s->changed);
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

static void deadline_after(struct timespec *ts, uint64_t ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += (time_t)(ms / 1000);
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* Handles one authenticated request; fills the response (value malloc'ed). */
static void serve(pipe_rdzv_server *s, const request *rq, const char *key, const char *value, response *rs,
                  void **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    rs->status = ST_OK;
    pthread_mutex_lock(&s->lock);
    if (rq->op == OP_SET) {
        if (put(s, key, value, rq->value_len) != 0)
            rs->status = ST_ERROR;
    } else if (rq->op == OP_ADD) {
        int64_t v = int_value(find(s, key)) + rq->arg;
        char buf[32];
        int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
        if (put(s, key, buf, (size_t)n) != 0)
            rs->status = ST_ERROR;
        rs->result = v;
    } else if (rq->op == OP_GET || rq->op == OP_WAIT_GE) {
        struct timespec deadline;
        deadline_after(&deadline, rq->timeout_ms);
        for (;;) {
            entry *e = find(s, key);
            if (rq->op == OP_GET && e) {
                *out = malloc(e->len ? e->len : 1);
                if (*out) {
                    memcpy(*out, e->value, e->len);
                    *out_len = e->len;
                } else {
                    rs->status = ST_ERROR;
                }
                break;
            }
            if (rq->op == OP_WAIT_GE && e && int_value(e) >= rq->arg) {
                rs->result = int_value(e);
                break;
            }
            if (s->stopping) {
                rs->status = ST_ERROR;
                break;
            }
            if (pthread_cond_timedwait(&s->changed, &s->lock, &deadline) == ETIMEDOUT) {
                rs->status = ST_TIMEOUT;
                break;
            }
        }
    } else {
        rs->status = ST_ERROR;
    }
    pthread_mutex_unlock(&s->lock);
}

static void reject(connection *c, const char *why)
{
    pipe_rdzv_server *s = c->server;
    pthread_mutex_lock(&s->lock);
    s->rejected++;
    pthread_mutex_unlock(&s->lock);
    fprintf(stderr, "pipe rendezvous: rejected a connection from %s: %s\n", c->peer, why);
}

static void *connection_main(void *arg)
{
    connection *c = arg;
    pipe_rdzv_server *s = c->server;
    bool authenticated = false;
    char *key = NULL, *value = NULL;
    for (;;) {
        request rq;
        /* A peer that is not one of ours gets a few seconds to say so. */
        set_recv_timeout(c->fd, authenticated ? 0 : HEADER_TIMEOUT_S);
        /* The magic first, so that a stray client (an HTTP probe) is turned
           away at once instead of after the header timeout. */
        if (pipe_recv_all(c->fd, rq.magic, sizeof rq.magic) != 0) {
            if (!authenticated)
                reject(c, "no request header");
            break;
        }
        if (memcmp(rq.magic, "PIPR", 4) != 0) {
            reject(c, "not a pipe rendezvous request");
            break;
        }
        if (pipe_recv_all(c->fd, (char *)&rq + sizeof rq.magic, sizeof rq - sizeof rq.magic) != 0) {
            reject(c, "truncated request header");
            break;
        }
        if (rq.version != VERSION) {
            reject(c, "not a pipe rendezvous request");
            break;
        }
        if (!token_equal(rq.token, s->token)) {
            reject(c, "wrong token");
            break;
        }
        if (rq.key_len == 0 || rq.key_len > PIPE_RDZV_MAX_KEY || rq.value_len > PIPE_RDZV_MAX_VALUE) {
            reject(c, "key or value too large");
            break;
        }
        authenticated = true;
        set_recv_timeout(c->fd, HEADER_TIMEOUT_S);
        key = malloc(rq.key_len + 1);
        value = malloc(rq.value_len + 1);
        if (!key || !value || pipe_recv_all(c->fd, key, rq.key_len) != 0 || pipe_recv_all(c->fd, value, rq.value_len) != 0)
            break;
        key[rq.key_len] = '\0';
        response rs = {0};
        void *out;
        size_t out_len;
        serve(s, &rq, key, value, &rs, &out, &out_len);
        free(key);
        free(value);
        key = value = NULL;
        rs.value_len = (uint32_t)out_len;
        int w = pipe_send_all(c->fd, &rs, sizeof rs);
        if (w == 0 && out_len)
            w = pipe_send_all(c->fd, out, out_len);
        free(out);
        if (w != 0)
            break;
    }
    free(key);
    free(value);
    close(c->fd);
    pthread_mutex_lock(&s->lock);
    c->fd = -1;
    c->done = true;
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void *accept_main(void *arg)
{
    pipe_rdzv_server *s = arg;
    for (;;) {
        struct sockaddr_storage addr;
        socklen_t addrlen = sizeof addr;
        int fd = accept(s->listen_fd, (struct sockaddr *)&addr, &addrlen);
        pthread_mutex_lock(&s->lock);
        bool stopping = s->stopping;
        pthread_mutex_unlock(&s->lock);
        if (stopping) {
            if (fd >= 0)
                close(fd);
            break;
        }
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE)
                continue;
            break;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        connection *c = calloc(1, sizeof *c);
        if (!c) {
            close(fd);
            continue;
        }
        c->server = s;
        c->fd = fd;
        char host[INET6_ADDRSTRLEN] = "?";
        int port = 0;
        if (addr.ss_family == AF_INET) {
            struct sockaddr_in *in = (struct sockaddr_in *)&addr;
            inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
            port = ntohs(in->sin_port);
        } else if (addr.ss_family == AF_INET6) {
            struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&addr;
            inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
            port = ntohs(in6->sin6_port);
        }
        snprintf(c->peer, sizeof c->peer, "%s:%d", host, port);
        pthread_mutex_lock(&s->lock);
        /* Reap finished connections so a stream of bad clients costs nothing lasting. */
        for (connection **pp = &s->connections; *pp;) {
            connection *old = *pp;
            if (old->done) {
                pthread_join(old->thread, NULL);
                *pp = old->next;
                free(old);
                s->nconnections--;
            } else {
                pp = &old->next;
            }
        }
        bool full = s->nconnections >= MAX_CONNECTIONS;
        if (!full) {
            c->next = s->connections;
            s->connections = c;
            s->nconnections++;
        }
        pthread_mutex_unlock(&s->lock);
        if (full || pthread_create(&c->thread, NULL, connection_main, c) != 0) {
            pthread_mutex_lock(&s->lock);
            if (!full) {
                s->connections = c->next;
                s->nconnections--;
            }
            s->rejected++;
            pthread_mutex_unlock(&s->lock);
            close(fd);
            free(c);
        }
    }
    return NULL;
}

int pipe_rdzv_server_start(const char *bind_addr, int port, const char *token, pipe_rdzv_server **out,
                           int *bound_port, char *err, size_t errsize)
{
    pipe_rdzv_server *s = calloc(1, sizeof *s);
    if (!s)
        return PIPE_ENOMEM;
    copy_token(s->token, token);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    s->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->listen_fd < 0)
        goto fail_errno;
    int one = 1;
    setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    if (bind_addr && inet_pton(AF_INET, bind_addr, &addr.sin_addr) != 1) {
        pipe_errf(err, errsize, "rendezvous: %s is not an IPv4 address to listen on", bind_addr);
        close(s->listen_fd);
        goto fail;
    }
    if (bind(s->listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(s->listen_fd, 128) != 0) {
        pipe_errf(err, errsize, "rendezvous: cannot listen on port %d: %s", port, strerror(errno));
        close(s->listen_fd);
        goto fail;
    }
    socklen_t len = sizeof addr;
    getsockname(s->listen_fd, (struct sockaddr *)&addr, &len);
    if (bound_port)
        *bound_port = ntohs(addr.sin_port);
    if (pthread_create(&s->accept_thread, NULL, accept_main, s) != 0) {
        pipe_errf(err, errsize, "rendezvous: cannot start a thread");
        close(s->listen_fd);
        goto fail;
    }
    *out = s;
    return 0;
fail_errno:
    pipe_errf(err, errsize, "rendezvous: socket: %s", strerror(errno));
fail:
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->changed);
    free(s);
    return PIPE_ECOMM;
}

void pipe_rdzv_server_stop(pipe_rdzv_server *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->stopping = true;
    pthread_cond_broadcast(&s->changed);
    for (connection *c = s->connections; c; c = c->next)
        if (c->fd >= 0)
            shutdown(c->fd, SHUT_RDWR);
    pthread_mutex_unlock(&s->lock);
    shutdown(s->listen_fd, SHUT_RDWR);
    close(s->listen_fd);
    pthread_join(s->accept_thread, NULL);
    for (connection *c = s->connections; c;) {
        connection *next = c->next;
        pthread_join(c->thread, NULL);
        free(c);
        c = next;
    }
    for (entry *e = s->entries; e;) {
        entry *next = e->next;
        free(e->key);
        free(e->value);
        free(e);
        e = next;
    }
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->changed);
    free(s);
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

/* ---- client ---- */

int pipe_rdzv_connect(const char *host, int port, const char *token, uint64_t timeout_ms, pipe_rdzv_client **out,
                      char *err, size_t errsize)
{
    pipe_rdzv_client *c = calloc(1, sizeof *c);
    if (!c)
        return PIPE_ENOMEM;
    copy_token(c->token, token);
    snprintf(c->where, sizeof c->where, "%s:%d", host, port);
    double deadline = pipe_now() + (double)timeout_ms / 1000.0;
    char why[128] = "not reachable";
    for (;;) {
        int fd;
        if (pipe_tcp_connect(host, port, &fd, why, sizeof why) == 0) {
            c->fd = fd;
            *out = c;
            return 0;
        }
        if (pipe_now() >= deadline)
            break;
        pipe_sleep_ms(50);
    }
    pipe_errf(err, errsize, "cannot reach the rendezvous at %s within %.1f s: %s", c->where,
              (double)timeout_ms / 1000.0, why);
    free(c);
    return PIPE_ETIMEOUT;
}

void pipe_rdzv_close(pipe_rdzv_client *c)
{
    if (!c)
        return;
    close(c->fd);
    free(c);
}

static int call(pipe_rdzv_client *c, uint8_t op, const char *key, const void *value, size_t len, int64_t arg,
                uint64_t timeout_ms, response *rs, void **out, char *err, size_t errsize)
{
    size_t key_len = strlen(key);
    if (key_len == 0 || key_len > PIPE_RDZV_MAX_KEY || len > PIPE_RDZV_MAX_VALUE) {
        pipe_errf(err, errsize, "rendezvous: key or value too large");
        return PIPE_EINVAL;
    }
    request rq;
    memset(&rq, 0, sizeof rq);
    memcpy(rq.magic, "PIPR", 4);
    rq.version = VERSION;
    rq.op = op;
    memcpy(rq.token, c->token, PIPE_RDZV_TOKEN_MAX);
    rq.key_len = (uint32_t)key_len;
    rq.value_len = (uint32_t)len;
    rq.arg = arg;
    rq.timeout_ms = timeout_ms;
    if (pipe_send_all(c->fd, &rq, sizeof rq) != 0 || pipe_send_all(c->fd, key, key_len) != 0 ||
        (len && pipe_send_all(c->fd, value, len) != 0) || pipe_recv_all(c->fd, rs, sizeof *rs) != 0) {
        pipe_errf(err, errsize, "rendezvous at %s closed the connection (wrong token, or it stopped)", c->where);
        return PIPE_ECOMM;
    }
    if (rs->value_len > PIPE_RDZV_MAX_VALUE) {
        pipe_errf(err, errsize, "rendezvous at %s sent an oversized reply", c->where);
        return PIPE_ECOMM;
    }
    if (out) {
        *out = malloc(rs->value_len ? rs->value_len : 1);
        if (!*out)
            return PIPE_ENOMEM;
        if (rs->value_len && pipe_recv_all(c->fd, *out, rs->value_len) != 0) {
            free(*out);
            *out = NULL;
            pipe_errf(err, errsize, "rendezvous at %s closed the connection", c->where);
            return PIPE_ECOMM;
        }
    }
    if (rs->status == ST_TIMEOUT) {
        if (out) {
            free(*out);
            *out = NULL;
        }
        pipe_errf(err, errsize, "timed out after %.1f s waiting for `%s` at the rendezvous %s",
                  (double)timeout_ms / 1000.0, key, c->where);
        return PIPE_ETIMEOUT;
    }
    if (rs->status != ST_OK) {
        if (out) {
            free(*out);
            *out = NULL;
        }
        pipe_errf(err, errsize, "rendezvous at %s failed on `%s`", c->where, key);
        return PIPE_ECOMM;
    }
    return 0;
}

int pipe_rdzv_set(pipe_rdzv_client *c, const char *key, const void *value, size_t len, char *err, size_t errsize)
{
    response rs;
    return call(c, OP_SET, key, value, len, 0, 0, &rs, NULL, err, errsize);
}

int pipe_rdzv_get(pipe_rdzv_client *c, const char *key, void **value, size_t *len, uint64_t timeout_ms, char *err,
                  size_t errsize)
{
    response rs;
    int rc = call(c, OP_GET, key, NULL, 0, 0, timeout_ms, &rs, value, err, errsize);
    if (rc == 0 && len)
        *len = rs.value_len;
    return rc;
}

int pipe_rdzv_add(pipe_rdzv_client *c, const char *key, int64_t delta, int64_t *result, char *err, size_t errsize)
{
    response rs;
    int rc = call(c, OP_ADD, key, NULL, 0, delta, 0, &rs, NULL, err, errsize);
    if (rc == 0 && result)
        *result = rs.result;
    return rc;
}

int pipe_rdzv_wait_ge(pipe_rdzv_client *c, const char *key, int64_t target, uint64_t timeout_ms, char *err,
                      size_t errsize)
{
    response rs;
    return call(c, OP_WAIT_GE, key, NULL, 0, target, timeout_ms, &rs, NULL, err, errsize);
}

int pipe_rdzv_barrier(pipe_rdzv_client *c, const char *name, int64_t world, uint64_t timeout_ms, char *err,
                      size_t errsize)
{
    char key[PIPE_RDZV_MAX_KEY];
    snprintf(key, sizeof key, "barrier/%s/%lld", name, (long long)c->barrier_generation++);
    int rc = pipe_rdzv_add(c, key, 1, NULL, err, errsize);
    return rc ? rc : pipe_rdzv_wait_ge(c, key, world, timeout_ms, err, errsize);
}
