/* The rendezvous client (rendezvous.h). A request is retried on a new
   connection when the server had no room (BUSY), when the connection broke
   before the request was sent, and, for requests that may be repeated
   (SET, GET, WAIT_GE, JOIN), whenever the connection broke: a rank that
   joins late, or while strangers crowd the server, keeps trying until its
   budget runs out instead of blaming the network at the first close. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net.h"
#include "pipe/error.h"
#include "rendezvous.h"
#include "rendezvous_wire.h"
#include "util/util.h"

/* One connection attempt waits at most this long; pauses between attempts
   grow from 50 ms to 1 s. */
#define CONNECT_ATTEMPT_MS 5000u
#define PAUSE_MIN_MS 50u
#define PAUSE_MAX_MS 1000u

struct pipe_rdzv_client {
    int fd; /* -1 between connections */
    char host[256];
    int port;
    char token[PIPE_RDZV_TOKEN_MAX];
    char where[300];
    uint64_t retry_ms; /* the budget of a request that is not a wait */
    int64_t barrier_generation;
};

static void disconnect(pipe_rdzv_client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

/* Connects when not connected, trying until deadline. 0, or -1 with the
   last reason in why. */
static int ensure_connected(pipe_rdzv_client *c, double deadline, unsigned *pause_ms, char *why, size_t whysize)
{
    while (c->fd < 0) {
        double left = deadline - pipe_now();
        uint64_t attempt = left <= 0 ? 1 : (uint64_t)(left * 1000.0);
        if (attempt > CONNECT_ATTEMPT_MS)
            attempt = CONNECT_ATTEMPT_MS;
        if (pipe_tcp_connect(c->host, c->port, attempt, &c->fd, why, whysize) == 0)
            return 0;
        c->fd = -1;
        if (pipe_now() + *pause_ms / 1000.0 >= deadline)
            return -1;
        pipe_sleep_ms(*pause_ms);
        *pause_ms = *pause_ms * 2 > PAUSE_MAX_MS ? PAUSE_MAX_MS : *pause_ms * 2;
    }
    return 0;
}

int pipe_rdzv_connect(const char *host, int port, const char *token, uint64_t timeout_ms, pipe_rdzv_client **out,
                      char *err, size_t errsize)
{
    pipe_rdzv_client *c = calloc(1, sizeof *c);
    if (!c)
        return PIPE_ENOMEM;
    c->fd = -1;
    snprintf(c->host, sizeof c->host, "%s", host);
    c->port = port;
    pipe_token_copy(c->token, token, PIPE_RDZV_TOKEN_MAX);
    snprintf(c->where, sizeof c->where, "%s:%d", host, port);
    c->retry_ms = timeout_ms;
    char why[128] = "not reachable";
    unsigned pause = PAUSE_MIN_MS;
    if (ensure_connected(c, pipe_now() + (double)timeout_ms / 1000.0, &pause, why, sizeof why) != 0) {
        pipe_errf(err, errsize, "cannot reach the rendezvous at %s within %.1f s: %s", c->where,
                  (double)timeout_ms / 1000.0, why);
        free(c);
        return PIPE_ETIMEOUT;
    }
    *out = c;
    return 0;
}

void pipe_rdzv_close(pipe_rdzv_client *c)
{
    if (!c)
        return;
    disconnect(c);
    free(c);
}

typedef enum { SENT_NONE, SENT_ALL } send_state;

/* One exchange on the current connection. 0 with rs (and *out) filled; -1
   when the connection failed (*sent says whether the request left). */
static int exchange(pipe_rdzv_client *c, const pipe_rdzv_request *rq, const char *key, const void *value,
                    pipe_rdzv_response *rs, void **out, uint64_t wait_ms, send_state *sent)
{
    *sent = SENT_NONE;
    /* A healthy server answers at once, or once the wait is over. */
    pipe_tcp_set_timeouts(c->fd, wait_ms + PIPE_RDZV_REQUEST_TIMEOUT_MS + 1000);
    if (pipe_send_all(c->fd, rq, sizeof *rq) != 0 || pipe_send_all(c->fd, key, rq->key_len) != 0 ||
        (rq->value_len && pipe_send_all(c->fd, value, rq->value_len) != 0))
        return -1;
    *sent = SENT_ALL;
    if (pipe_recv_all(c->fd, rs, sizeof *rs) != 0 || rs->value_len > PIPE_RDZV_MAX_VALUE)
        return -1;
    if (out) {
        *out = malloc(rs->value_len ? rs->value_len : 1);
        if (!*out || (rs->value_len && pipe_recv_all(c->fd, *out, rs->value_len) != 0)) {
            free(*out);
            *out = NULL;
            return -1;
        }
    } else if (rs->value_len) {
        return -1; /* not ours to take */
    }
    return 0;
}

static bool repeatable(uint8_t op) { return op != PIPE_RDZV_OP_ADD; }

static bool is_wait(uint8_t op) { return op == PIPE_RDZV_OP_GET || op == PIPE_RDZV_OP_WAIT_GE; }

static int call(pipe_rdzv_client *c, uint8_t op, const char *key, const void *value, size_t len, int64_t arg,
                uint64_t timeout_ms, pipe_rdzv_response *rs, void **out, char *err, size_t errsize)
{
    size_t key_len = strlen(key);
    if (out)
        *out = NULL;
    if (key_len == 0 || key_len > PIPE_RDZV_MAX_KEY || len > PIPE_RDZV_MAX_VALUE) {
        pipe_errf(err, errsize, "rendezvous: key or value too large");
        return PIPE_EINVAL;
    }
    pipe_rdzv_request rq;
    memset(&rq, 0, sizeof rq);
    memcpy(rq.magic, "PIPR", 4);
    rq.version = PIPE_RDZV_VERSION;
    rq.op = op;
    memcpy(rq.token, c->token, PIPE_RDZV_TOKEN_MAX);
    rq.key_len = (uint32_t)key_len;
    rq.value_len = (uint32_t)len;
    rq.arg = arg;

    double start = pipe_now();
    double wait_end = start + (double)timeout_ms / 1000.0;
    double retry_end = is_wait(op) ? wait_end : start + (double)c->retry_ms / 1000.0;
    unsigned pause = PAUSE_MIN_MS;
    char why[160] = "the connection closed";
    for (;;) {
        if (ensure_connected(c, retry_end, &pause, why, sizeof why) != 0)
            break;
        double left = wait_end - pipe_now();
        rq.timeout_ms = is_wait(op) ? (left > 0 ? (uint64_t)(left * 1000.0) : 0) : 0;
        send_state sent;
        if (exchange(c, &rq, key, value, rs, out, rq.timeout_ms, &sent) != 0) {
            snprintf(why, sizeof why, "%s", errno == EAGAIN ? "no reply in time" : "the connection closed");
            disconnect(c);
            if (sent == SENT_ALL && !repeatable(op)) {
                pipe_errf(err, errsize, "rendezvous at %s: %s during `%s`", c->where, why, key);
                return PIPE_ECOMM;
            }
        } else if (rs->status == PIPE_RDZV_ST_BUSY) {
            snprintf(why, sizeof why, "it had no room for another connection");
            disconnect(c);
        } else if (rs->status == PIPE_RDZV_ST_DENIED) {
            disconnect(c);
            pipe_errf(err, errsize,
                      "the rendezvous at %s refused this rank's token (the machines of one step must share "
                      "PIPE_RDZV_TOKEN, or the run id it is derived from)",
                      c->where);
            return PIPE_ECOMM;
        } else if (rs->status == PIPE_RDZV_ST_TIMEOUT) {
            free(out ? *out : NULL);
            if (out)
                *out = NULL;
            pipe_errf(err, errsize, "timed out after %.1f s waiting for `%s` at the rendezvous %s",
                      (double)timeout_ms / 1000.0, key, c->where);
            return PIPE_ETIMEOUT;
        } else if (rs->status != PIPE_RDZV_ST_OK) {
            free(out ? *out : NULL);
            if (out)
                *out = NULL;
            pipe_errf(err, errsize, "rendezvous at %s failed on `%s`", c->where, key);
            return PIPE_ECOMM;
        } else {
            return 0;
        }
        if (pipe_now() + pause / 1000.0 >= retry_end)
            break;
        pipe_sleep_ms(pause);
        pause = pause * 2 > PAUSE_MAX_MS ? PAUSE_MAX_MS : pause * 2;
    }
    if (is_wait(op))
        pipe_errf(err, errsize, "timed out after %.1f s waiting for `%s` at the rendezvous %s (%s)",
                  (double)timeout_ms / 1000.0, key, c->where, why);
    else
        pipe_errf(err, errsize, "the rendezvous at %s did not take `%s` within %.1f s: %s", c->where, key,
                  (double)c->retry_ms / 1000.0, why);
    return PIPE_ETIMEOUT;
}

int pipe_rdzv_set(pipe_rdzv_client *c, const char *key, const void *value, size_t len, char *err, size_t errsize)
{
    pipe_rdzv_response rs;
    return call(c, PIPE_RDZV_OP_SET, key, value, len, 0, 0, &rs, NULL, err, errsize);
}

int pipe_rdzv_get(pipe_rdzv_client *c, const char *key, void **value, size_t *len, uint64_t timeout_ms, char *err,
                  size_t errsize)
{
    pipe_rdzv_response rs;
    int rc = call(c, PIPE_RDZV_OP_GET, key, NULL, 0, 0, timeout_ms, &rs, value, err, errsize);
    if (rc == 0 && len)
        *len = rs.value_len;
    return rc;
}

int pipe_rdzv_add(pipe_rdzv_client *c, const char *key, int64_t delta, int64_t *result, char *err, size_t errsize)
{
    pipe_rdzv_response rs;
    int rc = call(c, PIPE_RDZV_OP_ADD, key, NULL, 0, delta, 0, &rs, NULL, err, errsize);
    if (rc == 0 && result)
        *result = rs.result;
    return rc;
}

int pipe_rdzv_join(pipe_rdzv_client *c, const char *key, const void *value, size_t len, int64_t *joined, char *err,
                   size_t errsize)
{
    pipe_rdzv_response rs;
    int rc = call(c, PIPE_RDZV_OP_JOIN, key, value, len, 0, 0, &rs, NULL, err, errsize);
    if (rc == 0 && joined)
        *joined = rs.result;
    return rc;
}

int pipe_rdzv_wait_ge(pipe_rdzv_client *c, const char *key, int64_t target, uint64_t timeout_ms, char *err,
                      size_t errsize)
{
    pipe_rdzv_response rs;
    return call(c, PIPE_RDZV_OP_WAIT_GE, key, NULL, 0, target, timeout_ms, &rs, NULL, err, errsize);
}

int pipe_rdzv_barrier(pipe_rdzv_client *c, const char *name, int64_t world, uint64_t timeout_ms, char *err,
                      size_t errsize)
{
    char key[PIPE_RDZV_MAX_KEY];
    snprintf(key, sizeof key, "barrier/%s/%lld", name, (long long)c->barrier_generation++);
    int rc = pipe_rdzv_add(c, key, 1, NULL, err, errsize);
    return rc ? rc : pipe_rdzv_wait_ge(c, key, world, timeout_ms, err, errsize);
}
