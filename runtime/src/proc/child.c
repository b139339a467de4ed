#define _GNU_SOURCE /* pipe2 */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "pipe/error.h"
#include "util/util.h"

extern char **environ;

/* Bytes read from one child per pipe_child_wait, so that a child that
   writes without pause cannot starve the others or the parent's timers;
   and the most read at the end, when a descendant may still hold the pipe. */
#define READ_BUDGET (256 * 1024)
#define FINAL_READ_BUDGET (64 * 1024 * 1024)
/* SIGKILL again this often while a killed group's children are not reaped. */
#define KILL_REPEAT_S 1.0

/* ---- stop signals and the wake-up ---- */

static volatile sig_atomic_t stop_signal;
static bool adopting; /* a subreaper: children of no group are orphans it adopted */
static volatile sig_atomic_t wake_fd = -1;
static int wake_pipe[2] = {-1, -1};
static bool installed;
static struct sigaction old_int, old_term, old_chld, old_pipe;

static void on_signal(int sig)
{
    int saved = errno;
    if (sig == SIGINT || sig == SIGTERM)
        stop_signal = sig;
    if (wake_fd >= 0) {
        char c = (char)sig;
        ssize_t r = write(wake_fd, &c, 1);
        (void)r;
    }
    errno = saved;
}

int pipe_child_signals_install(char *err, size_t errsize)
{
    if (installed)
        return 0;
    if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        pipe_errf(err, errsize, "cannot create a pipe: %s", strerror(errno));
        return PIPE_EIO;
    }
    stop_signal = 0;
    wake_fd = wake_pipe[1];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: a blocking call returns at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, &old_chld);
    sa.sa_handler = SIG_IGN;
    sa.sa_flags = 0;
    sigaction(SIGPIPE, &sa, &old_pipe);
    installed = true;
    return 0;
}

void pipe_child_signals_restore(void)
{
    if (!installed)
        return;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    wake_fd = -1;
    close(wake_pipe[0]);
    close(wake_pipe[1]);
    wake_pipe[0] = wake_pipe[1] = -1;
    installed = false;
}

int pipe_child_signal_pending(void) { return stop_signal; }

int pipe_child_signal_take(void)
{
    int sig = stop_signal;
    stop_signal = 0;
    return sig;
}

/* In a forked child: SIGINT, SIGTERM, SIGCHLD and SIGPIPE back to their
   defaults and nothing blocked, whatever the parent had installed. */
static void default_signals(void)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGINT, &dfl, NULL);
    sigaction(SIGTERM, &dfl, NULL);
    sigaction(SIGCHLD, &dfl, NULL);
    sigaction(SIGPIPE, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* ---- starting a child ---- */

void pipe_child_group_init(pipe_child_group *g, size_t line_max, pipe_child_line_fn *on_line, void *arg)
{
    memset(g, 0, sizeof *g);
    g->line_max = line_max ? line_max : PIPE_CHILD_LINE_MAX;
    g->on_line = on_line;
    g->arg = arg;
}

static void write_str(int fd, const char *s)
{
    ssize_t ignored = write(fd, s, strlen(s));
    (void)ignored;
}

/* fd itself, or a copy above stderr when it is one of stdin, stdout and
   stderr (the parent may have run with them closed). */
static int above_stdio(int fd)
{
    if (fd > STDERR_FILENO)
        return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    return moved >= 0 ? moved : fd;
}

/* The forked child: only async-signal-safe calls until it runs spec. */
static _Noreturn void child_main(const pipe_child_group *g, const pipe_child_spec *spec, int out_read, int out_write,
                                 int devnull, pid_t parent)
{
    setpgid(0, g->pgid);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* no orphans if the parent dies */
    if (getppid() != parent)
        _exit(127);
#endif
    (void)parent;
    default_signals();
    adopting = false; /* not inherited: the child is no subreaper */
    wake_fd = -1;
    if (installed) { /* the parent's: a step that installs its own starts afresh */
        close(wake_pipe[0]);
        close(wake_pipe[1]);
        wake_pipe[0] = wake_pipe[1] = -1;
        installed = false;
    }
    close(out_read);
    for (size_t i = 0; i < g->n; i++) /* its siblings' output is not its business */
        if (g->children[i].fd >= 0)
            close(g->children[i].fd);
    devnull = above_stdio(devnull);
    out_write = above_stdio(out_write);
    dup2(devnull, STDIN_FILENO);
    dup2(out_write, STDOUT_FILENO);
    dup2(out_write, STDERR_FILENO);
    close(devnull);
    close(out_write);
    if (spec->fn) {
        int status = spec->fn(spec->arg);
        fflush(NULL);
        _exit(status);
    }
    if (spec->setup) {
        int status = spec->setup(spec->arg);
        if (status != 0) {
            fflush(NULL);
            _exit(status);
        }
    }
    if (spec->cwd && chdir(spec->cwd) != 0) {
        write_str(STDERR_FILENO, "error: cannot enter the folder ");
        write_str(STDERR_FILENO, spec->cwd);
        write_str(STDERR_FILENO, ": ");
        write_str(STDERR_FILENO, strerror(errno));
        write_str(STDERR_FILENO, "\n");
        _exit(126);
    }
    execve(spec->path, spec->argv, spec->envp ? spec->envp : environ);
    int saved = errno;
    write_str(STDERR_FILENO, "error: cannot execute ");
    write_str(STDERR_FILENO, spec->what ? spec->what : spec->path);
    write_str(STDERR_FILENO, ": ");
    write_str(STDERR_FILENO, strerror(saved));
    write_str(STDERR_FILENO, "\n");
    _exit(saved == ENOENT ? 127 : 126);
}

/* Out of descriptors or processes: worth trying again once others end. */
static int out_of(int e)
{
    return e == EMFILE || e == ENFILE || e == EAGAIN || e == ENOMEM ? PIPE_ERESOURCE : PIPE_EIO;
}

int pipe_child_spawn(pipe_child_group *g, const pipe_child_spec *spec, char *err, size_t errsize)
{
    int out[2] = {-1, -1}, devnull = -1, rc = PIPE_EIO;
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 4;
        pipe_child *more = realloc(g->children, cap * sizeof *more);
        if (!more) {
            pipe_errf(err, errsize, "out of memory");
            return PIPE_ENOMEM;
        }
        g->children = more;
        g->cap = cap;
    }
    if (pipe2(out, O_CLOEXEC) != 0) {
        rc = out_of(errno);
        pipe_errf(err, errsize, "pipe: %s", strerror(errno));
        goto fail;
    }
    if ((devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
        rc = out_of(errno);
        pipe_errf(err, errsize, "/dev/null: %s", strerror(errno));
        goto fail;
    }
    pid_t parent = getpid();
    fflush(stdout); /* or the child would write what is buffered again */
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        rc = out_of(errno);
        pipe_errf(err, errsize, "fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0)
        child_main(g, spec, out[0], out[1], devnull, parent);
    if (g->pgid == 0)
        g->pgid = pid;
    setpgid(pid, g->pgid); /* also here: the child may not have run yet */
    close(out[1]);
    out[1] = -1;
    fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
    g->children[g->n++] = (pipe_child){.pid = pid, .fd = out[0]};
    out[0] = -1;
    rc = 0;
fail:
    if (out[0] >= 0)
        close(out[0]);
    if (out[1] >= 0)
        close(out[1]);
    if (devnull >= 0)
        close(devnull);
    return rc;
}

/* ---- output as lines ---- */

/* Hands the buffered line (or piece) to on_line, ended with a newline. The
   buffer always has room for it and the NUL (see reserve). */
static void deliver(pipe_child_group *g, size_t i)
{
    pipe_child *c = &g->children[i];
    if (c->len == 0)
        return;
    if (c->line[c->len - 1] != '\n')
        c->line[c->len++] = '\n';
    c->line[c->len] = '\0';
    if (g->on_line)
        g->on_line(g->arg, (int)i, c->line, c->len);
    c->len = 0;
}

/* Room for need bytes of line plus a newline and a NUL; the buffer grows by
   doubling up to line_max. */
static bool reserve(const pipe_child_group *g, pipe_child *c, size_t need)
{
    if (need + 2 <= c->cap)
        return true;
    size_t cap = c->cap ? c->cap : 1024;
    while (cap < need + 2)
        cap *= 2;
    if (cap > g->line_max + 2)
        cap = g->line_max + 2;
    char *p = realloc(c->line, cap);
    if (!p)
        return false;
    c->line = p;
    c->cap = cap;
    return true;
}

static void feed(pipe_child_group *g, size_t i, const char *p, size_t n)
{
    pipe_child *c = &g->children[i];
    while (n > 0) {
        const char *nl = memchr(p, '\n', n);
        size_t take = nl ? (size_t)(nl - p) + 1 : n;
        if (take > g->line_max - c->len)
            take = g->line_max - c->len;
        if (!reserve(g, c, c->len + take)) {
            if (c->len > 0) { /* out of memory: what is there, as a piece */
                deliver(g, i);
                continue;
            }
            take = n; /* not even that: drop the text rather than the run */
        } else {
            memcpy(c->line + c->len, p, take);
            c->len += take;
            if (c->line[c->len - 1] == '\n' || c->len == g->line_max)
                deliver(g, i);
        }
        p += take;
        n -= take;
    }
}

static void close_output(pipe_child_group *g, size_t i)
{
    pipe_child *c = &g->children[i];
    deliver(g, i);
    close(c->fd);
    c->fd = -1;
}

/* Reads up to budget bytes of child i's output. At EOF or an error, and at
   the end (final) once nothing more is there or the budget is spent, the
   unfinished line is delivered and the pipe closed. */
static void read_output(pipe_child_group *g, size_t i, size_t budget, bool final)
{
    pipe_child *c = &g->children[i];
    char buf[8192];
    while (c->fd >= 0) {
        if (budget < sizeof buf) {
            if (final)
                close_output(g, i);
            return;
        }
        ssize_t n = read(c->fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !final)
            return;
        if (n <= 0) {
            close_output(g, i);
            return;
        }
        budget -= (size_t)n;
        feed(g, i, buf, (size_t)n);
    }
}

void pipe_child_group_drain(pipe_child_group *g)
{
    for (size_t i = 0; i < g->n; i++)
        read_output(g, i, FINAL_READ_BUDGET, true);
}

/* ---- exits and signals ---- */

static void reap(pipe_child_group *g, bool block)
{
    for (size_t i = 0; i < g->n; i++) {
        pipe_child *c = &g->children[i];
        if (c->exited)
            continue;
        int st = 0;
        pid_t w;
        while ((w = waitpid(c->pid, &st, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
        }
        if (w == c->pid) {
            c->exited = true;
            c->status = st;
        } else if (w < 0 && errno == ECHILD) { /* reaped elsewhere: cannot happen; never wait forever */
            c->exited = true;
            c->status = 1 << 8;
        }
    }
}

size_t pipe_child_group_running(const pipe_child_group *g)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++)
        n += !g->children[i].exited;
    return n;
}

bool pipe_child_group_reading(const pipe_child_group *g)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->children[i].fd >= 0)
            return true;
    return false;
}

int pipe_child_group_take_exit(pipe_child_group *g)
{
    for (size_t i = 0; i < g->n; i++) {
        pipe_child *c = &g->children[i];
        if (c->exited && !c->exit_taken) {
            c->exit_taken = true;
            return (int)i;
        }
    }
    return -1;
}

void pipe_child_group_signal(pipe_child_group *g, int sig)
{
    if (g->pgid <= 0)
        return;
    /* The leader alone if the group is not there (yet). */
    if (kill(-g->pgid, sig) != 0 && g->n > 0 && !g->children[0].exited)
        kill(g->children[0].pid, sig);
}

void pipe_child_group_stop(pipe_child_group *g, int sig, uint64_t grace_ms)
{
    if (pipe_child_group_running(g) == 0)
        return;
    pipe_child_group_signal(g, sig);
    g->kill_at = pipe_now() + (double)grace_ms / 1000.0;
}

void pipe_child_forward(pipe_child_group *const *groups, size_t n, int sig, uint64_t grace_ms)
{
    for (size_t i = 0; i < n; i++)
        pipe_child_group_stop(groups[i], sig, grace_ms);
}

bool pipe_child_group_enforce(pipe_child_group *g, double now)
{
    if (g->kill_at <= 0 || now < g->kill_at || pipe_child_group_running(g) == 0)
        return false;
    pipe_child_group_signal(g, SIGKILL);
    g->kill_at = now + KILL_REPEAT_S;
    bool first = !g->killed;
    g->killed = true;
    return first;
}

void pipe_child_group_kill(pipe_child_group *g)
{
    pipe_child_group_signal(g, SIGKILL);
    reap(g, true);
}

void pipe_child_group_free(pipe_child_group *g)
{
    if (pipe_child_group_running(g) > 0)
        pipe_child_group_kill(g);
    for (size_t i = 0; i < g->n; i++) {
        if (g->children[i].fd >= 0)
            close(g->children[i].fd);
        free(g->children[i].line);
    }
    free(g->children);
    memset(g, 0, sizeof *g);
}

/* ---- orphans ---- */

int pipe_child_adopt_orphans(char *err, size_t errsize)
{
#if defined(__linux__) && defined(PR_SET_CHILD_SUBREAPER)
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        pipe_errf(err, errsize, "cannot become a child subreaper: %s", strerror(errno));
        return PIPE_EIO;
    }
    adopting = true;
    return 0;
#else
    pipe_errf(err, errsize, "this system has no child subreapers");
    return PIPE_ENOTSUP;
#endif
}

static bool in_groups(pipe_child_group *const *groups, size_t n, pid_t pid)
{
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < groups[k]->n; i++)
            if (groups[k]->children[i].pid == pid)
                return true;
    return false;
}

/* Adopted orphans that exited, reaped: a look at the first exited child
   (WNOWAIT leaves it), reaped when it is no group's, until a group's
   child is first (its group reaps it) or none is left. */
static void reap_adopted(pipe_child_group *const *groups, size_t n)
{
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0 ||
            in_groups(groups, n, si.si_pid))
            return;
        waitpid(si.si_pid, NULL, WNOHANG);
    }
}

/* ---- waiting ---- */

int pipe_child_wait(pipe_child_group *const *groups, size_t n, int timeout_ms, char *err, size_t errsize)
{
    size_t nfds = 1;
    for (size_t k = 0; k < n; k++)
        nfds += groups[k]->n;
    struct pollfd *fds = calloc(nfds, sizeof *fds);
    if (!fds) {
        pipe_errf(err, errsize, "out of memory");
        return PIPE_ENOMEM;
    }
    nfds = 0;
    if (wake_pipe[0] >= 0) {
        fds[nfds].fd = wake_pipe[0];
        fds[nfds++].events = POLLIN;
    }
    double now = pipe_now();
    for (size_t k = 0; k < n; k++) {
        const pipe_child_group *g = groups[k];
        if (g->kill_at > 0 && pipe_child_group_running(g) > 0) {
            double due_ms = (g->kill_at - now) * 1000.0;
            if (timeout_ms < 0 || due_ms < timeout_ms)
                timeout_ms = due_ms <= 0 ? 0 : (int)due_ms + 1;
        }
        for (size_t i = 0; i < g->n; i++)
            if (g->children[i].fd >= 0) {
                fds[nfds].fd = g->children[i].fd;
                fds[nfds++].events = POLLIN;
            }
    }
    int ready = poll(fds, (nfds_t)nfds, timeout_ms);
    int saved = errno;
    free(fds);
    if (wake_pipe[0] >= 0) {
        char buf[64];
        while (read(wake_pipe[0], buf, sizeof buf) > 0) {
        }
    }
    /* Reaped first: what a child wrote before it exited is read below,
       before its parent hears of the exit. */
    for (size_t k = 0; k < n; k++) {
        reap(groups[k], false);
        for (size_t i = 0; i < groups[k]->n; i++)
            read_output(groups[k], i, READ_BUDGET, false);
    }
    if (adopting)
        reap_adopted(groups, n);
    if (ready < 0 && saved != EINTR) {
        pipe_errf(err, errsize, "poll: %s", strerror(saved));
        return PIPE_EIO;
    }
    return 0;
}

/* Each signal's name and what it means, as a failure's cause names it. */
static const struct {
    int sig;
    const char *name, *meaning;
} signals[] = {
    {SIGHUP, "SIGHUP", "hangup"},
    {SIGINT, "SIGINT", "interrupt"},
    {SIGQUIT, "SIGQUIT", "quit"},
    {SIGILL, "SIGILL", "illegal instruction"},
    {SIGTRAP, "SIGTRAP", "trace or breakpoint trap"},
    {SIGABRT, "SIGABRT", "aborted"},
    {SIGBUS, "SIGBUS", "bus error"},
    {SIGFPE, "SIGFPE", "arithmetic error"},
    {SIGKILL, "SIGKILL", "killed"},
    {SIGUSR1, "SIGUSR1", "user signal 1"},
    {SIGSEGV, "SIGSEGV", "segmentation fault"},
    {SIGUSR2, "SIGUSR2", "user signal 2"},
    {SIGPIPE, "SIGPIPE", "broken pipe"},
    {SIGALRM, "SIGALRM", "alarm clock"},
    {SIGTERM, "SIGTERM", "terminated"},
    {SIGXCPU, "SIGXCPU", "CPU time limit exceeded"},
    {SIGXFSZ, "SIGXFSZ", "file size limit exceeded"},
    {SIGSYS, "SIGSYS", "bad system call"},
};

void pipe_signal_text(int sig, char *buf, size_t size)
{
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        if (signals[i].sig == sig) {
            snprintf(buf, size, "%s", signals[i].name);
            return;
        }
    snprintf(buf, size, "signal %d", sig);
}

void pipe_signal_describe(int sig, char *buf, size_t size)
{
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        if (signals[i].sig == sig) {
            snprintf(buf, size, "%s (%s)", signals[i].name, signals[i].meaning);
            return;
        }
    snprintf(buf, size, "signal %d", sig);
}
