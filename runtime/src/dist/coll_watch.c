#include "coll_watch.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

enum { PAGE = 4096 };

size_t pipe_coll_watch_bytes(int local_world)
{
    size_t n = (size_t)(local_world > 0 ? local_world : 1) * sizeof(pipe_coll_slot);
    return (n + PAGE - 1) / PAGE * PAGE;
}

void pipe_coll_watch_init(void *base, int local_world)
{
    pipe_coll_slot *slots = base;
    for (int i = 0; i < local_world; i++) {
        atomic_init(&slots[i].entered, 0);
        atomic_init(&slots[i].since_ms, 0);
        atomic_init(&slots[i].kind, 0);
        atomic_init(&slots[i].pid, 0);
        atomic_init(&slots[i].lost_machine, 0);
        atomic_init(&slots[i].joined, 0);
    }
}

pipe_coll_slot *pipe_coll_watch_slots(void *base) { return base; }

uint64_t pipe_coll_watch_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u + 1; /* never 0: 0 means outside */
}

void pipe_coll_watch_enter(pipe_coll_slot *slot, pipe_coll_kind kind)
{
    if (!slot)
        return;
    atomic_store(&slot->pid, (int)getpid());
    atomic_store(&slot->kind, (int)kind);
    atomic_store(&slot->since_ms, pipe_coll_watch_now_ms());
    atomic_fetch_add(&slot->entered, 1);
}

void pipe_coll_watch_leave(pipe_coll_slot *slot)
{
    if (slot)
        atomic_store(&slot->since_ms, 0);
}

const char *pipe_coll_kind_name(int kind)
{
    switch (kind) {
    case PIPE_COLL_ALLREDUCE: return "an all-reduce";
    case PIPE_COLL_BROADCAST: return "a broadcast";
    case PIPE_COLL_ALLGATHER: return "an all-gather";
    case PIPE_COLL_BARRIER: return "a barrier";
    }
    return "a collective";
}

void pipe_coll_watch_lost(pipe_coll_slot *slot, int machine)
{
    if (slot && machine >= 0)
        atomic_store(&slot->lost_machine, machine + 1);
}
