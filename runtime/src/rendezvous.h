/* The rendezvous store of an accelerated step (private): a small TCP
   key-value service that machine 0's launcher runs on main_process_port and
   every rank joins. Every request carries the run's token; malformed,
   oversized or unauthenticated traffic is rejected, logged and dropped
   without disturbing the job. Blocking operations take a timeout. */
#ifndef PIPE_RENDEZVOUS_H
#define PIPE_RENDEZVOUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PIPE_RDZV_MAX_KEY 1024
#define PIPE_RDZV_MAX_VALUE (4u << 20)
#define PIPE_RDZV_TOKEN_MAX 64

typedef struct pipe_rdzv_server pipe_rdzv_server;
typedef struct pipe_rdzv_client pipe_rdzv_client;

/* Listens on bind_addr (NULL: every interface) and port (0: a free one);
   the port in use is stored in *bound_port. */
int pipe_rdzv_server_start(const char *bind_addr, int port, const char *token, pipe_rdzv_server **out,
                           int *bound_port, char *err, size_t errsize);
void pipe_rdzv_server_stop(pipe_rdzv_server *s);
/* Whether a key has been set (the launcher uses it to name missing ranks). */
bool pipe_rdzv_server_has(pipe_rdzv_server *s, const char *key);
/* Connections rejected so far (bad magic, token or size). */
size_t pipe_rdzv_server_rejected(pipe_rdzv_server *s);

/* Connects, retrying until timeout_ms (the server may not be up yet). */
int pipe_rdzv_connect(const char *host, int port, const char *token, uint64_t timeout_ms, pipe_rdzv_client **out,
                      char *err, size_t errsize);
void pipe_rdzv_close(pipe_rdzv_client *c);
int pipe_rdzv_set(pipe_rdzv_client *c, const char *key, const void *value, size_t len, char *err, size_t errsize);
/* Waits up to timeout_ms for key; *value is malloc'ed. PIPE_ETIMEOUT when it never appears. */
int pipe_rdzv_get(pipe_rdzv_client *c, const char *key, void **value, size_t *len, uint64_t timeout_ms, char *err,
                  size_t errsize);
/* Adds delta to the integer at key (0 when absent); *result gets the new value. */
int pipe_rdzv_add(pipe_rdzv_client *c, const char *key, int64_t delta, int64_t *result, char *err, size_t errsize);
/* Waits until the integer at key is at least target. */
int pipe_rdzv_wait_ge(pipe_rdzv_client *c, const char *key, int64_t target, uint64_t timeout_ms, char *err,
                      size_t errsize);
/* All `world` participants calling it with the same name meet; each call
   of a client is a new generation. */
int pipe_rdzv_barrier(pipe_rdzv_client *c, const char *name, int64_t world, uint64_t timeout_ms, char *err,
                      size_t errsize);

#endif
