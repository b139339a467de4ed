/* The rendezvous store: many clients meeting, values, counters, barriers,
   timeouts, and hostile peers (garbage, wrong token, oversized requests)
   that are rejected without disturbing the others. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../unit/check.h"
#include "pipe/error.h"
#include "dist/rendezvous.h"
#include "util/util.h"

enum { WORLD = 8 };

typedef struct worker_arg {
    int port, rank;
    int failures;
    char seen[64];
} worker_arg;

static void *rank_main(void *p)
{
    worker_arg *w = p;
    char err[256];
    pipe_rdzv_client *c;
    if (pipe_rdzv_connect("127.0.0.1", w->port, "secret-token", 5000, &c, err, sizeof err) != 0) {
        w->failures++;
        return NULL;
    }
    char key[32], value[32];
    snprintf(key, sizeof key, "rank/%d", w->rank);
    snprintf(value, sizeof value, "addr-of-%d", w->rank);
    if (pipe_rdzv_set(c, key, value, strlen(value), err, sizeof err) != 0)
        w->failures++;
    int64_t joined;
    if (pipe_rdzv_add(c, "joined", 1, &joined, err, sizeof err) != 0 || joined < 1 || joined > WORLD)
        w->failures++;
    for (int round = 0; round < 3; round++)
        if (pipe_rdzv_barrier(c, "b", WORLD, 5000, err, sizeof err) != 0)
            w->failures++;
    snprintf(key, sizeof key, "rank/%d", (w->rank + 1) % WORLD);
    void *got = NULL;
    size_t len = 0;
    if (pipe_rdzv_get(c, key, &got, &len, 5000, err, sizeof err) != 0)
        w->failures++;
    else
        snprintf(w->seen, sizeof w->seen, "%.*s", (int)len, (char *)got);
    free(got);
    pipe_rdzv_close(c);
    return NULL;
}

static int raw_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Sends bytes and waits for the server to hang up. */
static void hostile(int port, const void *bytes, size_t n)
{
    int fd = raw_connect(port);
    if (fd < 0)
        return;
    if (send(fd, bytes, n, MSG_NOSIGNAL) < 0) {
        close(fd);
        return;
    }
    char buf[64];
    while (recv(fd, buf, sizeof buf, 0) > 0) {
    }
    close(fd);
}

static int start_server(const char *token, pipe_rdzv_server **s, int *port)
{
    char err[256];
    pipe_rdzv_server_config cfg = {.bind_addr = "127.0.0.1", .token = token, .peers = WORLD};
    int rc = pipe_rdzv_server_start(&cfg, s, port, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    return rc;
}

static void test_meeting(void)
{
    pipe_rdzv_server *s;
    int port = 0;
    char err[256];
    CHECK_EQ_INT(start_server("secret-token", &s, &port), 0);
    CHECK(port > 0);

    /* Hostile peers first: garbage, a wrong token, an oversized key. */
    hostile(port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27);
    pipe_rdzv_client *bad;
    CHECK_EQ_INT(pipe_rdzv_connect("127.0.0.1", port, "not-the-token", 5000, &bad, err, sizeof err), 0);
    double denied_at = pipe_now();
    CHECK(pipe_rdzv_set(bad, "k", "v", 1, err, sizeof err) != 0);
    CHECK(pipe_now() - denied_at < 1.0); /* told at once, not retried until its budget */
    CHECK(strstr(err, "refused this rank's token") != NULL);
    pipe_rdzv_close(bad);
    unsigned char huge[200];
    memset(huge, 0, sizeof huge);
    memcpy(huge, "PIPR", 4);
    huge[4] = 2; /* PIPE_RDZV_VERSION */
    huge[5] = 1;
    memcpy(huge + 8, "secret-token", 12);
    uint32_t big = 1u << 30;
    memcpy(huge + 72, &big, 4);
    hostile(port, huge, sizeof huge);
    for (int i = 0; i < 50 && pipe_rdzv_server_rejected(s) < 3; i++)
        pipe_sleep_ms(20);
    CHECK_EQ_U64(pipe_rdzv_server_rejected(s), 3);
    /* Each refusal is a line for the step's log, with the peer and why. */
    char *log = pipe_rdzv_server_take_log(s);
    CHECK(log && strstr(log, "not a pipe rendezvous request") && strstr(log, "wrong token") &&
          strstr(log, "key or value too large") && strstr(log, "from 127.0.0.1:"));
    free(log);
    CHECK(pipe_rdzv_server_take_log(s) == NULL); /* taken once */

    /* The real ranks still meet. */
    pthread_t threads[WORLD];
    worker_arg args[WORLD];
    for (int i = 0; i < WORLD; i++) {
        args[i] = (worker_arg){.port = port, .rank = i};
        pthread_create(&threads[i], NULL, rank_main, &args[i]);
    }
    for (int i = 0; i < WORLD; i++) {
        pthread_join(threads[i], NULL);
        CHECK_EQ_INT(args[i].failures, 0);
        char want[32];
        snprintf(want, sizeof want, "addr-of-%d", (i + 1) % WORLD);
        CHECK_STREQ(args[i].seen, want);
    }
    CHECK(pipe_rdzv_server_has(s, "rank/7"));
    CHECK(!pipe_rdzv_server_has(s, "rank/8"));

    /* A key that never comes: a timeout naming the key and the address. */
    pipe_rdzv_client *c;
    CHECK_EQ_INT(pipe_rdzv_connect("127.0.0.1", port, "secret-token", 1000, &c, err, sizeof err), 0);
    double t0 = pipe_now();
    void *v = NULL;
    CHECK_EQ_INT(pipe_rdzv_get(c, "never", &v, NULL, 300, err, sizeof err), PIPE_ETIMEOUT);
    double waited = pipe_now() - t0;
    CHECK(waited >= 0.25 && waited < 3.0);
    CHECK(strstr(err, "never") != NULL);
    CHECK(strstr(err, "127.0.0.1") != NULL);
    CHECK_EQ_INT(pipe_rdzv_wait_ge(c, "joined", WORLD, 100, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_rdzv_wait_ge(c, "joined", WORLD + 1, 100, err, sizeof err), PIPE_ETIMEOUT);
    /* A join sent again (a lost reply) counts once. */
    int64_t joined = 0;
    CHECK_EQ_INT(pipe_rdzv_join(c, "late/0", "h", 1, &joined, err, sizeof err), 0);
    CHECK_EQ_INT(joined, WORLD + 1);
    CHECK_EQ_INT(pipe_rdzv_join(c, "late/0", "h", 1, &joined, err, sizeof err), 0);
    CHECK_EQ_INT(joined, WORLD + 1);
    pipe_rdzv_close(c);
    pipe_rdzv_server_stop(s);
}

static void test_unreachable(void)
{
    /* Find a port nobody listens on. */
    pipe_rdzv_server *s;
    int port = 0;
    char err[256];
    CHECK_EQ_INT(start_server("t", &s, &port), 0);
    pipe_rdzv_server_stop(s);
    pipe_rdzv_client *c;
    CHECK_EQ_INT(pipe_rdzv_connect("127.0.0.1", port, "t", 300, &c, err, sizeof err), PIPE_ETIMEOUT);
    char where[32];
    snprintf(where, sizeof where, "127.0.0.1:%d", port);
    CHECK(strstr(err, where) != NULL);
}

int main(void)
{
    test_meeting();
    test_unreachable();
    return check_summary();
}
