/* TCP helpers shared by the rendezvous and the CPU collectives (private). */
#ifndef PIPE_NET_H
#define PIPE_NET_H

#include <stddef.h>

/* One attempt to connect to host:port (names resolved, IPv4 or IPv6);
   TCP_NODELAY set. 0 with *fd, or -1 with the reason in why. */
int pipe_tcp_connect(const char *host, int port, int *fd, char *why, size_t whysize);
/* Full sends and receives; 0 or -1 when the peer went away. */
int pipe_send_all(int fd, const void *buf, size_t n);
int pipe_recv_all(int fd, void *buf, size_t n);

#endif
