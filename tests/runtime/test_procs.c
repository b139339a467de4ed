/* Processes through /proc (proc/procs.c) and orphans adopted by a child
   subreaper (child.c): a double-forked and a setsid'ed descendant are found
   and killed, a spared subtree is left alone, the holders of a lock file
   (inherited descriptors) are found and killed, and no zombie is left. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "proc/child.h"
#include "proc/procs.h"
#include "pipe/error.h"
#include "util/util.h"

/* pid's state letter from /proc (0 when it is gone). */
static char state_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')');
    return rp && rp[1] == ' ' ? rp[2] : 0;
}

static bool in_list(const pipe_pid_list *l, pid_t pid)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->pids[i] == pid)
            return true;
    return false;
}

/* A grandchild whose parent exits at once (a double fork), or that calls
   setsid first: its pid comes back through a pipe. */
static pid_t orphan(bool new_session)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    pid_t mid = fork();
    if (mid == 0) {
        pid_t g = fork();
        if (g == 0) {
            if (new_session)
                setsid();
            for (;;)
                pause();
        }
        ssize_t w = write(p[1], &g, sizeof g);
        _exit(w == (ssize_t)sizeof g ? 0 : 1);
    }
    pid_t g = -1;
    ssize_t r = read(p[0], &g, sizeof g);
    close(p[0]);
    close(p[1]);
    waitpid(mid, NULL, 0);
    return r == (ssize_t)sizeof g ? g : -1;
}

static void test_descendants(void)
{
    char err[256];
    CHECK_EQ_INT(pipe_child_adopt_orphans(err, sizeof err), 0);
    pid_t a = orphan(false), b = orphan(true);
    CHECK(a > 0 && b > 0);
    /* Adopted: their parent is this process now, not init. */
    pipe_pid_list l = {0};
    CHECK_EQ_INT(pipe_procs_descendants(NULL, 0, &l), 0);
    CHECK(in_list(&l, a) && in_list(&l, b));
    /* A spared child and what is below it are left out. */
    pid_t spared = fork();
    if (spared == 0) {
        for (;;)
            pause();
    }
    CHECK_EQ_INT(pipe_procs_descendants(&spared, 1, &l), 0);
    CHECK(!in_list(&l, spared) && in_list(&l, a));
    size_t killed = pipe_procs_kill_descendants(&spared, 1, 2000);
    CHECK_EQ_INT((int)killed, 2);
    CHECK_EQ_INT(state_of(a), 0); /* gone and reaped, not a zombie */
    CHECK_EQ_INT(state_of(b), 0);
    CHECK(state_of(spared) != 0 && state_of(spared) != 'Z');
    /* Without a spare, the last one goes too. */
    CHECK_EQ_INT((int)pipe_procs_kill_descendants(NULL, 0, 2000), 1);
    CHECK_EQ_INT(state_of(spared), 0);
    CHECK_EQ_INT(pipe_procs_descendants(NULL, 0, &l), 0);
    CHECK_EQ_INT((int)l.n, 0);
    /* Nothing left: nothing to do. */
    CHECK_EQ_INT((int)pipe_procs_kill_descendants(NULL, 0, 2000), 0);
    pipe_pid_list_free(&l);
}

/* An exited orphan is reaped by pipe_child_wait: no zombie accumulates. */
static void test_reaped_by_wait(void)
{
    char err[256];
    CHECK_EQ_INT(pipe_child_signals_install(err, sizeof err), 0);
    pid_t a = orphan(false);
    kill(a, SIGKILL);
    for (int i = 0; i < 100 && state_of(a) != 'Z'; i++)
        pipe_sleep_ms(10);
    CHECK_EQ_INT(state_of(a), 'Z');
    pipe_child_group g;
    pipe_child_group_init(&g, 0, NULL, NULL);
    pipe_child_group *groups[1] = {&g};
    CHECK_EQ_INT(pipe_child_wait(groups, 1, 10, err, sizeof err), 0);
    CHECK_EQ_INT(state_of(a), 0);
    pipe_child_group_free(&g);
    pipe_child_signals_restore();
}

static void test_holders(void)
{
    char path[] = "/tmp/pipe-test-procs-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_EQ_INT(flock(fd, LOCK_EX), 0);
    pid_t child = fork();
    if (child == 0) { /* inherits the descriptor, and with it the lock */
        for (;;)
            pause();
    }
    close(fd); /* this process lets go: the child alone holds it now */
    pipe_pid_list l = {0};
    CHECK_EQ_INT(pipe_procs_holding(path, &l), 0);
    CHECK_EQ_INT((int)l.n, 1);
    CHECK(l.n == 1 && l.pids[0] == child);
    int probe = open(path, O_RDONLY | O_CLOEXEC);
    CHECK(flock(probe, LOCK_EX | LOCK_NB) != 0);
    CHECK_EQ_INT((int)pipe_procs_kill_holders(path, 2000), 1);
    waitpid(child, NULL, 0);
    CHECK_EQ_INT(flock(probe, LOCK_EX | LOCK_NB), 0); /* free once its holder is gone */
    CHECK_EQ_INT(pipe_procs_holding(path, &l), 0);
    CHECK_EQ_INT((int)l.n, 0);
    close(probe);
    unlink(path);
    /* No file: nobody holds it. */
    CHECK_EQ_INT(pipe_procs_holding(path, &l), 0);
    CHECK_EQ_INT((int)l.n, 0);
    pipe_pid_list_free(&l);
}

int main(void)
{
    test_descendants();
    test_reaped_by_wait();
    test_holders();
    return check_summary();
}
