/* The rendezvous server under attack and at its limits: a deadline for the
   whole request (a peer that trickles bytes is dropped), one thread and a
   bounded table whatever the number of peers (strangers make room for
   ranks), a pause instead of a busy loop when accept() runs out of
   descriptors, BUSY answered and retried, and no listening socket left in
   a forked child. */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../unit/check.h"
#include "pipe/error.h"
#include "dist/rendezvous.h"
#include "util/util.h"

enum { RANKS = 8, STRANGERS = 300 };

static int raw_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* Whether the server closed fd (EOF or reset); waits up to ms. */
static bool closed_within(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, ms) <= 0)
        return false;
    char b[64];
    return recv(fd, b, sizeof b, MSG_DONTWAIT) <= 0;
}

static int start(const char *token, int peers, uint64_t request_ms, pipe_rdzv_server **s, int *port)
{
    char err[256];
    pipe_rdzv_server_config cfg = {
        .bind_addr = "127.0.0.1", .token = token, .peers = peers, .request_timeout_ms = request_ms};
    int rc = pipe_rdzv_server_start(&cfg, s, port, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "server: %s\n", err);
    return rc;
}

static int threads_now(void)
{
    char *text = NULL;
    if (pipe_read_file("/proc/self/status", &text, NULL, NULL, 0) != 0)
        return -1;
    const char *t = strstr(text, "\nThreads:");
    int n = t ? atoi(t + 9) : -1;
    free(text);
    return n;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

/* "PIPR" and then a byte at a time: the deadline is for the whole request,
   not for each read. */
static void test_trickle_dropped(void)
{
    pipe_rdzv_server *s;
    int port;
    CHECK_EQ_INT(start("tok", RANKS, 600, &s, &port), 0);
    int fd = raw_connect(port);
    CHECK(fd >= 0);
    double t0 = pipe_now();
    bool dropped = send(fd, "PIPR", 4, MSG_NOSIGNAL) != 4;
    for (int i = 0; i < 20 && !dropped; i++) {
        if (closed_within(fd, 150)) {
            dropped = true;
            break;
        }
        char zero = 0;
        if (send(fd, &zero, 1, MSG_NOSIGNAL) != 1)
            dropped = true;
    }
    double took = pipe_now() - t0;
    CHECK(dropped);
    CHECK(took >= 0.5 && took < 2.0);
    close(fd);
    for (int i = 0; i < 50 && pipe_rdzv_server_rejected(s) < 1; i++)
        pipe_sleep_ms(20);
    char *log = pipe_rdzv_server_take_log(s);
    CHECK(log && strstr(log, "no complete request within the request deadline (0.6 s)"));
    free(log);

    /* A rank's connection that idles between requests is not a trickler. */
    char err[256];
    pipe_rdzv_client *c;
    CHECK_EQ_INT(pipe_rdzv_connect("127.0.0.1", port, "tok", 2000, &c, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_rdzv_set(c, "k", "v", 1, err, sizeof err), 0);
    pipe_sleep_ms(1000);
    CHECK_EQ_U64(pipe_rdzv_server_connections(s, NULL), 1);
    void *v = NULL;
    CHECK_EQ_INT(pipe_rdzv_get(c, "k", &v, NULL, 100, err, sizeof err), 0);
    free(v);
    pipe_rdzv_close(c);
    pipe_rdzv_server_stop(s);
}

typedef struct rank_arg {
    int port, rank;
    int rc;
    char err[256];
} rank_arg;

static void *rank_join(void *p)
{
    rank_arg *a = p;
    pipe_rdzv_client *c;
    char key[32];
    snprintf(key, sizeof key, "rank/%d", a->rank);
    a->rc = pipe_rdzv_connect("127.0.0.1", a->port, "tok", 20000, &c, a->err, sizeof a->err);
    if (a->rc == 0) {
        a->rc = pipe_rdzv_join(c, key, "host", 4, NULL, a->err, sizeof a->err);
        if (a->rc == 0)
            a->rc = pipe_rdzv_wait_ge(c, "joined", RANKS, 20000, a->err, sizeof a->err);
        pipe_rdzv_close(c);
    }
    return NULL;
}

/* STRANGERS connections trickle bytes while RANKS ranks join: the ranks
   meet, the server keeps one thread and a bounded table. */
static void test_flood(void)
{
    pipe_rdzv_server *s;
    int port;
    /* A long deadline: the strangers outlast the test, so the table can only
       make room for the ranks by dropping them. */
    CHECK_EQ_INT(start("tok", RANKS, 10000, &s, &port), 0);
    int threads_before = threads_now();
    int strangers[STRANGERS];
    int nstrangers = 0;
    for (int i = 0; i < STRANGERS; i++)
        if ((strangers[nstrangers] = raw_connect(port)) >= 0)
            nstrangers++;
    CHECK(nstrangers > STRANGERS / 2);
    pthread_t threads[RANKS];
    rank_arg args[RANKS];
    for (int i = 0; i < RANKS; i++) {
        args[i] = (rank_arg){.port = port, .rank = i};
        pthread_create(&threads[i], NULL, rank_join, &args[i]);
    }
    /* Keep trickling (reconnecting what was dropped) for 3 s. */
    int peak_threads = 0;
    size_t capacity = 0, peak_open = 0;
    double cpu0 = cpu_seconds(), t0 = pipe_now();
    while (pipe_now() - t0 < 3.0) {
        for (int i = 0; i < nstrangers; i++) {
            char b = 'P';
            if (strangers[i] < 0 || send(strangers[i], &b, 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
                if (strangers[i] >= 0)
                    close(strangers[i]);
                strangers[i] = raw_connect(port);
            }
        }
        size_t open = pipe_rdzv_server_connections(s, &capacity);
        if (open > peak_open)
            peak_open = open;
        int t = threads_now();
        if (t > peak_threads)
            peak_threads = t;
        pipe_sleep_ms(300);
    }
    double cpu = cpu_seconds() - cpu0;
    for (int i = 0; i < RANKS; i++) {
        pthread_join(threads[i], NULL);
        if (args[i].rc != 0)
            fprintf(stderr, "rank %d: %s\n", i, args[i].err);
        CHECK_EQ_INT(args[i].rc, 0);
    }
    /* The server is one thread whatever the number of peers: the rank
       threads of this test and its main thread are the rest. */
    CHECK(peak_threads <= threads_before + RANKS);
    CHECK(peak_open <= capacity);
    CHECK(capacity <= RANKS + 256);
    /* This process (server and strangers both) stayed far from a busy core. */
    CHECK(cpu < 1.5);
    char *log = pipe_rdzv_server_take_log(s);
    CHECK(log && strstr(log, "dropped to make room"));
    free(log);
    for (int i = 0; i < nstrangers; i++)
        if (strangers[i] >= 0)
            close(strangers[i]);
    pipe_rdzv_server_stop(s);
}

static void *close_later(void *p)
{
    pipe_sleep_ms(1000);
    pipe_rdzv_close(p);
    return NULL;
}

/* In a child limited to 64 descriptors: the table fits the limit; with
   every descriptor taken, accept() fails and the server pauses instead of
   spinning, and says so; a rank that finds the table full of other ranks is
   told BUSY and gets in once one leaves. Returns the number of failures. */
static int low_limit_child(int port_out_fd)
{
    int failures = 0;
    struct rlimit rl = {64, 64};
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1;
    pipe_rdzv_server *s;
    int port;
    if (start("tok", 4, 1000, &s, &port) != 0)
        return 1;
    size_t capacity = 0;
    pipe_rdzv_server_connections(s, &capacity);
    failures += capacity > 64;

    /* Every descriptor taken, then the parent's connections come: they wait
       in the backlog, accept() fails, and there is no stranger to drop. */
    int held[80], nheld = 0;
    while (nheld < 80 && (held[nheld] = dup(0)) >= 0)
        nheld++;
    if (write(port_out_fd, &port, sizeof port) != (ssize_t)sizeof port)
        return 1;
    double cpu0 = cpu_seconds();
    pipe_sleep_ms(2000);
    double cpu = cpu_seconds() - cpu0;
    if (cpu > 0.5) {
        fprintf(stderr, "low limit: %.2f s of CPU in 2 s with accept() out of descriptors\n", cpu);
        failures++;
    }
    char *log = pipe_rdzv_server_take_log(s);
    if (!log || !strstr(log, "accept() failed") || !strstr(log, "Too many open files")) {
        fprintf(stderr, "low limit: log: %s\n", log ? log : "(nothing)");
        failures++;
    }
    free(log);
    while (nheld > 0)
        close(held[--nheld]);

    /* The table full of ranks: one more is told BUSY, retries, gets in. */
    char err[256];
    pipe_rdzv_client *c[80];
    size_t n = 0;
    for (; n < capacity && n < 80; n++) {
        char key[16];
        snprintf(key, sizeof key, "k%zu", n);
        if (pipe_rdzv_connect("127.0.0.1", port, "tok", 5000, &c[n], err, sizeof err) != 0 ||
            pipe_rdzv_set(c[n], key, "v", 1, err, sizeof err) != 0) {
            fprintf(stderr, "low limit: client %zu: %s\n", n, err);
            failures++;
            break;
        }
    }
    pipe_rdzv_client *late;
    double t0 = pipe_now();
    if (n == 0 || pipe_rdzv_connect("127.0.0.1", port, "tok", 10000, &late, err, sizeof err) != 0) {
        failures++;
    } else {
        pthread_t t;
        pthread_create(&t, NULL, close_later, c[--n]); /* a slot frees in 1 s */
        if (pipe_rdzv_set(late, "late", "v", 1, err, sizeof err) != 0) {
            fprintf(stderr, "low limit: the late rank: %s\n", err);
            failures++;
        }
        if (pipe_now() - t0 < 0.9) /* it could only get in after the slot freed */
            failures++;
        pthread_join(t, NULL);
        pipe_rdzv_close(late);
    }
    while (n > 0)
        pipe_rdzv_close(c[--n]);
    pipe_rdzv_server_stop(s);
    return failures;
}

static void test_low_limit(void)
{
    int p[2];
    CHECK_EQ_INT(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        int failures = low_limit_child(p[1]);
        _exit(failures > 99 ? 99 : failures);
    }
    close(p[1]);
    int port = 0;
    CHECK(read(p[0], &port, sizeof port) == (ssize_t)sizeof port);
    close(p[0]);
    /* Strangers knock while the child is out of descriptors. */
    int fds[40], n = 0;
    for (int i = 0; i < 40 && port > 0; i++)
        if ((fds[n] = raw_connect(port)) >= 0)
            n++;
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK_EQ_INT(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
    while (n > 0)
        close(fds[--n]);
}

/* A rank forked while the server runs drops the server's descriptors: once
   the server stops, nobody listens on its port. */
static void test_close_in_child(void)
{
    pipe_rdzv_server *s;
    int port;
    CHECK_EQ_INT(start("tok", RANKS, 0, &s, &port), 0);
    pid_t pid = fork();
    if (pid == 0) {
        pipe_rdzv_server_close_in_child(s);
        pipe_sleep_ms(1500);
        _exit(0);
    }
    pipe_sleep_ms(200);
    pipe_rdzv_server_stop(s);
    int fd = raw_connect(port);
    CHECK(fd < 0); /* refused: the child does not hold the listening socket */
    if (fd >= 0)
        close(fd);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    test_trickle_dropped();
    test_flood();
    test_low_limit();
    test_close_in_child();
    return check_summary();
}
