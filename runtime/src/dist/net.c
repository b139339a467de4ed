#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "util/util.h"

/* connect() on a non-blocking socket, waiting at most until deadline. */
static int connect_before(int s, const struct sockaddr *addr, socklen_t len, double deadline)
{
    if (connect(s, addr, len) == 0)
        return 0;
    if (errno != EINPROGRESS)
        return -1;
    for (;;) {
        double left = deadline - pipe_now();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd p = {.fd = s, .events = POLLOUT};
        int r = poll(&p, 1, (int)(left * 1000.0) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            continue; /* the deadline check above ends it */
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (getsockopt(s, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
            return -1;
        if (soerr != 0) {
            errno = soerr;
            return -1;
        }
        return 0;
    }
}

int pipe_tcp_connect(const char *host, int port, uint64_t timeout_ms, int *fd, char *why, size_t whysize)
{
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int gai = getaddrinfo(host, service, &hints, &res);
    if (gai != 0) {
        snprintf(why, whysize, "%s", gai_strerror(gai));
        return -1;
    }
    double deadline = pipe_now() + (double)(timeout_ms ? timeout_ms : 1) / 1000.0;
    snprintf(why, whysize, "no address");
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        int s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (s < 0) {
            snprintf(why, whysize, "%s", strerror(errno));
            continue;
        }
        if (connect_before(s, ai->ai_addr, ai->ai_addrlen, deadline) == 0) {
            int one = 1;
            setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            fcntl(s, F_SETFL, fcntl(s, F_GETFL) & ~O_NONBLOCK);
            freeaddrinfo(res);
            *fd = s;
            return 0;
        }
        snprintf(why, whysize, "%s", strerror(errno));
        close(s);
    }
    freeaddrinfo(res);
    return -1;
}

void pipe_tcp_set_timeouts(int fd, uint64_t timeout_ms)
{
    struct timeval tv = {(time_t)(timeout_ms / 1000), (suseconds_t)(timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

int pipe_tcp_free_port(int *port, char *why, size_t whysize)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in addr;
    socklen_t len = sizeof addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    addr.sin_port = 0;
    if (s < 0 || bind(s, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        getsockname(s, (struct sockaddr *)&addr, &len) != 0) {
        snprintf(why, whysize, "%s", strerror(errno));
        if (s >= 0)
            close(s);
        return -1;
    }
    close(s);
    *port = ntohs(addr.sin_port);
    return 0;
}

int pipe_send_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int pipe_recv_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = recv(fd, p, n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* The source address the kernel picks toward addr (connect() on a UDP
   socket sends nothing), 0; -1 without a route or with a loopback one. */
static int route_source(const char *addr, char *out, size_t size)
{
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(53)};
    struct sockaddr_in me;
    socklen_t len = sizeof me;
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return -1;
    int rc = inet_pton(AF_INET, addr, &to.sin_addr) == 1 && connect(s, (struct sockaddr *)&to, sizeof to) == 0 &&
                     getsockname(s, (struct sockaddr *)&me, &len) == 0 && me.sin_addr.s_addr != htonl(INADDR_ANY) &&
                     (ntohl(me.sin_addr.s_addr) >> 24) != 127 && inet_ntop(AF_INET, &me.sin_addr, out, (socklen_t)size)
                 ? 0
                 : -1;
    close(s);
    return rc;
}

void pipe_own_ipv4(char *out, size_t size)
{
    if (route_source("8.8.8.8", out, size) == 0)
        return;
    struct ifaddrs *all = NULL;
    if (getifaddrs(&all) == 0) {
        for (struct ifaddrs *i = all; i; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
                (i->ifa_flags & IFF_LOOPBACK))
                continue;
            if (inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, out, (socklen_t)size)) {
                freeifaddrs(all);
                return;
            }
        }
        freeifaddrs(all);
    }
    snprintf(out, size, "127.0.0.1");
}
