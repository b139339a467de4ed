/* The child-process module (child.c) on its own: output as lines (long
   lines cut, lines split across reads, a last line without a newline),
   exit statuses and signals, exec, the grace between SIGTERM and SIGKILL,
   and SIGINT to this process woken on and passed on to the groups. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "proc/child.h"
#include "pipe/error.h"
#include "util/util.h"

/* ---- what the children wrote ---- */

enum { MAX_LINES = 64 };

typedef struct lines {
    char *text[MAX_LINES];
    int child[MAX_LINES];
    size_t n;
} lines;

static void collect(void *arg, int child, const char *line, size_t len)
{
    lines *l = arg;
    CHECK(len > 0 && line[len - 1] == '\n' && line[len] == '\0');
    if (l->n < MAX_LINES) {
        l->child[l->n] = child;
        l->text[l->n++] = pipe_strndup(line, len);
    }
}

static void lines_free(lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->text[i]);
    l->n = 0;
}

static size_t count_line(const lines *l, const char *text)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        n += strcmp(l->text[i], text) == 0;
    return n;
}

/* Waits (up to 10 s) until the group's children have all exited and their
   output is read, enforcing the kill deadline; the number of times
   pipe_child_group_enforce said it killed. */
static int run_out(pipe_child_group *g)
{
    char err[256];
    int kills = 0;
    double until = pipe_now() + 10;
    while ((pipe_child_group_running(g) > 0 || pipe_child_group_reading(g)) && pipe_now() < until) {
        CHECK_EQ_INT(pipe_child_wait(&g, 1, 100, err, sizeof err), 0);
        kills += pipe_child_group_enforce(g, pipe_now());
    }
    CHECK_EQ_INT(pipe_child_group_running(g), 0);
    return kills;
}

/* Waits (up to 10 s) until l holds want lines. */
static void wait_lines(pipe_child_group *const *groups, size_t n, const lines *l, size_t want)
{
    char err[256];
    double until = pipe_now() + 10;
    while (l->n < want && pipe_now() < until)
        pipe_child_wait(groups, n, 100, err, sizeof err);
    CHECK(l->n >= want);
}

/* A group with one child running fn, once it said it is ready. */
static void start_ready(pipe_child_group *g, lines *l, int (*fn)(void *))
{
    pipe_child_group *groups[] = {g};
    char err[256];
    pipe_child_group_init(g, 0, collect, l);
    pipe_child_spec spec = {.fn = fn};
    CHECK_EQ_INT(pipe_child_spawn(g, &spec, err, sizeof err), 0);
    wait_lines(groups, 1, l, l->n + 1);
}

static void say(const char *text)
{
    ssize_t ignored = write(STDOUT_FILENO, text, strlen(text));
    (void)ignored;
}

/* ---- children ---- */

static int child_exit_3(void *arg)
{
    (void)arg;
    say("bye\n");
    return 3;
}

static int child_signal(void *arg)
{
    (void)arg;
    kill(getpid(), SIGUSR1);
    return 0;
}

/* A line split across reads, a long line, a last line without newline. */
static int child_lines(void *arg)
{
    (void)arg;
    say("first\nsec");
    pipe_sleep_ms(100);
    say("ond\n");
    char long_line[20001];
    for (size_t i = 0; i < sizeof long_line - 1; i++)
        long_line[i] = (char)('a' + i % 26);
    long_line[sizeof long_line - 1] = '\0';
    say(long_line);
    say("\nno newline");
    return 0;
}

static int child_short_lines(void *arg)
{
    (void)arg;
    say("1234567\nabcdefghij\n");
    return 0;
}

static int child_stubborn(void *arg)
{
    (void)arg;
    signal(SIGTERM, SIG_IGN);
    say("ready\n");
    for (;;)
        pause();
    return 0;
}

static int child_waits(void *arg)
{
    (void)arg;
    say("ready\n");
    for (;;)
        pause(); /* the default SIGINT: this child's handlers are not the parent's */
    return 0;
}

/* ---- tests ---- */

static void test_exit_status(void)
{
    lines l = {0};
    pipe_child_group g;
    char err[256];
    pipe_child_group_init(&g, 0, collect, &l);
    pipe_child_spec exit3 = {.fn = child_exit_3}, sig = {.fn = child_signal};
    CHECK_EQ_INT(pipe_child_spawn(&g, &exit3, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_child_spawn(&g, &sig, err, sizeof err), 0);
    CHECK_EQ_INT(g.n, 2);
    CHECK(g.pgid == g.children[0].pid && g.pgid != getpgrp());
    run_out(&g);
    int first = pipe_child_group_take_exit(&g), second = pipe_child_group_take_exit(&g);
    CHECK_EQ_INT(first, 0);
    CHECK_EQ_INT(second, 1);
    CHECK_EQ_INT(pipe_child_group_take_exit(&g), -1);
    int st = g.children[0].status;
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    st = g.children[1].status;
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR1);
    CHECK(l.n == 1 && l.child[0] == 0);
    CHECK_STREQ(l.n ? l.text[0] : NULL, "bye\n");

    char name[32];
    pipe_signal_text(SIGUSR1, name, sizeof name);
    CHECK_STREQ(name, "SIGUSR1");
    pipe_signal_text(SIGKILL, name, sizeof name);
    CHECK_STREQ(name, "SIGKILL");
    pipe_signal_text(99, name, sizeof name);
    CHECK_STREQ(name, "signal 99");
    pipe_child_group_free(&g);
    lines_free(&l);
}

/* Out of descriptors, a spawn says so with PIPE_ERESOURCE (the runner then
   waits and tries again) and leaves no descriptor behind; once some are
   free it works. In a child, where the limit can be lowered. */
static int out_of_descriptors(void)
{
    struct rlimit rl = {32, 32};
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1;
    int held[40], n = 0, failures = 0;
    while (n < 40 && (held[n] = dup(0)) >= 0)
        n++;
    pipe_child_group g;
    char err[256];
    pipe_child_group_init(&g, 0, NULL, NULL);
    pipe_child_spec exit3 = {.fn = child_exit_3};
    failures += pipe_child_spawn(&g, &exit3, err, sizeof err) != PIPE_ERESOURCE;
    failures += strstr(err, "Too many open files") == NULL;
    failures += g.n != 0;
    while (n > 0)
        close(held[--n]);
    failures += pipe_child_spawn(&g, &exit3, err, sizeof err) != 0;
    pipe_child_group_free(&g);
    return failures;
}

static void test_out_of_descriptors(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(out_of_descriptors());
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st));
    CHECK_EQ_INT(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 0);
}

static void test_exec(void)
{
    lines l = {0};
    pipe_child_group g;
    char err[256];
    pipe_child_group_init(&g, 0, collect, &l);
    char *sh_argv[] = {"sh", "-c", "echo \"$PIPE_CHILD_TEST\"; read x || echo no input; exit 4", NULL};
    char *envp[] = {"PIPE_CHILD_TEST=from envp", NULL};
    pipe_child_spec sh = {.path = "/bin/sh", .argv = sh_argv, .envp = envp};
    char *missing_argv[] = {"missing", NULL};
    pipe_child_spec missing = {.path = "/nonexistent/program", .argv = missing_argv, .what = "the test program"};
    CHECK_EQ_INT(pipe_child_spawn(&g, &sh, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_child_spawn(&g, &missing, err, sizeof err), 0);
    run_out(&g);
    int st = g.children[0].status;
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 4);
    st = g.children[1].status;
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 127);
    CHECK_EQ_INT(count_line(&l, "from envp\n"), 1);
    CHECK_EQ_INT(count_line(&l, "no input\n"), 1); /* stdin is /dev/null */
    CHECK_EQ_INT(count_line(&l, "error: cannot execute the test program: No such file or directory\n"), 1);
    pipe_child_group_free(&g);
    lines_free(&l);
}

/* In the child: what a command step's rank does before exec. */
static int set_variable(void *arg)
{
    setenv("PIPE_CHILD_SETUP", (const char *)arg, 1);
    return 0;
}

static int refuse(void *arg)
{
    (void)arg;
    return 9;
}

/* setup runs in the child before exec, cwd is its folder, argv reaches the
   program without a shell; a failing setup or a missing folder is reported. */
static void test_exec_setup_and_folder(void)
{
    pipe_child_group g;
    lines l = {0};
    char err[256];
    char dir[] = "/tmp/pipe-child-cwd-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    pipe_child_group_init(&g, 0, collect, &l);
    char *argv[] = {"sh", "-c", "pwd; echo \"$PIPE_CHILD_SETUP\"; printf '%s\\n' \"$1\"", "sh", "$(touch x) ; *", NULL};
    pipe_child_spec run = {.path = "/bin/sh", .argv = argv, .setup = set_variable, .arg = "set up", .cwd = dir};
    pipe_child_spec refused = {.path = "/bin/sh", .argv = argv, .setup = refuse};
    pipe_child_spec lost = {.path = "/bin/sh", .argv = argv, .cwd = "/nonexistent/folder"};
    CHECK_EQ_INT(pipe_child_spawn(&g, &run, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_child_spawn(&g, &refused, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_child_spawn(&g, &lost, err, sizeof err), 0);
    run_out(&g);
    CHECK(WIFEXITED(g.children[0].status) && WEXITSTATUS(g.children[0].status) == 0);
    CHECK(WIFEXITED(g.children[1].status) && WEXITSTATUS(g.children[1].status) == 9);
    CHECK(WIFEXITED(g.children[2].status) && WEXITSTATUS(g.children[2].status) == 126);
    char *pwd = pipe_asprintf("%s\n", dir);
    CHECK_EQ_INT(count_line(&l, pwd), 1);
    CHECK_EQ_INT(count_line(&l, "set up\n"), 1);
    CHECK_EQ_INT(count_line(&l, "$(touch x) ; *\n"), 1);
    CHECK_EQ_INT(count_line(&l, "error: cannot enter the folder /nonexistent/folder: No such file or directory\n"), 1);
    char *touched = pipe_asprintf("%s/x", dir);
    CHECK(access(touched, F_OK) != 0); /* nothing in the argument ran */
    free(touched);
    free(pwd);
    rmdir(dir);
    pipe_child_group_free(&g);
    lines_free(&l);
}

static void test_lines(void)
{
    lines l = {0};
    pipe_child_group g;
    char err[256];
    pipe_child_group_init(&g, 8192, collect, &l);
    pipe_child_spec spec = {.fn = child_lines};
    CHECK_EQ_INT(pipe_child_spawn(&g, &spec, err, sizeof err), 0);
    run_out(&g);
    /* first, second, 20000 bytes in pieces of 8192, 8192 and 3616, the last line. */
    CHECK_EQ_INT(l.n, 6);
    if (l.n == 6) {
        CHECK_STREQ(l.text[0], "first\n");
        CHECK_STREQ(l.text[1], "second\n");
        CHECK_EQ_INT(strlen(l.text[2]), 8192 + 1);
        CHECK_EQ_INT(strlen(l.text[3]), 8192 + 1);
        CHECK_EQ_INT(strlen(l.text[4]), 20000 - 2 * 8192 + 1);
        bool same = true;
        for (size_t i = 0; i < 20000; i++) {
            size_t piece = 2 + i / 8192;
            same &= l.text[piece][i % 8192] == (char)('a' + i % 26);
        }
        CHECK(same);
        CHECK_STREQ(l.text[5], "no newline\n");
    }
    pipe_child_group_free(&g);
    lines_free(&l);

    /* A line as long as the limit, its newline included, is whole. */
    pipe_child_group_init(&g, 8, collect, &l);
    spec.fn = child_short_lines;
    CHECK_EQ_INT(pipe_child_spawn(&g, &spec, err, sizeof err), 0);
    run_out(&g);
    CHECK_EQ_INT(l.n, 3);
    if (l.n == 3) {
        CHECK_STREQ(l.text[0], "1234567\n");
        CHECK_STREQ(l.text[1], "abcdefgh\n");
        CHECK_STREQ(l.text[2], "ij\n");
    }
    pipe_child_group_free(&g);
    lines_free(&l);
}

static void test_grace(void)
{
    lines l = {0};
    pipe_child_group g;
    start_ready(&g, &l, child_stubborn);
    double t0 = pipe_now();
    pipe_child_group_stop(&g, SIGTERM, 300);
    CHECK_EQ_INT(run_out(&g), 1);
    double took = pipe_now() - t0;
    CHECK(took >= 0.3 && took < 5);
    int st = g.children[0].status;
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    pipe_child_group_free(&g);
    lines_free(&l);

    /* One that honours SIGTERM is not killed. */
    start_ready(&g, &l, child_waits);
    pipe_child_group_stop(&g, SIGTERM, 300);
    CHECK_EQ_INT(run_out(&g), 0);
    st = g.children[0].status;
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
    pipe_child_group_free(&g);
    lines_free(&l);
}

static void test_forwarding(void)
{
    lines l = {0};
    pipe_child_group a, b;
    pipe_child_group *groups[] = {&a, &b};
    char err[256];
    CHECK_EQ_INT(pipe_child_signals_install(err, sizeof err), 0);
    pipe_child_group_init(&a, 0, collect, &l);
    pipe_child_group_init(&b, 0, collect, &l);
    pipe_child_spec spec = {.fn = child_waits};
    CHECK_EQ_INT(pipe_child_spawn(&a, &spec, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_child_spawn(&a, &spec, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_child_spawn(&b, &spec, err, sizeof err), 0);
    wait_lines(groups, 2, &l, 3);
    CHECK(getpgid(a.children[1].pid) == a.pgid && getpgid(b.children[0].pid) == b.pgid && a.pgid != b.pgid);

    /* The signal wakes the wait at once and is held for the caller. */
    CHECK_EQ_INT(pipe_child_signal_pending(), 0);
    double t0 = pipe_now();
    kill(getpid(), SIGINT);
    CHECK_EQ_INT(pipe_child_wait(groups, 2, 5000, err, sizeof err), 0);
    CHECK(pipe_now() - t0 < 2.5);
    CHECK_EQ_INT(pipe_child_signal_pending(), SIGINT);
    int sig = pipe_child_signal_take();
    CHECK_EQ_INT(sig, SIGINT);
    CHECK_EQ_INT(pipe_child_signal_pending(), 0);

    /* Passed on to every group. */
    pipe_child_forward(groups, 2, sig, 5000);
    run_out(&a);
    run_out(&b);
    for (size_t i = 0; i < a.n; i++)
        CHECK(WIFSIGNALED(a.children[i].status) && WTERMSIG(a.children[i].status) == SIGINT);
    CHECK(WIFSIGNALED(b.children[0].status) && WTERMSIG(b.children[0].status) == SIGINT);
    pipe_child_group_free(&a);
    pipe_child_group_free(&b);
    pipe_child_signals_restore();
    lines_free(&l);
}

/* A group freed while its children run kills and reaps them. */
static void test_free_kills(void)
{
    lines l = {0};
    pipe_child_group g;
    start_ready(&g, &l, child_stubborn);
    pid_t pid = g.children[0].pid;
    pipe_child_group_free(&g);
    CHECK(kill(pid, 0) != 0);
    lines_free(&l);
}

int main(void)
{
    test_exec_setup_and_folder();
    test_exit_status();
    test_out_of_descriptors();
    test_exec();
    test_lines();
    test_grace();
    test_forwarding();
    test_free_kills();
    return check_summary();
}
