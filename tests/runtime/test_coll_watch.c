/* The supervisor's hung-rank check (supervisor_watch.c) over the table the
   ranks keep (coll_watch.h): a rank past collective_timeout in a collective
   another rank never entered is reported, naming the missing rank; nothing
   is reported before the limit, when every rank is in, or when a rank
   entered after the supervisor read the clock (a timestamp later than "now"
   once read as a wait of 584 million years and killed healthy steps). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "proc/child.h"
#include "dist/coll_watch.h"
#include "step/supervisor_parts.h"

#define RANKS 2
#define TIMEOUT_MS 60000

typedef struct fixture {
    pipe_launch launch;
    pipe_child children[RANKS];
    pipe_child_group g;
    void *table;
    pipe_coll_slot *slots;
} fixture;

static void setup(fixture *f)
{
    memset(f, 0, sizeof *f);
    f->table = calloc(1, pipe_coll_watch_bytes(RANKS));
    pipe_coll_watch_init(f->table, RANKS);
    f->slots = pipe_coll_watch_slots(f->table);
    f->launch.nlocal = RANKS;
    f->launch.world = RANKS;
    f->launch.watch = f->table;
    f->launch.collective_timeout_ms = TIMEOUT_MS;
    for (int i = 0; i < RANKS; i++)
        f->children[i].pid = getpid(); /* a live process for /proc */
    f->g.children = f->children;
    f->g.n = RANKS;
}

/* Rank 0 in collective #1 since `since_ms`; rank 1 entered nothing. */
static char *check_with_rank0_since(fixture *f, uint64_t since_ms)
{
    pipe_coll_watch_enter(&f->slots[0], PIPE_COLL_BROADCAST);
    atomic_store(&f->slots[0].since_ms, since_ms);
    int missing = -1;
    return pipe_supervisor_check_collectives(&f->launch, &f->g, &missing);
}

int main(void)
{
    fixture f;
    setup(&f);
    uint64_t now = pipe_coll_watch_now_ms();
    char *msg = check_with_rank0_since(&f, now - 2 * TIMEOUT_MS);
    CHECK(msg != NULL);
    if (msg) {
        CHECK(strstr(msg, "collective_timeout: rank 1 (pid ") != NULL);
        CHECK(strstr(msg, "that rank 0 waited in for 1m") != NULL);
    }
    free(msg);
    free(f.table);

    setup(&f);
    now = pipe_coll_watch_now_ms();
    CHECK(check_with_rank0_since(&f, now > 10 ? now - 10 : 1) == NULL); /* not yet at the limit */
    free(f.table);

    setup(&f);
    CHECK(check_with_rank0_since(&f, pipe_coll_watch_now_ms() + 5000) == NULL); /* entered after the clock was read */
    free(f.table);

    setup(&f);
    now = pipe_coll_watch_now_ms();
    pipe_coll_watch_enter(&f.slots[1], PIPE_COLL_BROADCAST);
    CHECK(check_with_rank0_since(&f, now - 2 * TIMEOUT_MS) == NULL); /* both in: the missing ones are elsewhere */
    free(f.table);
    return check_summary();
}
