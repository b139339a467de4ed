#define _GNU_SOURCE /* waitid's WNOWAIT */
#include "procs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipe/error.h"
#include "util/util.h"

/* Between two passes of a kill: long enough for SIGKILL to land. */
#define KILL_PAUSE_MS 5

void pipe_pid_list_free(pipe_pid_list *l)
{
    free(l->pids);
    memset(l, 0, sizeof *l);
}

static int add_pid(pipe_pid_list *l, pid_t pid)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        pid_t *more = realloc(l->pids, cap * sizeof *more);
        if (!more)
            return PIPE_ENOMEM;
        l->pids = more;
        l->cap = cap;
    }
    l->pids[l->n++] = pid;
    return 0;
}

static bool has_pid(const pid_t *pids, size_t n, pid_t pid)
{
    for (size_t i = 0; i < n; i++)
        if (pids[i] == pid)
            return true;
    return false;
}

/* A pid from a /proc entry's name, or 0 when it is not a process. */
static pid_t pid_of(const char *name)
{
    char *end;
    long v = strtol(name, &end, 10);
    return *name && !*end && v > 0 ? (pid_t)v : 0;
}

/* ---- the process table ---- */

typedef struct proc_entry {
    pid_t pid, ppid;
    char state; /* 'Z' for a zombie */
} proc_entry;

typedef struct proc_table {
    proc_entry *e;
    size_t n, cap;
} proc_table;

/* pid's parent and state from /proc/PID/stat: "PID (COMM) S PPID ...",
   read after the last ')' (a COMM may hold spaces and parentheses). */
static bool read_stat(pid_t pid, proc_entry *out)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false; /* gone meanwhile */
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')');
    char state;
    long ppid;
    if (!rp || sscanf(rp + 1, " %c %ld", &state, &ppid) != 2)
        return false;
    *out = (proc_entry){.pid = pid, .ppid = (pid_t)ppid, .state = state};
    return true;
}

/* Every process of the machine, in one pass over /proc. */
static int read_table(proc_table *t)
{
    t->n = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return 0; /* no /proc: nothing is found */
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d)) != NULL && rc == 0) {
        proc_entry e;
        pid_t pid = pid_of(de->d_name);
        if (!pid || !read_stat(pid, &e))
            continue;
        if (t->n == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 512;
            proc_entry *more = realloc(t->e, cap * sizeof *more);
            if (!more) {
                rc = PIPE_ENOMEM;
                break;
            }
            t->e = more;
            t->cap = cap;
        }
        t->e[t->n++] = e;
    }
    closedir(d);
    return rc;
}

/* The descendants of root in t except spare's subtrees, breadth first;
   zombies only when with_zombies. */
static int descendants_in(const proc_table *t, pid_t root, const pid_t *spare, size_t nspare, bool with_zombies,
                          pipe_pid_list *out)
{
    pipe_pid_list todo = {0};
    int rc = add_pid(&todo, root);
    out->n = 0;
    for (size_t k = 0; rc == 0 && k < todo.n; k++) {
        pid_t parent = todo.pids[k];
        for (size_t i = 0; rc == 0 && i < t->n; i++) {
            const proc_entry *e = &t->e[i];
            if (e->ppid != parent || e->pid == root || has_pid(spare, nspare, e->pid))
                continue;
            rc = add_pid(&todo, e->pid);
            if (rc == 0 && (with_zombies || e->state != 'Z'))
                rc = add_pid(out, e->pid);
        }
    }
    pipe_pid_list_free(&todo);
    return rc;
}

/* Whether this process has any child (a live one or a zombie): when it has
   none, it has no descendant either, and /proc need not be read. */
static bool has_children(void)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return !(waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 && errno == ECHILD);
}

int pipe_procs_descendants(const pid_t *spare, size_t nspare, pipe_pid_list *out)
{
    out->n = 0;
    if (!has_children())
        return 0;
    proc_table t = {0};
    int rc = read_table(&t);
    if (rc == 0)
        rc = descendants_in(&t, getpid(), spare, nspare, false, out);
    free(t.e);
    return rc;
}

/* This process's children in t that are zombies and not spared: reaped. */
static void reap_zombies(const proc_table *t, const pid_t *spare, size_t nspare)
{
    pid_t self = getpid();
    for (size_t i = 0; i < t->n; i++)
        if (t->e[i].ppid == self && t->e[i].state == 'Z' && !has_pid(spare, nspare, t->e[i].pid))
            waitpid(t->e[i].pid, NULL, WNOHANG);
}

size_t pipe_procs_kill_descendants(const pid_t *spare, size_t nspare, unsigned limit_ms)
{
    if (!has_children())
        return 0;
    double until = pipe_now() + limit_ms / 1000.0;
    pipe_pid_list found = {0}, killed = {0};
    proc_table t = {0};
    for (;;) {
        if (read_table(&t) != 0 || descendants_in(&t, getpid(), spare, nspare, true, &found) != 0)
            break;
        reap_zombies(&t, spare, nspare);
        size_t live = 0;
        for (size_t i = 0; i < found.n; i++) {
            proc_entry e;
            if (!read_stat(found.pids[i], &e) || e.state == 'Z')
                continue;
            live++;
            kill(found.pids[i], SIGKILL);
            if (!has_pid(killed.pids, killed.n, found.pids[i]))
                add_pid(&killed, found.pids[i]); /* out of memory: the count is short */
        }
        if (live == 0 || pipe_now() >= until)
            break;
        pipe_sleep_ms(KILL_PAUSE_MS);
    }
    /* What died last: reaped too. */
    if (read_table(&t) == 0)
        reap_zombies(&t, spare, nspare);
    size_t n = killed.n;
    free(t.e);
    pipe_pid_list_free(&found);
    pipe_pid_list_free(&killed);
    return n;
}

/* ---- holders of a file ---- */

/* Whether process pid has a descriptor on the file (dev, ino). */
static bool holds(pid_t pid, dev_t dev, ino_t ino)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
    DIR *d = opendir(path);
    if (!d)
        return false; /* gone, or not ours to read */
    bool found = false;
    struct dirent *de;
    while (!found && (de = readdir(d)) != NULL) {
        struct stat st;
        if (de->d_name[0] != '.' && fstatat(dirfd(d), de->d_name, &st, 0) == 0)
            found = st.st_dev == dev && st.st_ino == ino;
    }
    closedir(d);
    return found;
}

int pipe_procs_holding(const char *path, pipe_pid_list *out)
{
    out->n = 0;
    struct stat target;
    if (stat(path, &target) != 0)
        return 0; /* no file: nobody holds it */
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    pid_t self = getpid();
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        pid_t pid = pid_of(de->d_name);
        if (pid && pid != self && holds(pid, target.st_dev, target.st_ino))
            rc = add_pid(out, pid);
    }
    closedir(d);
    return rc;
}

size_t pipe_procs_kill_holders(const char *path, unsigned limit_ms)
{
    double until = pipe_now() + limit_ms / 1000.0;
    pipe_pid_list found = {0}, killed = {0};
    while (pipe_procs_holding(path, &found) == 0 && found.n > 0) {
        for (size_t i = 0; i < found.n; i++) {
            kill(found.pids[i], SIGKILL);
            if (!has_pid(killed.pids, killed.n, found.pids[i]))
                add_pid(&killed, found.pids[i]);
        }
        if (pipe_now() >= until)
            break;
        pipe_sleep_ms(KILL_PAUSE_MS);
    }
    size_t n = killed.n;
    pipe_pid_list_free(&found);
    pipe_pid_list_free(&killed);
    return n;
}
