/* The rendezvous store of an accelerated step (private): a small TCP
   key-value service that machine 0's launcher runs for each attempt and
   every rank joins. Every request carries the run's token.

   The server (rendezvous_server.c) is one thread with one poll loop,
   whatever the number of peers: a fixed table of connections sized from
   the expected ranks and the open-file limit, a deadline for each whole
   request, close-on-exec descriptors, a pause instead of a busy loop when
   accept() runs out of descriptors. What it turns away (garbage, a wrong
   token, a request that does not arrive in time, no room) is counted and
   handed to the launcher as log lines, summarized so that a flood of bad
   peers cannot flood the log (docs/distributed.md, "The rendezvous").

   The client (rendezvous_client.c) retries what can be retried (connecting,
   a connection the server had no room for or closed, idempotent requests)
   until its deadline. */
#ifndef PIPE_RENDEZVOUS_H
#define PIPE_RENDEZVOUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PIPE_RDZV_MAX_KEY 1024
#define PIPE_RDZV_MAX_VALUE (4u << 20)
#define PIPE_RDZV_TOKEN_MAX 64
/* A request, once its first byte is in (for a new connection: once it is
   accepted), must arrive whole within this long. */
#define PIPE_RDZV_REQUEST_TIMEOUT_MS 5000u

typedef struct pipe_rdzv_server pipe_rdzv_server;
typedef struct pipe_rdzv_client pipe_rdzv_client;

typedef struct pipe_rdzv_server_config {
    const char *bind_addr; /* an IPv4 address; NULL: every interface */
    int port;              /* 0: a free one */
    const char *token;
    int peers; /* the ranks that will connect: the table keeps room for them */
    uint64_t request_timeout_ms; /* 0: PIPE_RDZV_REQUEST_TIMEOUT_MS (tests shorten it) */
} pipe_rdzv_server_config;

/* Listens and starts the loop; the port in use goes to *bound_port. */
int pipe_rdzv_server_start(const pipe_rdzv_server_config *cfg, pipe_rdzv_server **out, int *bound_port, char *err,
                           size_t errsize);
void pipe_rdzv_server_stop(pipe_rdzv_server *s);
/* In a child forked while the server runs: closes the server's descriptors
   (the listening socket must not outlive the server in its ranks). Only
   what is safe after fork; the memory stays to the child's exit. */
void pipe_rdzv_server_close_in_child(pipe_rdzv_server *s);
/* Whether a key has been set (the launcher uses it to name missing ranks). */
bool pipe_rdzv_server_has(pipe_rdzv_server *s, const char *key);
/* Connections turned away so far (bad magic, token, size, deadline, room). */
size_t pipe_rdzv_server_rejected(pipe_rdzv_server *s);
/* The connections open now, and the most the table holds. */
size_t pipe_rdzv_server_connections(pipe_rdzv_server *s, size_t *capacity);
/* What the server turned away since the last call, as lines ending in
   '\n' (malloc'ed), or NULL when nothing happened. */
char *pipe_rdzv_server_take_log(pipe_rdzv_server *s);

/* Connects, retrying until timeout_ms (the server may not be up yet, or
   have no room); later requests retry within the same budget. */
int pipe_rdzv_connect(const char *host, int port, const char *token, uint64_t timeout_ms, pipe_rdzv_client **out,
                      char *err, size_t errsize);
void pipe_rdzv_close(pipe_rdzv_client *c);
int pipe_rdzv_set(pipe_rdzv_client *c, const char *key, const void *value, size_t len, char *err, size_t errsize);
/* Waits up to timeout_ms for key; *value is malloc'ed. PIPE_ETIMEOUT when it never appears. */
int pipe_rdzv_get(pipe_rdzv_client *c, const char *key, void **value, size_t *len, uint64_t timeout_ms, char *err,
                  size_t errsize);
/* Adds delta to the integer at key (0 when absent); *result gets the new
   value. Not retried once sent: an addition must not count twice. */
int pipe_rdzv_add(pipe_rdzv_client *c, const char *key, int64_t delta, int64_t *result, char *err, size_t errsize);
/* Sets key to value and counts it once in "joined"; *joined gets the count. */
int pipe_rdzv_join(pipe_rdzv_client *c, const char *key, const void *value, size_t len, int64_t *joined, char *err,
                   size_t errsize);
/* Waits until the integer at key is at least target. */
int pipe_rdzv_wait_ge(pipe_rdzv_client *c, const char *key, int64_t target, uint64_t timeout_ms, char *err,
                      size_t errsize);
/* All `world` participants calling it with the same name meet; each call
   of a client is a new generation. */
int pipe_rdzv_barrier(pipe_rdzv_client *c, const char *name, int64_t world, uint64_t timeout_ms, char *err,
                      size_t errsize);

#endif
