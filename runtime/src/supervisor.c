/* `EXE step INVOCATION --run-id ID`: the supervisor of one invocation
   (docs/runtime.md, "Process model"). It reads or creates run.yaml, resolves
   the inputs from the producers' step.yaml, checks the cache, forks the
   worker (one per local rank), copies their output into `log`, enforces
   @timeout and @retry, verifies the outputs and writes step.yaml. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "cache.h"
#include "commands.h"
#include "launcher.h"
#include "params.h"
#include "rank_env.h"
#include "pipe/error.h"
#include "sha256.h"
#include "stepfile.h"
#include "store.h"
#include "util.h"
#include "worker.h"

#define DEFAULT_KILL_GRACE_MS 5000
#define LINE_MAX_BYTES 8192

/* Signal handling is the one place with process-wide state: the handler
   writes the signal's number to a pipe that the supervisor polls. */
static volatile sig_atomic_t pending_stop; /* SIGINT or SIGTERM received, else 0 */
static volatile sig_atomic_t wake_fd = -1;

static void on_signal(int sig)
{
    int saved = errno;
    if (sig == SIGINT || sig == SIGTERM)
        pending_stop = sig;
    if (wake_fd >= 0) {
        char c = (char)sig;
        ssize_t r = write(wake_fd, &c, 1);
        (void)r;
    }
    errno = saved;
}

typedef struct signals {
    bool installed;
    int pipe[2];
    struct sigaction old_int, old_term, old_chld, old_pipe;
} signals;

typedef struct step_options {
    const char *invocation;
    const char *run_id;
    const char *store;
    const char **params; /* "NAME=VALUE" from --param */
    size_t nparams;
    bool no_cache, echo;
    pipe_launch_options launch; /* --machine-rank, --main-process-ip */
} step_options;

typedef struct line_buffer {
    char data[LINE_MAX_BYTES];
    size_t len;
} line_buffer;

typedef struct rank_proc {
    int rank; /* global rank */
    pid_t pid;
    int fd; /* read end of its stdout/stderr pipe; -1 at EOF */
    bool exited;
    int status; /* wait status */
    line_buffer line;
} rank_proc;

typedef struct attempt_result {
    bool ok;
    bool timed_out;
    int interrupted; /* the signal that stopped the supervisor, or 0 */
    int rank;        /* the rank whose status decides the attempt */
    int status;      /* its wait status */
    char *rendezvous; /* why the ranks never met (malloc'ed), or NULL */
} attempt_result;

typedef struct supervisor {
    const pipe_program *prog;
    const pipe_manifest *m;
    step_options o;
    const pipe_minvocation *inv;
    const pipe_mstep *ms;
    const pipe_step_impl *impl;
    char *store; /* absolute */
    char *dir;   /* STORE/RUN/INV */
    char *outdir;
    char *log_path, *error_path, *metrics_path, *step_path;
    pipe_run_info *run;
    char **values; /* per step parameter: canonical text or input path */
    const char **output_names;
    pipe_step_record *rec;
    int log_fd;
    double t0;
    uint64_t grace_ms;
    int nlocal, world, machine_rank;
    pipe_launch launch;
    char *omp_threads; /* OMP_NUM_THREADS for the worker, NULL: leave alone */
    char *scratch_root;
    signals sig;
} supervisor;

/* ---- small helpers ---- */

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

/* One line of worker output: into the log and, with --echo, to stderr as
   "[ID] line". The line ends with '\n'. */
static void emit_line(supervisor *s, const char *line, size_t n)
{
    if (s->log_fd >= 0)
        write_all(s->log_fd, line, n);
    if (s->o.echo) {
        char *p = pipe_asprintf("[%s] %.*s", s->inv->id, (int)n, line);
        if (p) {
            write_all(STDERR_FILENO, p, strlen(p));
            free(p);
        }
    }
}

/* A line of the supervisor's own into the log (and the console with --echo). */
static void note(supervisor *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(supervisor *s, const char *fmt, ...)
{
    char msg[2048], stamp[40];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pipe_iso8601(stamp, sizeof stamp);
    char *line = pipe_asprintf("%s [pipe] %s\n", stamp, msg);
    if (line) {
        emit_line(s, line, strlen(line));
        free(line);
    }
}

static void report(const supervisor *s, const char *msg)
{
    if (s->o.echo && s->inv)
        fprintf(stderr, "[%s] error: %s\n", s->inv->id, msg);
    else
        fprintf(stderr, "error: %s\n", msg);
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGSYS: return "SIGSYS";
    }
    return NULL;
}

static void signal_text(int sig, char *buf, size_t size)
{
    const char *name = signal_name(sig);
    if (name)
        snprintf(buf, size, "%s", name);
    else
        snprintf(buf, size, "signal %d", sig);
}

/* "2h", "1h30m", "45s", "300ms", "1m0s500ms" style: the non-zero units. */
static void duration_text(uint64_t ms, char *buf, size_t size)
{
    static const struct {
        uint64_t ms;
        const char *unit;
    } units[] = {{3600000, "h"}, {60000, "m"}, {1000, "s"}, {1, "ms"}};
    size_t used = 0;
    buf[0] = '\0';
    if (ms == 0) {
        snprintf(buf, size, "0s");
        return;
    }
    for (size_t i = 0; i < 4 && used < size; i++) {
        uint64_t n = ms / units[i].ms;
        ms %= units[i].ms;
        if (n > 0)
            used += (size_t)snprintf(buf + used, size - used, "%llu%s", (unsigned long long)n, units[i].unit);
    }
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return SIZE_MAX;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static void unknown_invocation(const pipe_manifest *m, const char *id, char *err, size_t errsize)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX, limit = strlen(id) / 3 + 1;
    if (limit < 2)
        limit = 2;
    for (size_t i = 0; i < m->ninvocations; i++) {
        size_t d = edit_distance(id, m->invocations[i].id);
        if (d <= limit && d < best_d) {
            best = m->invocations[i].id;
            best_d = d;
        }
    }
    if (best) {
        pipe_errf(err, errsize, "pipeline `%s` has no invocation `%s`; did you mean `%s`?", m->pipeline, id, best);
        return;
    }
    char list[1024] = "";
    size_t used = 0;
    for (size_t i = 0; i < m->ninvocations && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", m->invocations[i].id);
    pipe_errf(err, errsize, "pipeline `%s` has no invocation `%s` (its invocations: %s)", m->pipeline, id, list);
}

/* ---- options ---- */

static const char usage_text[] =
    "usage: step INVOCATION --run-id ID [--store DIR] [--param NAME=VALUE ...] [--no-cache] [--echo]\n"
    "            [--machine-rank N] [--main-process-ip ADDR]";

/* 1 for --help; 0; or PIPE_EUSAGE with the message in err. */
static int parse_options(int argc, char **argv, step_options *o, char *err, size_t errsize)
{
    if (argc > 1 && !(o->params = calloc((size_t)argc, sizeof *o->params)))
        return PIPE_ENOMEM;
    o->launch.machine_rank = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return 1;
        if (strcmp(a, "--no-cache") == 0) {
            o->no_cache = true;
            continue;
        }
        if (strcmp(a, "--echo") == 0) {
            o->echo = true;
            continue;
        }
        static const char *const with_value[] = {"--run-id", "--store", "--param", "--machine-rank",
                                                 "--main-process-ip"};
        const char *value = NULL;
        size_t k = 0;
        for (; k < 5; k++) {
            size_t n = strlen(with_value[k]);
            if (strncmp(a, with_value[k], n) == 0 && (a[n] == '\0' || a[n] == '=')) {
                if (a[n] == '=')
                    value = a + n + 1;
                else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0)
                    value = argv[++i];
                else {
                    pipe_errf(err, errsize, "option %s needs a value\n%s", with_value[k], usage_text);
                    return PIPE_EUSAGE;
                }
                break;
            }
        }
        if (k == 0)
            o->run_id = value;
        else if (k == 1)
            o->store = value;
        else if (k == 2)
            o->params[o->nparams++] = value;
        else if (k == 3) {
            char *end;
            long r = strtol(value, &end, 10);
            if (*end || r < 0 || r > 65535) {
                pipe_errf(err, errsize, "--machine-rank needs a machine number, not `%s`", value);
                return PIPE_EUSAGE;
            }
            o->launch.machine_rank = (int)r;
        } else if (k == 4)
            o->launch.main_process_ip = value;
        else if (a[0] == '-' && a[1] != '\0') {
            pipe_errf(err, errsize,
                      "unknown option `%s` for step (options: --run-id, --store, --param, --no-cache, --echo, "
                      "--machine-rank, --main-process-ip)",
                      a);
            return PIPE_EUSAGE;
        } else if (!o->invocation) {
            o->invocation = a;
        } else {
            pipe_errf(err, errsize, "step runs one invocation; unexpected argument `%s`\n%s", a, usage_text);
            return PIPE_EUSAGE;
        }
    }
    if (!o->invocation) {
        pipe_errf(err, errsize, "step needs the id of the invocation to run\n%s", usage_text);
        return PIPE_EUSAGE;
    }
    if (!o->run_id) {
        pipe_errf(err, errsize, "step `%s` needs --run-id ID: the run it belongs to\n%s", o->invocation, usage_text);
        return PIPE_EUSAGE;
    }
    return 0;
}

/* ---- signals ---- */

static int signals_install(signals *sg, char *err, size_t errsize)
{
    if (pipe(sg->pipe) != 0) {
        pipe_errf(err, errsize, "cannot create a pipe: %s", strerror(errno));
        return PIPE_EIO;
    }
    for (int i = 0; i < 2; i++) {
        fcntl(sg->pipe[i], F_SETFD, FD_CLOEXEC);
        fcntl(sg->pipe[i], F_SETFL, fcntl(sg->pipe[i], F_GETFL) | O_NONBLOCK);
    }
    pending_stop = 0;
    wake_fd = sg->pipe[1];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &sg->old_int);
    sigaction(SIGTERM, &sa, &sg->old_term);
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, &sg->old_chld);
    /* A closed console must not kill the supervisor while it copies output. */
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &sg->old_pipe);
    sg->installed = true;
    return 0;
}

static void signals_restore(signals *sg)
{
    if (!sg->installed)
        return;
    sigaction(SIGINT, &sg->old_int, NULL);
    sigaction(SIGTERM, &sg->old_term, NULL);
    sigaction(SIGCHLD, &sg->old_chld, NULL);
    sigaction(SIGPIPE, &sg->old_pipe, NULL);
    wake_fd = -1;
    close(sg->pipe[0]);
    close(sg->pipe[1]);
    sg->installed = false;
}

static void signals_drain(signals *sg)
{
    char buf[64];
    while (read(sg->pipe[0], buf, sizeof buf) > 0) {
    }
}

/* ---- setup: invocation, store, run.yaml ---- */

static const pipe_step_impl *find_impl(const pipe_program *prog, const char *name)
{
    for (size_t i = 0; i < prog->nsteps; i++)
        if (strcmp(prog->steps[i].name, name) == 0)
            return &prog->steps[i];
    return NULL;
}

/* The run's parameters: run.yaml when it exists (checking that --param
   agrees), else defaults plus --param, written as run.yaml (first writer
   wins). */
static int load_run(supervisor *s, char *err, size_t errsize)
{
    pipe_param_values pv = {0};
    pipe_run_info info = {0};
    int rc = pipe_run_info_read(s->store, s->o.run_id, &s->run, err, errsize);
    if (rc != 0 && rc != PIPE_ENOENT)
        return rc == PIPE_ENOMEM ? rc : PIPE_EUSAGE;
    if ((rc = pipe_params_init(s->m, &pv)) != 0)
        goto fail;
    for (size_t i = 0; i < s->o.nparams; i++)
        if ((rc = pipe_params_assign(s->m, &pv, s->o.params[i], err, errsize)) != 0)
            goto fail;
    if (!s->run) {
        if ((rc = pipe_params_check_complete(s->m, &pv, err, errsize)) != 0)
            goto fail;
        char started[40];
        pipe_iso8601(started, sizeof started);
        if (s->m->nparams > 0 && !(info.params = calloc(s->m->nparams, sizeof *info.params))) {
            rc = PIPE_ENOMEM;
            goto fail;
        }
        for (size_t i = 0; i < s->m->nparams; i++)
            if (pv.values[i]) {
                info.params[info.nparams].key = s->m->params[i].name;
                info.params[info.nparams++].value = pv.values[i];
            }
        info.run_id = (char *)s->o.run_id;
        info.pipeline = s->m->pipeline;
        info.started = started;
        info.status = "running";
        if ((rc = pipe_run_info_write(s->store, s->o.run_id, &info, PIPE_RUN_WRITE_CREATE, NULL, err, errsize)) != 0)
            goto fail;
        /* Whoever won, run.yaml now exists: read what it says. */
        if ((rc = pipe_run_info_read(s->store, s->o.run_id, &s->run, err, errsize)) != 0) {
            rc = rc == PIPE_ENOMEM ? rc : PIPE_EUSAGE;
            goto fail;
        }
    }
    if (s->run->pipeline && strcmp(s->run->pipeline, s->m->pipeline) != 0) {
        pipe_errf(err, errsize, "run `%s` in %s belongs to pipeline `%s`, not `%s`", s->o.run_id, s->store,
                  s->run->pipeline, s->m->pipeline);
        rc = PIPE_EUSAGE;
        goto fail;
    }
    /* --param must agree with a run that already exists. */
    for (size_t i = 0; i < s->o.nparams; i++) {
        size_t n = strcspn(s->o.params[i], "=");
        for (size_t p = 0; p < s->m->nparams; p++) {
            const char *name = s->m->params[p].name;
            if (strlen(name) != n || strncmp(name, s->o.params[i], n) != 0)
                continue;
            const char *have = pipe_run_info_param(s->run, name);
            if (!have || strcmp(have, pv.values[p]) != 0) {
                pipe_errf(err, errsize,
                          "parameter `%s` is %s%s%s in run `%s`, but --param %s disagrees (a run's parameters are "
                          "fixed when it starts)",
                          name, have ? "`" : "", have ? have : "unset", have ? "`" : "", s->o.run_id, s->o.params[i]);
                rc = PIPE_EUSAGE;
                goto fail;
            }
        }
    }
    rc = 0;
fail:
    free(info.params);
    pipe_params_free(&pv);
    return rc;
}

static int setup(supervisor *s, char *err, size_t errsize)
{
    int rc;
    const pipe_manifest *m = s->m;
    int idx = pipe_manifest_find_invocation(m, s->o.invocation);
    if (idx < 0) {
        unknown_invocation(m, s->o.invocation, err, errsize);
        return PIPE_EUSAGE;
    }
    s->inv = &m->invocations[idx];
    if (s->inv->step < 0 || (size_t)s->inv->step >= m->nsteps) {
        pipe_errf(err, errsize, "invocation `%s` names no step of the manifest", s->inv->id);
        return PIPE_EUSAGE;
    }
    s->ms = &m->steps[s->inv->step];
    if (!(s->impl = find_impl(s->prog, s->ms->name)) || !s->impl->fn) {
        pipe_errf(err, errsize, "this executable has no code for step `%s`: the driver and its manifest disagree",
                  s->ms->name);
        return PIPE_EUSAGE;
    }
    if (s->inv->nargs != s->ms->nparams) {
        pipe_errf(err, errsize, "invocation `%s` has %zu arguments but step `%s` %zu parameters", s->inv->id,
                  s->inv->nargs, s->ms->name, s->ms->nparams);
        return PIPE_EUSAGE;
    }
    if ((rc = pipe_run_id_check(s->o.run_id, err, errsize)) != 0)
        return rc;
    char *store = pipe_store_resolve(s->o.store, NULL);
    if (!store)
        return PIPE_ENOMEM;
    rc = pipe_mkdirs(store, err, errsize);
    if (rc == 0) {
        s->store = realpath(store, NULL);
        if (!s->store) {
            pipe_errf(err, errsize, "cannot resolve the store %s: %s", store, strerror(errno));
            rc = PIPE_EIO;
        }
    }
    free(store);
    if (rc != 0)
        return rc;
    if ((rc = load_run(s, err, errsize)) != 0)
        return rc;

    /* Ranks on this machine, and where they meet. */
    bool gpu_step = s->ms->needs_cuda || s->inv->resources.gpu > 0;
    if ((rc = pipe_launch_setup(&s->launch, s->inv, s->o.run_id, gpu_step, &s->o.launch, err, errsize)) != 0)
        return rc;
    s->world = s->launch.world;
    s->nlocal = s->launch.nlocal;
    s->machine_rank = s->launch.machine_rank;
    if (s->inv->resources.cpu > 0 && !getenv("OMP_NUM_THREADS")) {
        double per_rank = ceil(s->inv->resources.cpu / s->nlocal);
        s->omp_threads = pipe_asprintf("%lld", (long long)(per_rank < 1 ? 1 : per_rank));
        if (!s->omp_threads)
            return PIPE_ENOMEM;
    }
    const char *grace = getenv("PIPE_KILL_GRACE_MS");
    s->grace_ms = DEFAULT_KILL_GRACE_MS;
    if (grace && *grace) {
        char *end;
        unsigned long long g = strtoull(grace, &end, 10);
        if (!*end)
            s->grace_ms = g;
    }
    return 0;
}

/* ---- the invocation directory ---- */

/* Removes what an earlier execution of this invocation left: outputs,
   temporary files, step.yaml, error, metrics.csv. */
static int clean_outputs(supervisor *s, char *err, size_t errsize)
{
    int rc = pipe_remove_tree(s->outdir, err, errsize);
    if (rc == 0)
        rc = pipe_mkdirs(s->outdir, err, errsize);
    return rc;
}

static int prepare_dir(supervisor *s, char *err, size_t errsize)
{
    int rc;
    if (!(s->dir = pipe_store_invocation_dir(s->store, s->o.run_id, s->inv->id)) ||
        !(s->outdir = pipe_asprintf("%s/outputs", s->dir)) || !(s->error_path = pipe_asprintf("%s/error", s->dir)) ||
        !(s->metrics_path = pipe_asprintf("%s/metrics.csv", s->dir)) ||
        !(s->step_path = pipe_store_step_file(s->store, s->o.run_id, s->inv->id)))
        return PIPE_ENOMEM;
    if (s->machine_rank > 0)
        s->log_path = pipe_asprintf("%s/log.machine-%d", s->dir, s->machine_rank);
    else
        s->log_path = pipe_asprintf("%s/log", s->dir);
    if (!s->log_path)
        return PIPE_ENOMEM;
    if ((rc = pipe_mkdirs(s->dir, err, errsize)) != 0)
        return rc;
    if (s->machine_rank == 0) {
        /* Not finished (again) until this execution says so. */
        if (unlink(s->step_path) != 0 && errno != ENOENT) {
            pipe_errf(err, errsize, "cannot remove %s: %s", s->step_path, strerror(errno));
            return PIPE_EIO;
        }
        unlink(s->error_path);
        unlink(s->metrics_path);
        if ((rc = clean_outputs(s, err, errsize)) != 0)
            return rc;
    } else if ((rc = pipe_mkdirs(s->outdir, err, errsize)) != 0) {
        return rc;
    }
    s->log_fd = open(s->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
    if (s->log_fd < 0) {
        pipe_errf(err, errsize, "cannot create %s: %s", s->log_path, strerror(errno));
        return PIPE_EIO;
    }
    return 0;
}

/* ---- arguments and inputs ---- */

/* 0; PIPE_EUSAGE for a parameter without a value; PIPE_ESTEP with the
   reason in err when an input is not available. */
static int resolve_args(supervisor *s, char *err, size_t errsize)
{
    const pipe_manifest *m = s->m;
    size_t n = s->ms->nparams;
    if (!(s->values = calloc(n + 1, sizeof *s->values)) ||
        !(s->output_names = calloc(s->ms->noutputs + 1, sizeof *s->output_names)))
        return PIPE_ENOMEM;
    for (size_t i = 0; i < s->ms->noutputs; i++)
        s->output_names[i] = s->ms->outputs[i].name;
    for (size_t i = 0; i < n; i++) {
        const pipe_marg *a = &s->inv->args[i];
        const char *pname = s->ms->params[i].name;
        const char *value = NULL;
        int rc;
        switch (a->kind) {
        case PIPE_ARG_DEFAULT:
        case PIPE_ARG_VALUE:
            value = a->value;
            break;
        case PIPE_ARG_PARAM:
            value = pipe_run_info_param(s->run, a->value);
            if (!value) {
                for (size_t p = 0; p < m->nparams; p++)
                    if (strcmp(m->params[p].name, a->value) == 0)
                        value = m->params[p].default_value;
            }
            if (!value) {
                pipe_errf(err, errsize,
                          "argument `%s` of `%s` is pipeline parameter `%s`, which has no value in run `%s`", pname,
                          s->inv->id, a->value ? a->value : "?", s->o.run_id);
                return PIPE_EUSAGE;
            }
            break;
        case PIPE_ARG_ARTIFACT: {
            if (a->producer < 0 || (size_t)a->producer >= m->ninvocations) {
                pipe_errf(err, errsize, "input `%s` of `%s` names no invocation", pname, s->inv->id);
                return PIPE_EUSAGE;
            }
            const pipe_minvocation *prod = &m->invocations[a->producer];
            const pipe_mstep *pstep = &m->steps[prod->step];
            if (a->output < 0 || (size_t)a->output >= pstep->noutputs) {
                pipe_errf(err, errsize, "input `%s` of `%s` names no output of `%s`", pname, s->inv->id, prod->id);
                return PIPE_EUSAGE;
            }
            const char *oname = pstep->outputs[a->output].name;
            char *pfile = pipe_store_step_file(s->store, s->o.run_id, prod->id);
            char *opath = pipe_store_output_path(s->store, s->o.run_id, prod->id, oname);
            pipe_step_record *pr = NULL;
            char rerr[1024];
            rc = pfile && opath ? pipe_step_record_read(pfile, &pr, rerr, sizeof rerr) : PIPE_ENOMEM;
            if (rc == PIPE_ENOENT || (rc == 0 && pr->status == PIPE_STEP_FAILED)) {
                pipe_errf(err, errsize, "input `%s` of `%s` comes from `%s`, which %s in run `%s`", pname, s->inv->id,
                          prod->id, rc == 0 ? "failed" : "has not finished", s->o.run_id);
                rc = PIPE_ESTEP;
            } else if (rc == PIPE_ENOMEM) {
                /* as is */
            } else if (rc != 0) {
                pipe_errf(err, errsize, "input `%s` of `%s`: cannot read the record of `%s`: %s", pname, s->inv->id,
                          prod->id, rerr);
                rc = PIPE_ESTEP;
            } else {
                const pipe_step_artifact *out = pipe_step_record_output(pr, oname);
                char hex[PIPE_SHA256_HEX_SIZE] = "";
                if (!pipe_file_exists(opath)) {
                    pipe_errf(err, errsize, "input `%s` of `%s` is output `%s` of `%s`, which is missing: %s", pname,
                              s->inv->id, oname, prod->id, opath);
                    rc = PIPE_ESTEP;
                } else if (out && out->sha256) {
                    snprintf(hex, sizeof hex, "%s", out->sha256);
                } else if (pipe_sha256_file(opath, hex, rerr, sizeof rerr) != 0) {
                    pipe_errf(err, errsize, "input `%s` of `%s`: %s", pname, s->inv->id, rerr);
                    rc = PIPE_ESTEP;
                }
                if (rc == 0)
                    rc = pipe_step_record_add_input(s->rec, pname, opath, hex);
            }
            pipe_step_record_free(pr);
            free(pfile);
            if (rc != 0) {
                free(opath);
                return rc;
            }
            s->values[i] = opath;
            continue;
        }
        }
        if (!value) {
            pipe_errf(err, errsize, "argument `%s` of `%s` has no value", pname, s->inv->id);
            return PIPE_EUSAGE;
        }
        if (!(s->values[i] = pipe_strdup(value)) || (rc = pipe_step_record_add_param(s->rec, pname, value)) != 0)
            return PIPE_ENOMEM;
    }
    return 0;
}

static void compute_cache_key(supervisor *s)
{
    char key[PIPE_SHA256_HEX_SIZE];
    pipe_cache_key_input in = {
        .code_digest = s->ms->code_digest,
        .step = s->ms->name,
        .entry = s->ms->entry,
        .params = s->rec->params,
        .nparams = s->rec->nparams,
        .inputs = s->rec->inputs,
        .ninputs = s->rec->ninputs,
    };
    pipe_cache_key(&in, key);
    s->rec->cache_key = pipe_strdup(key);
}

/* ---- step.yaml ---- */

static int finish_record(supervisor *s, pipe_step_status status, char *err, size_t errsize)
{
    char stamp[40];
    pipe_iso8601(stamp, sizeof stamp);
    s->rec->status = status;
    free(s->rec->finished);
    s->rec->finished = pipe_strdup(stamp);
    s->rec->duration_s = pipe_now() - s->t0;
    if (s->machine_rank > 0)
        return 0; /* machine 0 speaks for the invocation */
    return pipe_step_record_write(s->step_path, s->rec, err, errsize);
}

static void clear_outputs(pipe_step_record *r)
{
    for (size_t i = 0; i < r->noutputs; i++) {
        free(r->outputs[i].name);
        free(r->outputs[i].path);
        free(r->outputs[i].sha256);
    }
    r->noutputs = 0;
}

/* Records a failure, returning the exit status 1. */
static int fail_step(supervisor *s, const char *why)
{
    char err[1024];
    free(s->rec->error);
    s->rec->error = pipe_strdup(why);
    note(s, "failed: %s", why);
    /* A failed invocation has no outputs, not even temporary files of a
       worker that was killed while writing. */
    if (s->machine_rank == 0 && s->outdir && clean_outputs(s, err, sizeof err) != 0)
        note(s, "%s", err);
    clear_outputs(s->rec);
    if (finish_record(s, PIPE_STEP_FAILED, err, sizeof err) != 0)
        report(s, err);
    report(s, why);
    return PIPE_EXIT_FAILED;
}

/* ---- cache ---- */

/* 1 when the invocation was satisfied from the cache, 0 otherwise. */
static int try_cache(supervisor *s)
{
    pipe_cache_hit *hit = NULL;
    char why[1024] = "", err[1024] = "";
    int rc = pipe_cache_lookup(s->store, s->rec->cache_key, s->output_names, s->ms->noutputs, &hit, why, sizeof why,
                               err, sizeof err);
    if (rc != 0) {
        note(s, "cache look-up failed: %s", err);
        return 0;
    }
    if (!hit) {
        note(s, "cache miss: %s", why);
        return 0;
    }
    int result = 0;
    for (size_t i = 0; i < s->ms->noutputs; i++) {
        const char *name = s->output_names[i];
        const pipe_step_artifact *src = pipe_step_record_output(hit->record, name);
        char *dst = pipe_store_output_path(s->store, s->o.run_id, s->inv->id, name);
        if (!dst || pipe_link_or_copy(src->path, dst, err, sizeof err) != 0 ||
            pipe_step_record_add_output(s->rec, name, dst, src->sha256) != 0) {
            note(s, "cannot reuse %s: %s", hit->from, dst ? err : "out of memory");
            free(dst);
            goto fail;
        }
        free(dst);
    }
    for (size_t i = 0; i < hit->record->nmetrics; i++)
        pipe_step_record_set_metric(s->rec, hit->record->metrics[i].name, hit->record->metrics[i].value);
    s->rec->cached_from = pipe_strdup(hit->from);
    s->rec->attempts = 0;
    note(s, "cached: reusing the outputs of %s", hit->from);
    if (finish_record(s, PIPE_STEP_CACHED, err, sizeof err) != 0) {
        report(s, err);
        goto fail;
    }
    result = 1;
fail:
    if (!result) {
        /* Start clean: nothing half-reused stays in outputs/. */
        for (size_t i = 0; i < s->rec->noutputs; i++)
            unlink(s->rec->outputs[i].path);
        clear_outputs(s->rec);
        free(s->rec->cached_from);
        s->rec->cached_from = NULL;
    }
    pipe_cache_hit_free(hit);
    return result;
}

/* ---- running the worker ---- */

/* In the forked child: never returns. */
static _Noreturn void worker_child(supervisor *s, rank_proc *ranks, int local_rank, int out_fd, pid_t pgid, pid_t parent)
{
    setpgid(0, pgid);
#ifdef __linux__
    /* A supervisor that dies (even by SIGKILL) takes its workers along. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(1);
#else
    (void)parent;
#endif
    pipe_default_signals();
    wake_fd = -1;

    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        close(devnull);
    }
    dup2(out_fd, STDOUT_FILENO);
    dup2(out_fd, STDERR_FILENO);
    close(out_fd);
    close(s->sig.pipe[0]);
    close(s->sig.pipe[1]);
    if (s->log_fd >= 0)
        close(s->log_fd);
    for (int i = 0; i < local_rank; i++)
        if (ranks[i].fd >= 0)
            close(ranks[i].fd);
    setvbuf(stdout, NULL, _IOLBF, 0);

    for (size_t i = 0; i < s->ms->nenvironment; i++)
        setenv(s->ms->environment[i].key, s->ms->environment[i].value, 1);
    if (s->omp_threads)
        setenv("OMP_NUM_THREADS", s->omp_threads, 1);
    setenv("PIPE_STORE", s->store, 1);
    setenv("PIPE_RUN_ID", s->o.run_id, 1);
    setenv("PIPE_INVOCATION", s->inv->id, 1);
    setenv("PIPE_SCRATCH_ROOT", s->scratch_root, 1);
    const pipe_accelerate *acc = &s->inv->accelerate;
    if (acc->enabled && acc->mixed_precision)
        setenv("PIPE_MIXED_PRECISION", acc->mixed_precision, 1);
    pipe_rank_env_set(&s->launch, local_rank, acc->enabled);

    pipe_worker_spec spec = {
        .impl = s->impl,
        .mstep = s->ms,
        .cuda = s->prog->cuda,
        .use_gpu = s->ms->needs_cuda || s->inv->resources.gpu > 0,
        .cleanup_memory = s->inv->cleanup_memory,
        .invocation = s->inv->id,
        .run_id = s->o.run_id,
        .dir = s->dir,
        .values = (const char *const *)s->values,
        .output_names = s->output_names,
        .noutputs = s->ms->noutputs,
    };
    int status = pipe_worker_run(&spec);
    fflush(NULL);
    _exit(status);
}

static void kill_group(pid_t pgid, int sig)
{
    if (pgid > 0)
        kill(-pgid, sig);
}

/* Whether needle occurs in the first n bytes of p. */
static bool contains(const char *p, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(p + i, needle, k) == 0)
            return true;
    return false;
}

/* A rank's line goes to the log as it is when it already names its rank
   (pipe_log's "[rank N]"), else with "[rank N] " in front, so that the
   failure summary can find the last lines of the rank that failed. */
static void emit_rank_line(supervisor *s, const rank_proc *r, const char *line, size_t n)
{
    size_t head = n < 48 ? n : 48;
    if (s->world <= 1 || contains(line, head, "[rank ")) {
        emit_line(s, line, n);
        return;
    }
    char *p = pipe_asprintf("[rank %d] %.*s", r->rank, (int)n, line);
    if (p) {
        emit_line(s, p, strlen(p));
        free(p);
    }
}

static void copy_output(supervisor *s, rank_proc *r, bool eof)
{
    line_buffer *b = &r->line;
    for (;;) {
        char *nl = memchr(b->data, '\n', b->len);
        size_t n;
        if (nl)
            n = (size_t)(nl - b->data) + 1;
        else if (b->len == sizeof b->data || (eof && b->len > 0))
            n = b->len;
        else
            return;
        if (!nl) {
            /* A partial line: end it so that the log stays line-oriented. */
            char *line = pipe_asprintf("%.*s\n", (int)n, b->data);
            if (line) {
                emit_rank_line(s, r, line, n + 1);
                free(line);
            }
        } else {
            emit_rank_line(s, r, b->data, n);
        }
        memmove(b->data, b->data + n, b->len - n);
        b->len -= n;
    }
}

/* Reads what is available; false at EOF or error (the fd is then closed). */
static bool pump(supervisor *s, rank_proc *r)
{
    line_buffer *b = &r->line;
    for (;;) {
        ssize_t n = read(r->fd, b->data + b->len, sizeof b->data - b->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return true;
        if (n <= 0) {
            copy_output(s, r, true);
            close(r->fd);
            r->fd = -1;
            return false;
        }
        b->len += (size_t)n;
        copy_output(s, r, false);
    }
}

static bool failed_status(int status) { return !(WIFEXITED(status) && WEXITSTATUS(status) == 0); }

static int run_attempt(supervisor *s, attempt_result *res, char *err, size_t errsize)
{
    int rc = 0;
    rank_proc *ranks = calloc((size_t)s->nlocal, sizeof *ranks);
    pid_t pgid = 0;
    int started = 0;
    memset(res, 0, sizeof *res);
    if (!ranks)
        return PIPE_ENOMEM;
    for (int i = 0; i < s->nlocal; i++)
        ranks[i].fd = -1;

    if ((rc = pipe_launch_begin(&s->launch, err, errsize)) != 0) {
        free(ranks);
        return rc;
    }
    if (s->launch.distributed && s->machine_rank == 0)
        note(s, "%d ranks on %d machine%s meet at %s:%d (%s collectives)", s->world, s->launch.num_machines,
             s->launch.num_machines == 1 ? "" : "s", s->launch.master_addr, s->launch.master_port,
             s->launch.backend);
    fflush(stdout);
    fflush(stderr);
    pid_t self = getpid();
    for (; started < s->nlocal; started++) {
        int fds[2];
        if (pipe(fds) != 0) {
            pipe_errf(err, errsize, "cannot create a pipe: %s", strerror(errno));
            rc = PIPE_EIO;
            break;
        }
        fcntl(fds[0], F_SETFD, FD_CLOEXEC);
        pid_t pid = fork();
        if (pid < 0) {
            pipe_errf(err, errsize, "cannot start the worker: %s", strerror(errno));
            close(fds[0]);
            close(fds[1]);
            rc = PIPE_EIO;
            break;
        }
        if (pid == 0) {
            close(fds[0]);
            worker_child(s, ranks, started, fds[1], pgid, self);
        }
        if (pgid == 0)
            pgid = pid;
        setpgid(pid, pgid); /* also in the child: whichever runs first */
        close(fds[1]);
        fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
        ranks[started].pid = pid;
        ranks[started].rank = s->machine_rank * s->nlocal + started;
        ranks[started].fd = fds[0];
    }
    if (rc != 0) {
        kill_group(pgid, SIGKILL);
        res->status = 1 << 8;
    }

    double now = pipe_now();
    double deadline = s->inv->timeout_ms > 0 ? now + (double)s->inv->timeout_ms / 1000.0 : 0;
    double kill_at = 0, linger_until = 0;
    bool killed = false, stopping = false;
    int running = started;
    struct pollfd *pfds = calloc((size_t)s->nlocal + 1, sizeof *pfds);
    if (!pfds) {
        kill_group(pgid, SIGKILL);
        rc = PIPE_ENOMEM;
    }
    while (pfds) {
        /* Reap. */
        for (int i = 0; i < started; i++) {
            if (ranks[i].exited)
                continue;
            int st;
            pid_t w = waitpid(ranks[i].pid, &st, WNOHANG);
            if (w != ranks[i].pid)
                continue;
            ranks[i].exited = true;
            ranks[i].status = st;
            running--;
            if (failed_status(st) && !res->status) {
                res->rank = s->machine_rank * s->nlocal + i;
                res->status = st;
                if (running > 0 && !stopping) {
                    /* One rank failed: stop the others. */
                    note(s, "rank %d failed; stopping the other ranks", res->rank);
                    kill_group(pgid, SIGTERM);
                    stopping = true;
                    kill_at = pipe_now() + (double)s->grace_ms / 1000.0;
                }
            }
        }
        now = pipe_now();
        int open_fds = 0;
        for (int i = 0; i < started; i++)
            open_fds += ranks[i].fd >= 0;
        if (running == 0) {
            if (open_fds == 0)
                break;
            /* Descendants may still hold the pipe: a short grace, then drain. */
            if (linger_until == 0)
                linger_until = now + 0.2;
            else if (now >= linger_until)
                break;
        }
        if (pending_stop && !res->interrupted) {
            res->interrupted = pending_stop;
            char name[32];
            signal_text(pending_stop, name, sizeof name);
            note(s, "received %s; stopping the step", name);
            kill_group(pgid, pending_stop);
            stopping = true;
            kill_at = now + (double)s->grace_ms / 1000.0;
        }
        char *rdzv = running > 0 && !stopping ? pipe_launch_check(&s->launch, now) : NULL;
        if (rdzv) {
            note(s, "%s", rdzv);
            res->rendezvous = rdzv;
            kill_group(pgid, SIGTERM);
            stopping = true;
            kill_at = now + (double)s->grace_ms / 1000.0;
        }
        if (deadline > 0 && now >= deadline && !res->timed_out && running > 0) {
            char d[64];
            duration_text(s->inv->timeout_ms, d, sizeof d);
            res->timed_out = true;
            note(s, "timed out after %s; sending SIGTERM", d);
            kill_group(pgid, SIGTERM);
            stopping = true;
            kill_at = now + (double)s->grace_ms / 1000.0;
        }
        if (kill_at > 0 && now >= kill_at && !killed && running > 0) {
            note(s, "still running %.1f s after SIGTERM; sending SIGKILL", (double)s->grace_ms / 1000.0);
            kill_group(pgid, SIGKILL);
            killed = true;
        }
        double wait_s = 1.0;
        if (deadline > 0 && !res->timed_out && deadline - now < wait_s)
            wait_s = deadline - now;
        if (kill_at > 0 && !killed && kill_at - now < wait_s)
            wait_s = kill_at - now;
        if (linger_until > 0 && linger_until - now < wait_s)
            wait_s = linger_until - now;
        int timeout_ms = wait_s <= 0 ? 0 : (int)(wait_s * 1000.0) + 1;
        nfds_t n = 0;
        pfds[n].fd = s->sig.pipe[0];
        pfds[n++].events = POLLIN;
        for (int i = 0; i < started; i++)
            if (ranks[i].fd >= 0) {
                pfds[n].fd = ranks[i].fd;
                pfds[n++].events = POLLIN;
            }
        int pr = poll(pfds, n, timeout_ms);
        if (pr < 0 && errno != EINTR) {
            pipe_errf(err, errsize, "poll: %s", strerror(errno));
            kill_group(pgid, SIGKILL);
            rc = PIPE_EIO;
            /* keep reaping below by blocking waits */
            break;
        }
        signals_drain(&s->sig);
        for (int i = 0; i < started; i++)
            if (ranks[i].fd >= 0)
                pump(s, &ranks[i]);
    }
    for (int i = 0; i < started; i++) {
        if (ranks[i].fd >= 0) {
            pump(s, &ranks[i]);
            copy_output(s, &ranks[i], true);
            close(ranks[i].fd);
            ranks[i].fd = -1;
        }
        if (!ranks[i].exited) {
            kill_group(pgid, SIGKILL);
            int st;
            while (waitpid(ranks[i].pid, &st, 0) < 0 && errno == EINTR) {
            }
            ranks[i].exited = true;
            ranks[i].status = st;
            if (!res->status && failed_status(st)) {
                res->rank = s->machine_rank * s->nlocal + i;
                res->status = st;
            }
        }
    }
    /* Nothing the step started outlives it. */
    kill_group(pgid, SIGKILL);
    pipe_launch_end(&s->launch);
    free(pfds);
    free(ranks);
    res->ok = rc == 0 && started == s->nlocal && !res->status && !res->timed_out && !res->interrupted &&
              !res->rendezvous;
    return rc;
}

/* The last lines of one rank in the log (as torchrun's error summary shows
   them), malloc'ed, or NULL when it printed nothing. */
static char *log_tail(supervisor *s, int rank)
{
    enum { TAIL_LINES = 8 };
    char *text = NULL;
    if (pipe_read_file(s->log_path, &text, NULL, NULL, 0) != 0)
        return NULL;
    char tag[32];
    snprintf(tag, sizeof tag, "[rank %d] ", rank);
    const char *lines[TAIL_LINES];
    size_t lens[TAIL_LINES], n = 0;
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (contains(p, len, tag)) {
            lines[n % TAIL_LINES] = p;
            lens[n % TAIL_LINES] = len;
            n++;
        }
        p += len + (nl ? 1 : 0);
    }
    char *out = NULL;
    if (n > 0) {
        size_t first = n > TAIL_LINES ? n - TAIL_LINES : 0, total = 0;
        for (size_t i = first; i < n; i++)
            total += lens[i % TAIL_LINES] + 5;
        out = malloc(total + 1);
        if (out) {
            size_t o = 0;
            for (size_t i = first; i < n; i++) {
                o += (size_t)sprintf(out + o, "    %.*s\n", (int)lens[i % TAIL_LINES], lines[i % TAIL_LINES]);
            }
            while (o > 0 && out[o - 1] == '\n')
                out[--o] = '\0';
        }
    }
    free(text);
    return out;
}

/* Why an attempt failed, malloc'ed. */
static char *describe_failure(supervisor *s, const attempt_result *r)
{
    char *text = NULL, *result = NULL;
    size_t len = 0;
    char d[64], sig[32];
    if (pipe_read_file(s->error_path, &text, &len, NULL, 0) == 0) {
        while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
            text[--len] = '\0';
        if (len == 0) {
            free(text);
            text = NULL;
        }
    }
    char who[320] = "";
    if (s->world > 1) {
        char host[256] = "?";
        gethostname(host, sizeof host - 1);
        snprintf(who, sizeof who, "rank %d (machine %d, host %s) ", r->rank, s->machine_rank, host);
    }
    if (r->rendezvous) {
        result = pipe_strdup(r->rendezvous);
    } else if (r->timed_out) {
        duration_text(s->inv->timeout_ms, d, sizeof d);
        result = pipe_asprintf("timed out after %s", d);
    } else if (r->interrupted) {
        signal_text(r->interrupted, sig, sizeof sig);
        result = pipe_asprintf("interrupted by %s", sig);
    } else if (WIFSIGNALED(r->status)) {
        signal_text(WTERMSIG(r->status), sig, sizeof sig);
        result = text ? pipe_asprintf("%skilled by %s after: %s", who, sig, text)
                      : pipe_asprintf("%skilled by %s", who, sig);
    } else if (text) {
        result = s->world > 1 && strncmp(text, "rank ", 5) != 0 ? pipe_asprintf("%s%s", who, text) : pipe_strdup(text);
    } else {
        result = pipe_asprintf("%sexited with status %d", who, WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1);
    }
    free(text);
    if (result && s->world > 1 && !r->rendezvous && !r->timed_out && !r->interrupted) {
        char *tail = log_tail(s, r->rank);
        if (tail) {
            char *with = pipe_asprintf("%s\nlast lines of rank %d:\n%s", result, r->rank, tail);
            if (with) {
                free(result);
                result = with;
            }
            free(tail);
        }
    }
    return result;
}

/* Reads metrics.csv into the record: the last value of each name. */
static void read_metrics(supervisor *s)
{
    char *text = NULL;
    if (pipe_read_file(s->metrics_path, &text, NULL, NULL, 0) != 0)
        return;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *first = strchr(line, ','), *last = strrchr(line, ',');
        if (!first || first == last)
            continue;
        *last = '\0';
        char *end;
        double v = strtod(last + 1, &end);
        if (end == last + 1 || *end)
            continue;
        pipe_step_record_set_metric(s->rec, first + 1, v);
    }
    free(text);
}

/* Checks and hashes the outputs; NULL when all are there, else why not
   (malloc'ed). */
static char *collect_outputs(supervisor *s)
{
    char err[1024];
    for (size_t i = 0; i < s->ms->noutputs; i++) {
        const char *name = s->output_names[i];
        char *path = pipe_store_output_path(s->store, s->o.run_id, s->inv->id, name);
        char hex[PIPE_SHA256_HEX_SIZE];
        if (!path)
            return pipe_strdup("out of memory");
        int rc = pipe_sha256_file(path, hex, err, sizeof err);
        if (rc == PIPE_ENOENT) {
            free(path);
            return pipe_asprintf("step `%s` returned 0 but did not write output `%s` (pipe_output_open or "
                                 "pipe_output_path)",
                                 s->ms->name, name);
        }
        if (rc == 0)
            rc = pipe_step_record_add_output(s->rec, name, path, hex);
        free(path);
        if (rc != 0)
            return pipe_asprintf("output `%s`: %s", name, rc == PIPE_ENOMEM ? "out of memory" : err);
    }
    return NULL;
}

/* Removes everything an attempt leaves in outputs/ and the per-attempt files. */
static void reset_attempt(supervisor *s)
{
    char err[512];
    if (s->machine_rank == 0) {
        unlink(s->error_path);
        unlink(s->metrics_path);
        clean_outputs(s, err, sizeof err);
    }
    clear_outputs(s->rec);
    for (size_t i = 0; i < s->rec->nmetrics; i++)
        free(s->rec->metrics[i].name);
    s->rec->nmetrics = 0;
}

static int make_scratch(supervisor *s, char *err, size_t errsize)
{
    const char *tmp = getenv("TMPDIR");
    char *tmpl = pipe_asprintf("%s/pipe-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", s->inv->id);
    if (!tmpl)
        return PIPE_ENOMEM;
    if (!mkdtemp(tmpl)) {
        pipe_errf(err, errsize, "cannot create a scratch directory %s: %s", tmpl, strerror(errno));
        free(tmpl);
        return PIPE_EIO;
    }
    s->scratch_root = tmpl;
    return 0;
}

/* The attempts; returns the exit status. */
static int execute(supervisor *s)
{
    char err[1024];
    int64_t max = 1 + (s->inv->retry_max > 0 ? s->inv->retry_max : 0), restarts = 0;
    for (int64_t attempt = 1;; attempt++) {
        attempt_result res;
        char *why = NULL;
        s->rec->attempts = (int)attempt;
        if (attempt > 1)
            reset_attempt(s);
        if (max > 1)
            note(s, "attempt %lld of %lld", (long long)attempt, (long long)max);
        int rc = make_scratch(s, err, sizeof err);
        if (rc == 0)
            rc = run_attempt(s, &res, err, sizeof err);
        if (s->scratch_root) {
            char rerr[512];
            pipe_remove_tree(s->scratch_root, rerr, sizeof rerr);
            free(s->scratch_root);
            s->scratch_root = NULL;
        }
        if (rc != 0) {
            s->rec->has_exit_code = false;
            return fail_step(s, err);
        }
        s->rec->has_exit_code = WIFEXITED(res.status);
        s->rec->exit_code = WIFEXITED(res.status) ? WEXITSTATUS(res.status) : 0;
        free(s->rec->signal);
        s->rec->signal = NULL;
        if (WIFSIGNALED(res.status)) {
            char sig[32];
            signal_text(WTERMSIG(res.status), sig, sizeof sig);
            s->rec->signal = pipe_strdup(sig);
        }
        if (res.ok && s->machine_rank == 0) {
            why = collect_outputs(s);
            if (!why) {
                read_metrics(s);
                if (finish_record(s, PIPE_STEP_DONE, err, sizeof err) != 0) {
                    report(s, err);
                    return PIPE_EXIT_FAILED;
                }
                if (pipe_cache_record(s->store, s->rec->cache_key, s->o.run_id, s->inv->id, err, sizeof err) != 0)
                    note(s, "cannot record the cache entry: %s", err);
                note(s, "done in %.3f s", s->rec->duration_s);
                return PIPE_EXIT_OK;
            }
            s->rec->has_exit_code = true;
        } else if (res.ok) {
            return PIPE_EXIT_OK;
        } else {
            why = describe_failure(s, &res);
        }
        if (!why)
            why = pipe_strdup("the step failed");
        read_metrics(s);
        free(res.rendezvous);
        res.rendezvous = NULL;
        /* max_restarts: the whole group again at once, before any @retry. */
        if (!res.interrupted && s->launch.distributed && restarts < s->inv->accelerate.max_restarts) {
            restarts++;
            note(s, "%s; restarting the %d ranks (restart %lld of %lld)", why, s->world, (long long)restarts,
                 (long long)s->inv->accelerate.max_restarts);
            free(why);
            reset_attempt(s);
            attempt--;
            continue;
        }
        if (res.interrupted || attempt >= max) {
            int status = fail_step(s, why ? why : "the step failed");
            free(why);
            return status;
        }
        char d[64];
        duration_text(s->inv->retry_delay_ms, d, sizeof d);
        note(s, "attempt %lld failed: %s; retrying%s%s", (long long)attempt, why,
             s->inv->retry_delay_ms ? " in " : "", s->inv->retry_delay_ms ? d : "");
        free(why);
        /* Wait, but wake for SIGINT/SIGTERM. */
        double until = pipe_now() + (double)s->inv->retry_delay_ms / 1000.0;
        while (!pending_stop) {
            double left = until - pipe_now();
            if (left <= 0)
                break;
            struct pollfd p = {.fd = s->sig.pipe[0], .events = POLLIN};
            poll(&p, 1, (int)(left * 1000.0) + 1);
            signals_drain(&s->sig);
        }
        if (pending_stop) {
            char sig[32], msg[64];
            signal_text(pending_stop, sig, sizeof sig);
            snprintf(msg, sizeof msg, "interrupted by %s", sig);
            return fail_step(s, msg);
        }
    }
}

static void supervisor_free(supervisor *s)
{
    if (s->log_fd >= 0)
        close(s->log_fd);
    signals_restore(&s->sig);
    for (size_t i = 0; s->values && s->ms && i < s->ms->nparams; i++)
        free(s->values[i]);
    free(s->values);
    free(s->output_names);
    pipe_step_record_free(s->rec);
    pipe_run_info_free(s->run);
    free(s->store);
    free(s->dir);
    free(s->outdir);
    free(s->log_path);
    free(s->error_path);
    free(s->metrics_path);
    free(s->step_path);
    free(s->omp_threads);
    free(s->scratch_root);
    free((void *)s->o.params);
}

int pipe_cmd_step(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv)
{
    supervisor s;
    memset(&s, 0, sizeof s);
    s.prog = prog;
    s.m = m;
    s.log_fd = -1;
    s.t0 = pipe_now();
    char err[2048] = "";
    int status = PIPE_EXIT_USAGE;
    int rc = parse_options(argc, argv, &s.o, err, sizeof err);
    if (rc == 1) {
        printf("%s\n", usage_text);
        status = PIPE_EXIT_OK;
        goto done;
    }
    if (rc == 0)
        rc = setup(&s, err, sizeof err);
    if (rc != 0) {
        report(&s, rc == PIPE_ENOMEM ? "out of memory" : err);
        status = rc == PIPE_EUSAGE ? PIPE_EXIT_USAGE : PIPE_EXIT_FAILED;
        goto done;
    }
    if ((rc = prepare_dir(&s, err, sizeof err)) != 0 || (rc = signals_install(&s.sig, err, sizeof err)) != 0) {
        report(&s, rc == PIPE_ENOMEM ? "out of memory" : err);
        status = PIPE_EXIT_FAILED;
        goto done;
    }
    char started[40];
    pipe_iso8601(started, sizeof started);
    if (!(s.rec = calloc(1, sizeof *s.rec)) || !(s.rec->invocation = pipe_strdup(s.inv->id)) ||
        !(s.rec->step = pipe_strdup(s.ms->name)) || !(s.rec->run_id = pipe_strdup(s.o.run_id)) ||
        !(s.rec->started = pipe_strdup(started))) {
        report(&s, "out of memory");
        status = PIPE_EXIT_FAILED;
        goto done;
    }
    note(&s, "step `%s` of run %s", s.inv->id, s.o.run_id);
    rc = resolve_args(&s, err, sizeof err);
    if (rc == PIPE_EUSAGE || rc == PIPE_ENOMEM) {
        report(&s, rc == PIPE_ENOMEM ? "out of memory" : err);
        status = rc == PIPE_EUSAGE ? PIPE_EXIT_USAGE : PIPE_EXIT_FAILED;
        goto done;
    }
    if (rc != 0) {
        status = fail_step(&s, err);
        goto done;
    }
    compute_cache_key(&s);
    if (!s.rec->cache_key) {
        report(&s, "out of memory");
        status = PIPE_EXIT_FAILED;
        goto done;
    }
    if (s.ms->cache && !s.o.no_cache && s.machine_rank == 0 && try_cache(&s)) {
        status = PIPE_EXIT_OK;
        goto done;
    }
    status = execute(&s);
done:
    supervisor_free(&s);
    return status;
}
