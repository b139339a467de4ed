/* The step's processes from /proc (proc_sample.h). Per sample: for each
   process, one read of /proc/PID/stat (CPU time, start time, resident
   pages) and one of /proc/PID/task/PID/children (the children its main
   thread started): a few system calls per process, so that sampling every
   100 ms costs far less than 1% of a core. */
#include "proc_sample.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Upper bound on the processes one step may be followed into. */
#define TREE_MAX 4096

void pipe_proc_sampler_init(pipe_proc_sampler *s, double started)
{
    memset(s, 0, sizeof *s);
    s->last = started;
    s->clock_ticks = sysconf(_SC_CLK_TCK);
    if (s->clock_ticks <= 0)
        s->clock_ticks = 100;
    s->page_size = sysconf(_SC_PAGESIZE);
    if (s->page_size <= 0)
        s->page_size = 4096;
}

void pipe_proc_sampler_free(pipe_proc_sampler *s)
{
    free(s->seen);
    free(s->tree);
    memset(s, 0, sizeof *s);
}

/* A small file into buf (NUL-terminated); its length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got + 1 < size) {
        ssize_t r = read(fd, buf + got, size - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    return (ssize_t)got;
}

static bool tree_has(const pipe_proc_sampler *s, pid_t pid)
{
    for (size_t i = 0; i < s->ntree; i++)
        if (s->tree[i] == pid)
            return true;
    return false;
}

static void tree_add(pipe_proc_sampler *s, pid_t pid)
{
    if (pid <= 0 || s->ntree >= TREE_MAX || tree_has(s, pid))
        return;
    if (s->ntree == s->tree_cap) {
        size_t cap = s->tree_cap ? 2 * s->tree_cap : 16;
        pid_t *p = realloc(s->tree, cap * sizeof *p);
        if (!p)
            return;
        s->tree = p;
        s->tree_cap = cap;
    }
    s->tree[s->ntree++] = pid;
}

/* The roots and their descendants, breadth first, into s->tree. */
static void collect_tree(pipe_proc_sampler *s, const pid_t *roots, size_t nroots)
{
    char path[64], buf[4096];
    s->ntree = 0;
    for (size_t i = 0; i < nroots; i++)
        tree_add(s, roots[i]);
    for (size_t i = 0; i < s->ntree; i++) {
        snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)s->tree[i], (long)s->tree[i]);
        if (read_small(path, buf, sizeof buf) <= 0)
            continue;
        for (char *p = buf, *end; *p;) {
            long child = strtol(p, &end, 10);
            if (end == p)
                break;
            tree_add(s, (pid_t)child);
            p = end;
        }
    }
}

/* utime + stime, start time and resident pages of one process. */
static bool read_stat(pid_t pid, unsigned long long *ticks, unsigned long long *start, long long *rss_pages)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    if (read_small(path, buf, sizeof buf) <= 0)
        return false;
    /* The command name may hold spaces and parentheses: fields start after the last ')'. */
    char *p = strrchr(buf, ')');
    if (!p)
        return false;
    p++;
    unsigned long long utime = 0, stime = 0, st = 0;
    long long rss = 0;
    /* Field 3 (state) is the first after ')': utime is 14, stime 15, starttime 22, rss 24. */
    for (int field = 3; field <= 24 && *p; field++) {
        while (*p == ' ')
            p++;
        char *end = p;
        if (field == 14)
            utime = strtoull(p, &end, 10);
        else if (field == 15)
            stime = strtoull(p, &end, 10);
        else if (field == 22)
            st = strtoull(p, &end, 10);
        else if (field == 24)
            rss = strtoll(p, &end, 10);
        else
            end = strchr(p, ' ');
        if (!end || end == p)
            return false;
        p = end;
    }
    *ticks = utime + stime;
    *start = st;
    *rss_pages = rss;
    return true;
}

static pipe_proc_seen *seen_find(pipe_proc_sampler *s, pid_t pid, unsigned long long start)
{
    for (size_t i = 0; i < s->nseen; i++)
        if (s->seen[i].pid == pid && s->seen[i].start == start)
            return &s->seen[i];
    return NULL;
}

bool pipe_proc_sample(pipe_proc_sampler *s, const pid_t *roots, size_t nroots, double now, double *cpu_pct,
                      double *rss_mib)
{
    collect_tree(s, roots, nroots);
    pipe_proc_seen *next = s->ntree ? calloc(s->ntree, sizeof *next) : NULL;
    size_t nnext = 0;
    unsigned long long delta = 0;
    long long pages = 0;
    for (size_t i = 0; i < s->ntree; i++) {
        unsigned long long ticks, start;
        long long rss;
        if (!read_stat(s->tree[i], &ticks, &start, &rss))
            continue; /* gone meanwhile */
        const pipe_proc_seen *before = seen_find(s, s->tree[i], start);
        unsigned long long prev = before ? before->ticks : 0;
        delta += ticks > prev ? ticks - prev : 0;
        pages += rss > 0 ? rss : 0;
        if (next)
            next[nnext++] = (pipe_proc_seen){s->tree[i], start, ticks};
    }
    double dt = now - s->last;
    *cpu_pct = dt > 0 ? (double)delta / (double)s->clock_ticks / dt * 100.0 : 0;
    *rss_mib = (double)pages * (double)s->page_size / (1024.0 * 1024.0);
    if (next || s->ntree == 0) {
        free(s->seen);
        s->seen = next;
        s->nseen = nnext;
        s->cap = nnext;
    }
    s->last = now;
    return nnext > 0;
}
