/* The timer of bench/launch.sh: a command against the bare process
   creations of a launch, interleaved run by run so that both see the same
   load, best of RUNS each.

     spawn_timer RUNS FANOUT -- CMD ARGS...

   prints two lines, in seconds:
     cmd BEST        CMD spawned and waited for (its output to /dev/null;
                     any exit but 0 fails the bench)
     baseline BEST   one spawn of /bin/true waited for, then FANOUT spawns of
                     /bin/true at once, all waited for: a launcher, then its
                     ranks.
   Every process is made the same way (posix_spawn, as a shell or Python's
   subprocess does), so the ratio is the cost of what the command does
   beyond creating those processes. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* argv started with its output to /dev/null; exits the bench when it
   cannot be. */
static pid_t start(char *const argv[])
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fprintf(stderr, "spawn_timer: cannot start %s: %s\n", argv[0], strerror(rc));
        exit(2);
    }
    return pid;
}

static void reap(pid_t pid, char *const argv[])
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            perror("spawn_timer: waitpid");
            exit(2);
        }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "spawn_timer: %s failed (wait status %d)\n", argv[0], st);
        exit(1);
    }
}

static double time_cmd(char *const argv[])
{
    double t0 = now();
    reap(start(argv), argv);
    return now() - t0;
}

static double time_baseline(int fanout)
{
    static char *const bin_true[] = {"/bin/true", NULL};
    pid_t pids[256];
    double t0 = now();
    reap(start(bin_true), bin_true);
    for (int i = 0; i < fanout; i++)
        pids[i] = start(bin_true);
    for (int i = 0; i < fanout; i++)
        reap(pids[i], bin_true);
    return now() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 5 || strcmp(argv[3], "--") != 0) {
        fprintf(stderr, "usage: spawn_timer RUNS FANOUT -- CMD ARGS...\n");
        return 2;
    }
    int runs = atoi(argv[1]), fanout = atoi(argv[2]);
    if (runs < 1 || fanout < 1 || fanout > 256) {
        fprintf(stderr, "spawn_timer: RUNS must be at least 1 and FANOUT from 1 to 256\n");
        return 2;
    }
    char **cmd = argv + 4;
    double best_cmd = 1e30, best_base = 1e30;
    for (int r = 0; r < runs; r++) {
        double t = time_cmd(cmd);
        if (t < best_cmd)
            best_cmd = t;
        t = time_baseline(fanout);
        if (t < best_base)
            best_base = t;
    }
    printf("cmd %.6f\nbaseline %.6f\n", best_cmd, best_base);
    return 0;
}
