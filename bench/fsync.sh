#!/usr/bin/env bash
# What crash safety costs a step on this disk, against the spawn that
# bench/overhead.sh compares a step with, in one run: N rounds of exactly
# the durable writes a step with one output makes under `step` (the
# output's bytes fsynced, renamed into outputs/, outputs/ fsynced; the
# record written, fsynced, renamed); N rounds of the same writes under
# `run`'s group commit (no fsync, one syncfs whenever 50 ms have passed,
# and one at the end: docs/reliability.md); and N spawns of /bin/true.
#   bash bench/fsync.sh [N]      (default 200; the files go under $TMPDIR)
set -euo pipefail
n=${1:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/commit.c" <<'C'
#define _GNU_SOURCE /* syncfs */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void must(int ok, const char *what)
{
    if (!ok) {
        perror(what);
        exit(1);
    }
}

/* The writes of one step: output durable, its name durable, then the
   record; without the fsyncs when grouped. */
static double commit_step(int i, double *in_fsync, int grouped)
{
    char tmp[64], final[64];
    snprintf(tmp, sizeof tmp, "outputs/.out.tmp.%d", i);
    snprintf(final, sizeof final, "outputs/out%d%s", i, grouped ? "g" : "");
    double start = now(), f;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    must(fd >= 0 && write(fd, "x", 1) == 1, "output");
    f = now();
    must(grouped || fsync(fd) == 0, "fsync output");
    *in_fsync += now() - f;
    must(close(fd) == 0 && rename(tmp, final) == 0, "rename output");
    int dir = open("outputs", O_RDONLY | O_DIRECTORY);
    f = now();
    must(dir >= 0 && (grouped || fsync(dir) == 0), "fsync outputs/");
    *in_fsync += now() - f;
    close(dir);
    int rec = open("step.yaml.tmp", O_WRONLY | O_CREAT | O_TRUNC, 0666);
    must(rec >= 0 && write(rec, "status: done\n", 13) == 13, "record");
    f = now();
    must(grouped || fsync(rec) == 0, "fsync record");
    *in_fsync += now() - f;
    must(close(rec) == 0 && rename("step.yaml.tmp", "step.yaml") == 0, "rename record");
    return now() - start;
}

/* The group commit's syncfs, when 50 ms have passed since the last (or always). */
static double group_commit(double *last, int always)
{
    double start = now();
    if (!always && start - *last < 0.050)
        return 0;
    int dot = open(".", O_RDONLY | O_DIRECTORY);
    must(dot >= 0 && syncfs(dot) == 0, "syncfs");
    close(dot);
    *last = now();
    return *last - start;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    must(mkdir("outputs", 0777) == 0, "mkdir outputs");
    double total = 0, in_fsync = 0;
    for (int i = 0; i < n; i++)
        total += commit_step(i, &in_fsync, 0);
    double grouped = 0, in_sync = 0, unused = 0, last = now();
    for (int i = 0; i < n; i++) {
        grouped += commit_step(i, &unused, 1);
        double s = group_commit(&last, i == n - 1);
        grouped += s;
        in_sync += s;
    }
    double spawn_start = now();
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            execl("/bin/true", "true", (char *)NULL);
            _exit(127);
        }
        int st;
        must(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "spawn /bin/true");
    }
    double spawn = (now() - spawn_start) / n;
    printf("a step's durable writes (3 fsyncs): %.2f ms, of which in fsync %.2f ms (%.2f ms each)\n",
           total / n * 1e3, in_fsync / n * 1e3, in_fsync / n / 3 * 1e3);
    printf("the same writes, group commit:      %.2f ms, of which in syncfs %.2f ms\n", grouped / n * 1e3,
           in_sync / n * 1e3);
    printf("a spawn of /bin/true:               %.2f ms\n", spawn * 1e3);
    printf("ratio: the durable writes alone are %.1fx a spawn, grouped %.2fx (bench/overhead.sh's goal for a whole "
           "step: 3x)\n",
           total / n / spawn, grouped / n / spawn);
    return 0;
}
C
cc -O2 -o "$work/commit" "$work/commit.c"
echo "$n rounds in $work ($(df -T "$work" | awk 'NR == 2 { print $2 }'))"
(cd "$work" && ./commit "$n")
