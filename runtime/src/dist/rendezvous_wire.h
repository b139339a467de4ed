/* The rendezvous wire format (private to rendezvous_server.c and
   rendezvous_client.c). Little-endian, as the machines of one job are.

   Request: magic "PIPR", version, op, 2 reserved, 64-byte token (zero
   padded), key length, value length, a 64-bit argument (ADD's delta,
   WAIT_GE's target) and a timeout in milliseconds (GET, WAIT_GE); then the
   key and the value bytes. Response: status, 3 reserved, value length, a
   64-bit result, then the value. */
#ifndef PIPE_RENDEZVOUS_WIRE_H
#define PIPE_RENDEZVOUS_WIRE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rendezvous.h"

enum {
    PIPE_RDZV_OP_SET = 1,
    PIPE_RDZV_OP_GET = 2,
    PIPE_RDZV_OP_ADD = 3,
    PIPE_RDZV_OP_WAIT_GE = 4,
    /* Sets key (a rank's "rank/N") and, the first time only, adds 1 to
       "joined": a join that may be sent again after a lost reply. */
    PIPE_RDZV_OP_JOIN = 5,
};

enum {
    PIPE_RDZV_ST_OK = 0,
    PIPE_RDZV_ST_TIMEOUT = 1,
    PIPE_RDZV_ST_ERROR = 2,
    PIPE_RDZV_ST_DENIED = 3, /* wrong token: retrying cannot help */
    PIPE_RDZV_ST_BUSY = 4,   /* no room for another connection now: retry */
};

#define PIPE_RDZV_VERSION 2
#define PIPE_RDZV_JOINED_KEY "joined"

typedef struct pipe_rdzv_request {
    char magic[4];
    uint8_t version, op, reserved[2];
    char token[PIPE_RDZV_TOKEN_MAX];
    uint32_t key_len, value_len;
    int64_t arg;
    uint64_t timeout_ms;
} pipe_rdzv_request;

typedef struct pipe_rdzv_response {
    uint8_t status, reserved[3];
    uint32_t value_len;
    int64_t result;
} pipe_rdzv_response;

/* Compares tokens in time independent of where they differ. */
static inline bool pipe_token_equal(const char *a, const char *b, size_t n)
{
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

/* token into n bytes, zero padded (cut at n). */
static inline void pipe_token_copy(char *dst, const char *token, size_t n)
{
    memset(dst, 0, n);
    if (token)
        memcpy(dst, token, strnlen(token, n));
}

#endif
