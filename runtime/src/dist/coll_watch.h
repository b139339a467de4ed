/* Hung ranks (private): the table that lets the supervisor see which rank
   never arrived at a pipe collective (@run_with_accelerate(
   collective_timeout)).

   The table opens the machine's shared segment (the memfd the launcher
   makes for its local ranks, PIPE_SHM_FD): one slot per local rank, where
   the rank counts the collectives it has entered and, while inside one,
   which and since when. pipe_allreduce & co. keep it (collectives.c), for
   every backend; the supervisor reads it (supervisor_watch.c). A rank that
   waits longer than collective_timeout in collective #k while another has
   entered fewer than k names that other. */
#ifndef PIPE_COLL_WATCH_H
#define PIPE_COLL_WATCH_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    PIPE_COLL_ALLREDUCE = 1,
    PIPE_COLL_BROADCAST,
    PIPE_COLL_ALLGATHER,
    PIPE_COLL_BARRIER,
} pipe_coll_kind;

typedef struct pipe_coll_slot {
    atomic_uint_fast64_t entered;  /* collectives entered so far */
    atomic_uint_fast64_t since_ms; /* CLOCK_MONOTONIC ms at entering the current one; 0: outside */
    atomic_int kind;               /* pipe_coll_kind of the current one */
    atomic_int pid;
    atomic_int lost_machine; /* 1 + the machine a collective lost contact with; 0: none */
    atomic_int joined;       /* 1: the rank met the others here (one machine, CPU collectives) */
    char pad[64 - 2 * sizeof(atomic_uint_fast64_t) - 4 * sizeof(atomic_int)];
} pipe_coll_slot;

/* The bytes the table takes at the start of the segment (page aligned). */
size_t pipe_coll_watch_bytes(int local_world);
/* Empties the table in a new segment mapped at base. */
void pipe_coll_watch_init(void *base, int local_world);
/* The slots in a mapped segment. */
pipe_coll_slot *pipe_coll_watch_slots(void *base);

/* Monotonic milliseconds, the clock of since_ms (shared by the machine's
   processes). */
uint64_t pipe_coll_watch_now_ms(void);

/* A rank around each collective. */
void pipe_coll_watch_enter(pipe_coll_slot *slot, pipe_coll_kind kind);
void pipe_coll_watch_leave(pipe_coll_slot *slot);

/* A collective of the rank lost contact with machine (its socket closed or
   timed out): the rank's failure is a consequence of that machine's, and
   the supervisor looks there for the cause (supervisor_machines.c). */
void pipe_coll_watch_lost(pipe_coll_slot *slot, int machine);

/* "all-reduce", "broadcast", ... */
const char *pipe_coll_kind_name(int kind);

#endif
