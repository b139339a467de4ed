/* Hung ranks (supervisor_parts.h): reads the table the local ranks keep of the
   collectives they enter (coll_watch.h). When a rank has waited in
   collective #k for collective_timeout while others have not entered it,
   the attempt fails naming those others and what their processes are
   doing (/proc/PID/stat and wchan): stopped, sleeping in ..., exited. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "proc/child.h"
#include "dist/coll_watch.h"
#include "pipe/base.h"
#include "supervisor_parts.h"
#include "util/util.h"

/* What a process is doing, from /proc: "stopped (SIGSTOP or a debugger)",
   "sleeping in futex_wait_queue", ... */
static void process_state(pid_t pid, char *out, size_t size)
{
    char path[64], *text = NULL;
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    if (pipe_read_file(path, &text, NULL, NULL, 0) != 0) {
        snprintf(out, size, "gone");
        return;
    }
    const char *paren = strrchr(text, ')'); /* the command name may hold anything */
    char state = paren && paren[1] == ' ' ? paren[2] : '?';
    free(text);
    char wchan[128] = "";
    snprintf(path, sizeof path, "/proc/%ld/wchan", (long)pid);
    if (pipe_read_file(path, &text, NULL, NULL, 0) == 0) {
        if (text[0] && strcmp(text, "0") != 0)
            snprintf(wchan, sizeof wchan, " in %.100s", text);
        free(text);
    }
    switch (state) {
    case 'T': snprintf(out, size, "stopped (SIGSTOP or SIGTSTP)"); break;
    case 't': snprintf(out, size, "stopped by a debugger"); break;
    case 'S': snprintf(out, size, "sleeping%s", wchan); break;
    case 'D': snprintf(out, size, "in uninterruptible sleep%s (I/O or a device)", wchan); break;
    case 'R': snprintf(out, size, "running, outside the collective"); break;
    case 'Z': snprintf(out, size, "exited (not yet reaped)"); break;
    default: snprintf(out, size, "state %c%s", state, wchan); break;
    }
}

static void rank_state(const pipe_child *c, char *out, size_t size)
{
    if (c->exited) {
        if (WIFEXITED(c->status)) {
            snprintf(out, size, "exited with status %d", WEXITSTATUS(c->status));
        } else {
            char sig[32];
            pipe_signal_text(WIFSIGNALED(c->status) ? WTERMSIG(c->status) : 0, sig, sizeof sig);
            snprintf(out, size, "killed by %s", sig);
        }
        return;
    }
    process_state(c->pid, out, size);
}

char *pipe_supervisor_check_collectives(const pipe_launch *l, const pipe_child_group *g, int *first_missing)
{
    if (!l->watch || (int)g->n != l->nlocal)
        return NULL;
    const pipe_coll_slot *slots = pipe_coll_watch_slots(l->watch);
    uint64_t now = pipe_coll_watch_now_ms(), timeout = l->collective_timeout_ms;
    /* The collective the longest waiter has waited in past the limit. */
    int waiter = -1;
    uint64_t k = 0, since = 0;
    for (int i = 0; i < l->nlocal; i++) {
        uint64_t t = atomic_load(&slots[i].since_ms);
        /* t after now: the rank entered since the clock was read (unsigned
           now - t would wrap to "waited forever" and kill a healthy step). */
        if (t == 0 || t >= now || now - t < timeout)
            continue;
        if (waiter < 0 || t < since) {
            waiter = i;
            since = t;
            k = atomic_load(&slots[i].entered);
        }
    }
    if (waiter < 0)
        return NULL;
    int first = l->machine_rank * l->nlocal;
    char missing[2048] = "", waiting[512] = "";
    size_t ml = 0, wl = 0;
    int nmissing = 0, nwaiting = 0;
    for (int i = 0; i < l->nlocal; i++) {
        uint64_t entered = atomic_load(&slots[i].entered);
        if (entered >= k) {
            if (atomic_load(&slots[i].since_ms) != 0 && wl < sizeof waiting - 16)
                wl += (size_t)snprintf(waiting + wl, sizeof waiting - wl, "%s%d", nwaiting++ ? ", " : "", first + i);
            continue;
        }
        char state[192];
        rank_state(&g->children[i], state, sizeof state);
        if (nmissing == 0)
            *first_missing = first + i;
        if (ml < sizeof missing - 256)
            ml += (size_t)snprintf(missing + ml, sizeof missing - ml, "%srank %d (pid %ld, %s)",
                                   nmissing ? ", " : "", first + i, (long)g->children[i].pid, state);
        nmissing++;
    }
    if (nmissing == 0)
        return NULL; /* every local rank is in: the missing ones are on other machines, whose own watch names them */
    char limit[64];
    pipe_format_duration(timeout, limit, sizeof limit);
    return pipe_asprintf("collective_timeout: %s never entered %s (collective #%llu of the step) that rank%s %s "
                         "waited in for %s; killing the ranks",
                         missing, pipe_coll_kind_name(atomic_load(&slots[waiter].kind)), (unsigned long long)k,
                         nwaiting == 1 ? "" : "s", waiting, limit);
}
