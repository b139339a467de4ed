/* TCP helpers shared by the rendezvous and the CPU collectives (private).
   Every socket they make is close-on-exec. */
#ifndef PIPE_NET_H
#define PIPE_NET_H

#include <stddef.h>
#include <stdint.h>

/* One attempt to connect to host:port (names resolved, IPv4 or IPv6),
   giving up after timeout_ms (a peer whose backlog is full drops the
   handshake, and the kernel would retry it for minutes); TCP_NODELAY set,
   the socket blocking again. 0 with *fd, or -1 with the reason in why. */
int pipe_tcp_connect(const char *host, int port, uint64_t timeout_ms, int *fd, char *why, size_t whysize);
/* A TCP port that is free on this machine now (the kernel's pick for a
   socket bound to port 0 on every interface, then closed), as
   `accelerate launch --main_process_port 0` finds one. 0 with *port, or -1
   with the reason in why. */
int pipe_tcp_free_port(int *port, char *why, size_t whysize);
/* This machine's own IPv4 address, for a scheduler that leaves machine 0
   to find its own (AWS Batch's main node): the source address of the route
   to the outside (a UDP connect(), which sends nothing), else the first
   non-loopback IPv4 address of an interface that is up (getifaddrs, as
   `hostname -I` lists them), else 127.0.0.1. Never fails. */
void pipe_own_ipv4(char *out, size_t size);
/* Full sends and receives; 0 or -1 when the peer went away (or a timeout
   set with pipe_tcp_set_timeouts ran out: errno is EAGAIN then). */
int pipe_send_all(int fd, const void *buf, size_t n);
int pipe_recv_all(int fd, void *buf, size_t n);
/* SO_RCVTIMEO and SO_SNDTIMEO; 0 ms: wait forever. */
void pipe_tcp_set_timeouts(int fd, uint64_t timeout_ms);

#endif
