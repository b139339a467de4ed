/* Child processes (private): what the runner (one child per invocation,
   `EXE step ...`) and the supervisor (one forked worker per local rank)
   both need. A child runs in a process group with stdin from /dev/null and
   stdout and stderr into one pipe; the parent reads that pipe as lines,
   learns of exits and of SIGINT/SIGTERM through one wake-up, passes those
   signals on to the groups, and stops a group with SIGTERM and, after a
   grace period, SIGKILL (docs/runtime.md, "Process model").

   The signal handlers are process-wide, so this file holds the one piece of
   process-wide state: the pending stop signal and the self-pipe. */
#ifndef PIPE_CHILD_H
#define PIPE_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Line lengths, the newline included. A longer line arrives in pieces of
   this many bytes, each ended with a newline, so that no child can make its
   parent buffer without bound. The supervisor's log keeps lines of 8 KiB;
   the runner, which prints its children's log lines with a prefix, allows
   more. */
#define PIPE_LOG_LINE_MAX 8192u
#define PIPE_CHILD_LINE_MAX 65536u

/* Called for each line a child of the group wrote: child is its index in
   the group (the order of pipe_child_spawn); line ends with '\n' (added to a
   piece of a long line and to a last line without one) and is NUL-terminated;
   len counts the newline. */
typedef void pipe_child_line_fn(void *arg, int child, const char *line, size_t len);

/* What a child runs: fn(arg) in the forked process (its return value is the
   exit status), or, when fn is NULL, execve(path, argv, envp) after
   setup(arg) (which may set the child's environment; a non-zero return is
   its exit status) in the folder cwd. No shell is involved: argv reaches
   the program as it is. */
typedef struct pipe_child_spec {
    int (*fn)(void *arg);
    void *arg;
    int (*setup)(void *arg); /* with path: runs in the child before it executes path; NULL: none */
    const char *path;
    char *const *argv;
    char *const *envp; /* NULL: this process's environment (after setup) */
    const char *cwd;   /* with path: the folder it runs in; NULL: the parent's */
    const char *what;  /* names path when it cannot be executed: "error: cannot execute WHAT" */
} pipe_child_spec;

typedef struct pipe_child {
    pid_t pid;
    int fd;          /* read end of its stdout+stderr; -1 after EOF */
    bool exited;     /* reaped: status is its wait status */
    bool exit_taken; /* handed out by pipe_child_group_take_exit */
    int status;
    char *line; /* the unfinished line: len bytes of cap */
    size_t len, cap;
} pipe_child;

/* Children in one process group: the first child's pid is the group's id. */
typedef struct pipe_child_group {
    pid_t pgid; /* 0 until the first child starts */
    pipe_child *children;
    size_t n, cap;
    size_t line_max;
    pipe_child_line_fn *on_line;
    void *arg;
    double kill_at; /* pipe_now() when SIGKILL is due; 0: not armed */
    bool killed;
} pipe_child_group;

/* ---- stop signals and the wake-up ----

   One wake-up for both users: a self-pipe that the SIGINT, SIGTERM and
   SIGCHLD handlers write to and pipe_child_wait polls next to the children's
   output. Not signalfd: that needs the signals blocked in every thread, and
   a blocked mask is inherited through fork and exec, so every child (and
   whatever a step runs) would start with them blocked; a self-pipe also
   works where there is no signalfd. SIGPIPE is ignored meanwhile: a closed
   console must not kill a parent that copies output. One install at a
   time: the handlers are the process's. */
int pipe_child_signals_install(char *err, size_t errsize);
void pipe_child_signals_restore(void);
/* The last SIGINT or SIGTERM received since install (or the last take), 0
   when none; take also clears it. */
int pipe_child_signal_pending(void);
int pipe_child_signal_take(void);

/* ---- a group ---- */

/* An empty group whose children's lines go to on_line (NULL: dropped), cut
   at line_max bytes (0: PIPE_CHILD_LINE_MAX). */
void pipe_child_group_init(pipe_child_group *g, size_t line_max, pipe_child_line_fn *on_line, void *arg);
/* Starts a child in g's process group (the first one founds it). On Linux
   the child gets SIGTERM when its parent dies (PR_SET_PDEATHSIG); its
   signal dispositions and mask are reset to the defaults. PIPE_ERESOURCE
   when this process is out of descriptors or processes (EMFILE, ENFILE,
   EAGAIN: worth trying again once other children end), PIPE_EIO for other
   failures, with "pipe: ...", "fork: ..." in err; PIPE_ENOMEM. */
int pipe_child_spawn(pipe_child_group *g, const pipe_child_spec *spec, char *err, size_t errsize);
/* How many children have not been reaped; whether any output is still open. */
size_t pipe_child_group_running(const pipe_child_group *g);
bool pipe_child_group_reading(const pipe_child_group *g);
/* The index of a reaped child not handed out before (lowest first), or -1. */
int pipe_child_group_take_exit(pipe_child_group *g);
/* sig to the whole group (nothing before the first child starts). */
void pipe_child_group_signal(pipe_child_group *g, int sig);
/* When a child runs: sig to the group, and SIGKILL due after grace_ms (a
   later stop re-arms it). */
void pipe_child_group_stop(pipe_child_group *g, int sig, uint64_t grace_ms);
/* pipe_child_group_stop on every group of groups: how a SIGINT or SIGTERM
   the parent received reaches its children. */
void pipe_child_forward(pipe_child_group *const *groups, size_t n, int sig, uint64_t grace_ms);
/* Sends the SIGKILL that is due while a child runs, and again every second
   after. True the first time, for the caller to say so. */
bool pipe_child_group_enforce(pipe_child_group *g, double now);
/* Reads what is left of the children's output (bounded: a descendant may
   keep the pipe open), delivers the unfinished lines and closes the pipes. */
void pipe_child_group_drain(pipe_child_group *g);
/* SIGKILL to the group, then reaps every child still running: nothing a
   group started outlives it. */
void pipe_child_group_kill(pipe_child_group *g);
/* Kills what still runs (pipe_child_group_kill), closes, frees. */
void pipe_child_group_free(pipe_child_group *g);

/* ---- waiting ---- */

/* Waits up to timeout_ms (less when a group's SIGKILL falls due earlier)
   for output, an exit or a signal; then reaps the children that exited and
   reads what they all wrote, delivering whole lines. groups may hold idle
   groups. PIPE_EIO ("poll: ...") or PIPE_ENOMEM with the message in err. */
int pipe_child_wait(pipe_child_group *const *groups, size_t n, int timeout_ms, char *err, size_t errsize);

/* ---- orphans ----

   Makes this process a child subreaper (Linux: PR_SET_CHILD_SUBREAPER): an
   orphan below it (a daemon started by a rank, after setsid or a double
   fork) becomes its child instead of init's, so that it stays a descendant
   that procs.h can find and kill. From then on pipe_child_wait also reaps
   those adopted children when they exit (children of no group; with it,
   this process must start every child it waits for through a group).
   PIPE_ENOTSUP where the system has no subreapers. */
int pipe_child_adopt_orphans(char *err, size_t errsize);

/* "SIGKILL", "SIGTERM", ... or "signal N": how a child's end is reported. */
void pipe_signal_text(int sig, char *buf, size_t size);
/* "SIGSEGV (segmentation fault)": the name and what it means, for a step
   that a signal killed. */
void pipe_signal_describe(int sig, char *buf, size_t size);

#endif
