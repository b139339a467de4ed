/* Failures across machines (supervisor_parts.h). A machine's launcher sees
   only its own ranks: when rank 3 on machine 1 fails, machine 0 sees its
   rank 0 lose contact with machine 1. So the machine where a failure starts
   says what it was, in STORE/RUN/INV/failure.machine-N, before it stops its
   other ranks; a machine whose rank only lost contact with machine M reads
   M's record (waiting a little for it) and gives that as the cause, or,
   when none comes, blames machine M itself ("machine 1 (ranks 2-3) lost
   contact"): its launcher was killed, or the machine is down or cut off. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipe/base.h"
#include "pipe/error.h"
#include "supervisor_parts.h"
#include "sweep.h"
#include "util/util.h"

/* How long a machine whose rank lost contact waits for the other machine's
   record: that machine notices its own failure within a second (the
   supervisor's poll), a stopped rank within a second of collective_timeout. */
#define REMOTE_WAIT_MS 5000

static int machines(const pipe_step_ident *id) { return id->nlocal > 0 ? id->world / id->nlocal : 1; }

static char *record_path(const pipe_step_ident *id, int machine)
{
    return pipe_asprintf("%s/failure.machine-%d", id->dir, machine);
}

/* "ranks 2-3" (or "rank 2") of machine m. */
static void ranks_of(const pipe_step_ident *id, int m, char *buf, size_t size)
{
    int first = m * id->nlocal, last = first + id->nlocal - 1;
    if (first == last)
        snprintf(buf, size, "rank %d", first);
    else
        snprintf(buf, size, "ranks %d-%d", first, last);
}

bool pipe_supervisor_spans_machines(const pipe_step_ident *id) { return machines(id) > 1; }

void pipe_supervisor_post_failure(const pipe_step_ident *id, pipe_step_log *log, const char *why)
{
    if (!pipe_supervisor_spans_machines(id) || !why)
        return;
    /* A cause that names no rank (a timeout, SIGTERM to this launcher)
       names this machine. */
    char host[256] = "?", ranks[64];
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    ranks_of(id, id->machine_rank, ranks, sizeof ranks);
    char *text = strncmp(why, "rank ", 5) == 0
                     ? pipe_strdup(why)
                     : pipe_asprintf("machine %d (%s, host %s): %s", id->machine_rank, ranks, host, why);
    char err[1024], *path = record_path(id, id->machine_rank);
    if (path && text && pipe_write_file_atomic(path, text, strlen(text), err, sizeof err) != 0)
        pipe_supervisor_note(log, "cannot tell the other machines why the step failed: %s", err);
    free(path);
    free(text);
}

void pipe_supervisor_forget_failure(const pipe_step_ident *id)
{
    char *path = id->dir ? record_path(id, id->machine_rank) : NULL;
    if (path)
        unlink(path);
    free(path);
}

/* Machine m's record, malloc'ed, or NULL while it has none. */
static char *read_record(const pipe_step_ident *id, int m)
{
    char *path = record_path(id, m), *text = NULL;
    size_t len = 0;
    if (path && pipe_read_file_max(path, PIPE_RECORD_MAX_BYTES, &text, &len, NULL, 0) == 0 && len == 0) {
        free(text);
        text = NULL;
    }
    free(path);
    return text;
}

char *pipe_supervisor_remote_cause(const pipe_step_ident *id, pipe_step_log *log, int rank, int lost)
{
    int n = machines(id);
    double until = pipe_now() + REMOTE_WAIT_MS / 1000.0;
    pipe_supervisor_note(log, "waiting up to %d s for machine %d's launcher to say why", REMOTE_WAIT_MS / 1000,
                         lost);
    /* The machine it lost first, then any other that failed on its own. */
    for (;;) {
        for (int k = 0; k < n; k++) {
            int m = (lost + k) % n;
            char *text = m == id->machine_rank ? NULL : read_record(id, m);
            if (text)
                return text;
        }
        if (pipe_now() >= until)
            break;
        pipe_sleep_ms(50);
    }
    /* Its launcher is gone: what it left in a store we share (sweep.h). */
    pipe_sweep_invocation(id->store, id->o.run_id, id->inv->id, 0);
    char ranks[64];
    ranks_of(id, lost, ranks, sizeof ranks);
    return pipe_asprintf("machine %d (%s) lost contact: its launcher said nothing within %d s (killed, or the "
                         "machine is down or unreachable); rank %d of machine %d noticed",
                         lost, ranks, REMOTE_WAIT_MS / 1000, rank, id->machine_rank);
}
