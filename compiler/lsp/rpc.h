/* JSON-RPC 2.0 over a byte stream with LSP's framing: a header block
   (`Content-Length: N`, other headers ignored) ended by an empty line, then
   N bytes of JSON. */
#ifndef PIPEC_LSP_RPC_H
#define PIPEC_LSP_RPC_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

/* A message body larger than this is refused (its bytes skipped): twice
   the largest .pipe file pipec reads, for the JSON escapes. */
#define RPC_MAX_BODY ((size_t)512 << 20)
/* A header block longer than this is not one. */
#define RPC_MAX_HEADER 8192

typedef struct rpc_reader {
    int fd;
    char *buf;
    size_t start, len, cap; /* unread bytes are buf[start..len) */
    bool eof;
} rpc_reader;

typedef enum { RPC_MESSAGE, RPC_EOF, RPC_BAD_FRAME } rpc_status;

void rpc_reader_init(rpc_reader *r, int fd);
void rpc_reader_free(rpc_reader *r);
/* The next message: its body in *body (valid until the next call), its
   length in *len. RPC_BAD_FRAME (a reason in err) when a header block has
   no usable Content-Length or announces too much; the reader has moved past
   it and the next call goes on with what follows. */
rpc_status rpc_read(rpc_reader *r, const char **body, size_t *len, char *err, size_t errsize);
/* Whether a whole message or more input is waiting: the server publishes
   diagnostics only when it has caught up with the editor. */
bool rpc_pending(const rpc_reader *r);

/* Writes body framed; false when the stream is closed. */
bool rpc_write(int fd, const char *body, size_t len);

#endif
