/* The step kind of a command step (supervisor.h; docs/command-steps.md):
   its program runs in every rank, exec'ed without a shell in the bundle's
   copy of the folder of its .pipe file, with the values of its parameters,
   inputs and outputs in its arguments ({NAME}) and its environment
   (PIPE_PARAM_*, PIPE_INPUT_*, PIPE_OUTPUT_*). As under torchrun, every
   rank of a machine gets the same output paths, so that what each rank
   writes (Accelerate's save_state, FSDP shards) lands in one folder: on
   machine 0 where the store commits it (outputs/.NAME.tmp, moved into
   place once every rank exited 0, as a native step's output), on machine N
   in that machine's scratch folder, discarded with it (machines never
   write into one folder, shared store or not). Rank 0's PIPE_METRICS lines
   become metrics as pipe_metric's do. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "command.h"
#include "observe/metrics.h"
#include "pipe/error.h"
#include "store/artifact.h"
#include "store/hash_pipeline.h"
#include "store/store.h"
#include "supervisor.h"
#include "util/util.h"

/* PIPE_METRICS lines that cannot be read are logged, up to this many. */
#define MAX_COMPLAINTS 10

/* The kind's state (pipe_supervisor.kind_state), from prepare to the end. */
typedef struct command_state {
    char *workdir;      /* BUNDLE/WORKDIR: where its program runs */
    char *python_dir;   /* BUNDLE/python: the `pipe` module, first on PYTHONPATH */
    char *media_dir;    /* rank 0's PIPE_MEDIA_DIR: the invocation's media/ */
    char start[32];     /* PIPE_STEP_START: the attempt's beginning, seconds since the epoch */
    double start_wall;  /* the same, as a number (event files older than it are not read) */
    char *program;      /* the file its first argument names */
    int metrics_fd;     /* rank 0's PIPE_METRICS file while it runs, -1 when none */
    char *metrics_line; /* an unfinished line of it */
    size_t metrics_len, metrics_lineno;
    int metrics_complaints;
    pipe_metrics_writer metrics_out; /* metrics.csv */
} command_state;

static command_state *state_of(const pipe_supervisor *s) { return s->kind_state; }

static int global_rank(const pipe_supervisor *s, int local_rank)
{
    return s->id.machine_rank * s->id.nlocal + local_rank;
}

/* Where this machine's ranks write output name: on machine 0 next to the
   store's outputs/NAME, on the others in the attempt's scratch folder
   (NULL there before the attempt has one). */
static char *output_path(const pipe_supervisor *s, const char *name)
{
    if (s->id.machine_rank == 0)
        return pipe_asprintf("%s/.%s.tmp", s->id.outdir, name);
    return s->scratch_root ? pipe_asprintf("%s/outputs/%s", s->scratch_root, name) : NULL;
}

static char *rank_file(const pipe_supervisor *s, int rank, const char *what)
{
    return pipe_asprintf("%s/rank-%d/%s", s->scratch_root, rank, what);
}

/* ---- placeholders ---- */

typedef struct expansion {
    const pipe_supervisor *s;
    char **owned; /* output paths made for this expansion */
    size_t nowned, cap;
} expansion;

static const char *placeholder_value(void *arg, const char *name, size_t len)
{
    expansion *x = arg;
    const pipe_mstep *ms = x->s->id.ms;
    for (size_t i = 0; i < ms->nparams; i++)
        if (strlen(ms->params[i].name) == len && strncmp(ms->params[i].name, name, len) == 0)
            return x->s->id.values[i];
    for (size_t i = 0; i < ms->noutputs; i++) {
        if (strlen(ms->outputs[i].name) != len || strncmp(ms->outputs[i].name, name, len) != 0)
            continue;
        if (x->nowned == x->cap) {
            size_t cap = x->cap ? 2 * x->cap : 8;
            char **more = realloc(x->owned, cap * sizeof *more);
            if (!more)
                return NULL;
            x->owned = more;
            x->cap = cap;
        }
        char *path = output_path(x->s, ms->outputs[i].name);
        x->owned[x->nowned] = path;
        x->nowned += path != NULL;
        return path;
    }
    return NULL;
}

static void free_argv(char **argv, size_t n)
{
    for (size_t i = 0; argv && i < n; i++)
        free(argv[i]);
    free(argv);
}

/* The program and its first count - 1 arguments, expanded (the same for
   every rank of this machine); NULL-terminated, ms->ncommand + 1 long. */
static int expand_argv(const pipe_supervisor *s, size_t count, char ***out, char *err, size_t errsize)
{
    const pipe_mstep *ms = s->id.ms;
    char **argv = calloc(ms->ncommand + 1, sizeof *argv);
    expansion x = {s, NULL, 0, 0};
    int rc = argv ? 0 : PIPE_ENOMEM;
    size_t n = 0;
    for (; n < count && n < ms->ncommand && rc == 0; n++) {
        char why[512];
        rc = pipe_command_expand(ms->command[n], placeholder_value, &x, &argv[n], why, sizeof why);
        if (rc == PIPE_EINVAL)
            pipe_errf(err, errsize, "step `%s`: argument %zu of its command, %s", ms->name, n + 1, why);
    }
    for (size_t i = 0; i < x.nowned; i++)
        free(x.owned[i]);
    free(x.owned);
    if (rc != 0) {
        free_argv(argv, n);
        return rc;
    }
    *out = argv;
    return 0;
}

/* ---- setup ---- */

/* PATH as the ranks will have it: the step's own, else ours. */
static const char *rank_path(const pipe_mstep *ms)
{
    for (size_t i = 0; i < ms->nenvironment; i++)
        if (strcmp(ms->environment[i].key, "PATH") == 0)
            return ms->environment[i].value;
    return getenv("PATH");
}

/* The folder a command step runs in (the bundle's copy of its .pipe file's
   folder) and its program, found as execvp would. PIPE_EUSAGE naming the
   step and the folder or program when one is missing. */
static int prepare(pipe_supervisor *s, char *err, size_t errsize)
{
    const pipe_mstep *ms = s->id.ms;
    command_state *c = calloc(1, sizeof *c);
    if (!c)
        return PIPE_ENOMEM;
    c->metrics_fd = -1;
    s->kind_state = c;
    char why[1024];
    char *bundle = pipe_bundle_dir(s->id.prog, s->id.m->pipeline, why, sizeof why);
    if (!bundle) {
        pipe_errf(err, errsize, "step `%s` runs in the bundle's %s, but %s", ms->name, ms->workdir, why);
        return PIPE_EUSAGE;
    }
    c->workdir = pipe_asprintf("%s/%s", bundle, ms->workdir);
    c->python_dir = pipe_asprintf("%s/python", bundle);
    free(s->log.bundle);
    s->log.bundle = bundle;
    if (!c->workdir || !c->python_dir)
        return PIPE_ENOMEM;
    if (!pipe_dir_exists(c->workdir)) {
        pipe_errf(err, errsize, "step `%s` runs in %s, which is missing: is the bundle complete (set PIPE_BUNDLE_DIR "
                                "to its folder)?",
                  ms->name, c->workdir);
        return PIPE_EUSAGE;
    }
    /* The program as the ranks name it (a placeholder there is unusual;
       machine N's output paths exist only once an attempt has begun). */
    char **argv = NULL;
    int rc = expand_argv(s, 1, &argv, err, errsize);
    if (rc != 0)
        return rc == PIPE_EINVAL ? PIPE_EUSAGE : rc;
    rc = pipe_command_find(argv[0], rank_path(ms), c->workdir, &c->program, why, sizeof why);
    if (rc == PIPE_ENOENT)
        pipe_errf(err, errsize, "step `%s` runs `%s`, which was not found: %s", ms->name, argv[0], why);
    free_argv(argv, ms->ncommand);
    return rc == PIPE_ENOENT ? PIPE_EUSAGE : rc;
}

/* Before an attempt: each rank's scratch folder, the folder machine N's
   outputs go into, and rank 0's empty PIPE_METRICS file. */
static int begin(pipe_supervisor *s, char *err, size_t errsize)
{
    command_state *c = state_of(s);
    int rc = 0;
    for (int local = 0; local < s->id.nlocal && rc == 0; local++) {
        char *tmp = rank_file(s, global_rank(s, local), "tmp");
        rc = tmp ? pipe_mkdirs(tmp, err, errsize) : PIPE_ENOMEM;
        free(tmp);
    }
    if (rc == 0 && s->id.machine_rank != 0) {
        char *outs = pipe_asprintf("%s/outputs", s->scratch_root);
        rc = outs ? pipe_mkdirs(outs, err, errsize) : PIPE_ENOMEM;
        free(outs);
    }
    if (rc != 0 || s->id.machine_rank != 0)
        return rc;
    /* Rank 0's PIPE_MEDIA_DIR: empty at the start of each attempt. */
    free(c->media_dir);
    if (!(c->media_dir = pipe_asprintf("%s/media", s->id.dir)))
        return PIPE_ENOMEM;
    if ((rc = pipe_remove_tree(c->media_dir, err, errsize)) != 0 || (rc = pipe_mkdirs(c->media_dir, err, errsize)) != 0)
        return rc;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    c->start_wall = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
    snprintf(c->start, sizeof c->start, "%.3f", c->start_wall);
    /* Rank 0's PIPE_METRICS: empty, so that appending works; read as it grows. */
    char *path = rank_file(s, 0, "metrics");
    if (!path)
        return PIPE_ENOMEM;
    c->metrics_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (c->metrics_fd < 0) {
        pipe_errf(err, errsize, "cannot create %s: %s", path, strerror(errno));
        rc = PIPE_EIO;
    }
    free(path);
    c->metrics_len = 0;
    c->metrics_lineno = 0;
    pipe_metrics_writer_close(&c->metrics_out);
    if (rc == 0)
        rc = pipe_metrics_writer_init(&c->metrics_out, s->id.metrics_path, pipe_now());
    return rc;
}

/* A rank of an accelerated step finds the others through its framework:
   machine 0 says where. */
static void announce(pipe_supervisor *s)
{
    const pipe_step_ident *id = &s->id;
    if (id->inv->accelerate.enabled && id->machine_rank == 0)
        pipe_supervisor_note(&s->log, "%d rank%s of `%s` on %d machine%s; MASTER_ADDR=%s MASTER_PORT=%d", id->world,
                             id->world == 1 ? "" : "s", id->ms->command[0], s->launch.num_machines,
                             s->launch.num_machines == 1 ? "" : "s", s->launch.master_addr, s->launch.master_port);
    if (id->inv->cleanup_memory && !s->launch.cpu_only)
        pipe_supervisor_note(&s->log, "cleanup_memory: nothing to release before `%s` starts (its CUDA caches are its "
                                      "own: torch.cuda.empty_cache() releases them)",
                             id->ms->command[0]);
}

/* ---- a rank ---- */

typedef struct command_rank {
    pipe_supervisor *s;
    int local_rank;
} command_rank;

/* name=value with NAME upper-cased after prefix. */
static void set_named(const char *prefix, const char *name, const char *value)
{
    char key[300];
    size_t n = (size_t)snprintf(key, sizeof key, "%s", prefix);
    for (const char *p = name; *p && n + 1 < sizeof key; p++)
        key[n++] = (char)toupper((unsigned char)*p);
    key[n] = '\0';
    setenv(key, value ? value : "", 1);
}

/* PIPE_STEP_PARAM_TYPES: "NAME:TYPE ..." for the `pipe` module's param(),
   which returns each value typed as it is declared. */
static int param_types(const pipe_mstep *ms)
{
    static const char *const names[] = {"int", "float", "bool", "str"};
    char *list = pipe_strdup("");
    for (size_t i = 0; list && i < ms->nparams; i++) {
        if (ms->params[i].type == PIPE_TYPE_ARTIFACT)
            continue;
        char *more = pipe_asprintf("%s%s%s:%s", list, *list ? " " : "", ms->params[i].name,
                                   names[ms->params[i].type]);
        free(list);
        list = more;
    }
    if (!list)
        return -1;
    setenv("PIPE_STEP_PARAM_TYPES", list, 1);
    free(list);
    return 0;
}

/* PYTHONPATH with the bundle's python/ (the `pipe` module) first, the rest
   as the step or the user had it. */
static int python_path(const char *dir)
{
    const char *old = getenv("PYTHONPATH");
    size_t n = strlen(dir);
    if (old && strncmp(old, dir, n) == 0 && (old[n] == '\0' || old[n] == ':'))
        return 0; /* already first (an image's ENV PYTHONPATH) */
    char *value = old && *old ? pipe_asprintf("%s:%s", dir, old) : pipe_strdup(dir);
    if (!value)
        return -1;
    setenv("PYTHONPATH", value, 1);
    free(value);
    return 0;
}

/* In the forked rank, before exec: the environment of a command step. */
static int rank_setup(void *arg)
{
    const command_rank *r = arg;
    pipe_supervisor *s = r->s;
    int rank = global_rank(s, r->local_rank);
    pipe_supervisor_rank_env(s, r->local_rank);
    const pipe_mstep *ms = s->id.ms;
    for (size_t i = 0; i < ms->nparams; i++)
        set_named(ms->params[i].type == PIPE_TYPE_ARTIFACT ? "PIPE_INPUT_" : "PIPE_PARAM_", ms->params[i].name,
                  s->id.values[i]);
    for (size_t i = 0; i < ms->noutputs; i++) {
        char *path = output_path(s, ms->outputs[i].name);
        if (!path)
            return 1;
        set_named("PIPE_OUTPUT_", ms->outputs[i].name, path);
        free(path);
    }
    char *metrics = rank_file(s, rank, "metrics"), *tmp = rank_file(s, rank, "tmp");
    if (!metrics || !tmp)
        return 1;
    setenv("PIPE_METRICS", metrics, 1);
    setenv("PIPE_SCRATCH_DIR", tmp, 1);
    free(metrics);
    free(tmp);
    if (param_types(ms) != 0 || python_path(state_of(s)->python_dir) != 0)
        return 1;
    /* Images and tables are rank 0's, as metrics are (the module's log_image
       and log_table do nothing without PIPE_MEDIA_DIR). */
    unsetenv("PIPE_MEDIA_DIR");
    unsetenv("PIPE_STEP_START");
    if (rank == 0 && state_of(s)->media_dir) {
        setenv("PIPE_MEDIA_DIR", state_of(s)->media_dir, 1);
        setenv("PIPE_STEP_START", state_of(s)->start, 1);
    }
    /* Lines reach the log as they are printed, not when a buffer fills. */
    setenv("PYTHONUNBUFFERED", "1", 0);
    return 0;
}

/* Starts local rank r's program: its arguments expanded, the environment
   of a command step (PIPE_PARAM_*, PIPE_INPUT_*, PIPE_OUTPUT_*, PIPE_METRICS,
   PIPE_SCRATCH_DIR) set in the child, in the step's folder. */
static int start_rank(pipe_supervisor *s, pipe_child_group *g, int local_rank, char *err, size_t errsize)
{
    const command_state *c = state_of(s);
    char **argv = NULL;
    int rc = expand_argv(s, s->id.ms->ncommand, &argv, err, errsize);
    if (rc != 0)
        return rc;
    command_rank r = {s, local_rank};
    pipe_child_spec spec = {
        .setup = rank_setup,
        .arg = &r,
        .path = c->program,
        .argv = argv,
        .cwd = c->workdir,
        .what = argv[0],
    };
    char why[512];
    if ((rc = pipe_child_spawn(g, &spec, why, sizeof why)) != 0)
        pipe_errf(err, errsize, "cannot start `%s` for rank %d: %s", argv[0], global_rank(s, local_rank), why);
    free_argv(argv, s->id.ms->ncommand);
    return rc;
}

static int spawn(pipe_supervisor *s, pipe_child_group *g, int local_rank, char *err, size_t errsize)
{
    char why[512] = "";
    int rc = start_rank(s, g, local_rank, why, sizeof why);
    if (rc != 0)
        pipe_errf(err, errsize, "%s", why);
    return rc;
}

/* ---- metrics ---- */

static void complain(pipe_supervisor *s, const char *line, const char *why)
{
    command_state *c = state_of(s);
    if (c->metrics_complaints++ < MAX_COMPLAINTS)
        pipe_supervisor_note(&s->log, "PIPE_METRICS line %zu ignored (%s): %.200s", c->metrics_lineno, why, line);
}

/* "NAME VALUE" or "NAME STEP VALUE", separated by spaces or tabs. */
static void metric_line(pipe_supervisor *s, char *line)
{
    command_state *c = state_of(s);
    c->metrics_lineno++;
    char shown[256];
    snprintf(shown, sizeof shown, "%s", line);
    char *words[4];
    int n = 0;
    for (char *save = NULL, *w = strtok_r(line, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save)) {
        if (n < 4)
            words[n] = w;
        n++;
    }
    if (n == 0)
        return; /* a blank line */
    if (n != 2 && n != 3) {
        complain(s, shown, "expected NAME VALUE or NAME STEP VALUE");
        return;
    }
    /* A value that underflows is the nearest double (1e-320 is kept), one
       past the largest double is refused; a step is 0 .. INT64_MAX, never
       clamped. */
    char *end;
    errno = 0;
    double value = strtod(words[n - 1], &end);
    long long step = -1;
    if (*end) {
        complain(s, shown, "the value is not a number");
        return;
    }
    if (errno == ERANGE && isinf(value)) {
        complain(s, shown, "the value is beyond the largest double");
        return;
    }
    if (n == 3) {
        errno = 0;
        step = strtoll(words[1], &end, 10);
        if (*end || step < 0 || !isdigit((unsigned char)words[1][0])) {
            complain(s, shown, "the step is not a whole number of at least 0");
            return;
        }
        if (errno == ERANGE) {
            complain(s, shown, "the step is above 9223372036854775807");
            return;
        }
    }
    char err[512];
    if (pipe_metric_name_check(words[0], err, sizeof err) != 0 ||
        pipe_metrics_writer_record(&c->metrics_out, words[0], step, value, -1, err, sizeof err) != 0)
        complain(s, shown, err);
}

/* The TensorBoard scalars rank 0's program wrote during the attempt, under
   its output paths, its scratch folder or its working folder. */
static void import_tfevents(pipe_supervisor *s)
{
    command_state *c = state_of(s);
    const pipe_mstep *ms = s->id.ms;
    size_t n = 0;
    char **roots = calloc(ms->noutputs + 2, sizeof *roots);
    if (!roots)
        return;
    roots[n++] = rank_file(s, 0, "tmp");
    roots[n++] = pipe_strdup(c->workdir);
    for (size_t i = 0; i < ms->noutputs; i++)
        roots[n++] = output_path(s, ms->outputs[i].name);
    pipe_supervisor_import_tfevents(&s->log, (const char *const *)roots, n, c->start_wall, &c->metrics_out);
    for (size_t i = 0; i < n; i++)
        free(roots[i]);
    free(roots);
}

/* Rank 0's new PIPE_METRICS lines into metrics.csv; final: the last line
   too, and the file closed (end of the attempt). */
static void follow(pipe_supervisor *s, bool final)
{
    command_state *c = state_of(s);
    if (c->metrics_fd < 0)
        return;
    char buf[8192];
    for (;;) {
        ssize_t n = read(c->metrics_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == '\n') {
                if (c->metrics_line)
                    c->metrics_line[c->metrics_len] = '\0';
                metric_line(s, c->metrics_line ? c->metrics_line : (char[]){""});
                c->metrics_len = 0;
                continue;
            }
            if (c->metrics_len >= 4096)
                continue; /* an overlong line is cut; its start still counts */
            char *more = realloc(c->metrics_line, c->metrics_len + 2);
            if (!more)
                continue;
            c->metrics_line = more;
            c->metrics_line[c->metrics_len++] = buf[i];
        }
    }
    if (!final)
        return;
    if (c->metrics_len > 0) {
        c->metrics_line[c->metrics_len] = '\0';
        metric_line(s, c->metrics_line);
        c->metrics_len = 0;
    }
    import_tfevents(s);
    close(c->metrics_fd);
    c->metrics_fd = -1;
    pipe_metrics_writer_close(&c->metrics_out);
}

/* ---- outputs ---- */

/* The suffix (".npy") of the one entry beside path named path.SUFFIX
   (malloc'ed), or NULL when there is none or several: what a library that
   appends its extension (numpy's np.save) wrote instead of path. */
static char *suffixed_sibling(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *dir = slash ? pipe_strndup(path, (size_t)(slash - path)) : pipe_strdup(".");
    DIR *d = dir ? opendir(dir) : NULL;
    char *found = NULL;
    size_t n = strlen(base), count = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, base, n) != 0 || e->d_name[n] != '.' || !e->d_name[n + 1])
            continue;
        if (++count == 1)
            found = pipe_strdup(e->d_name + n);
    }
    if (d)
        closedir(d);
    free(dir);
    if (count != 1) {
        free(found);
        found = NULL;
    }
    return found;
}

/* Why output name, which the program was to write at tmp, cannot be kept
   (malloc'ed), or NULL. */
static char *check_output(const pipe_supervisor *s, const char *name, const char *tmp)
{
    const pipe_mstep *ms = s->id.ms;
    struct stat st;
    if (lstat(tmp, &st) == 0)
        return pipe_supervisor_check_output(&s->id, name, tmp);
    char var[300];
    snprintf(var, sizeof var, "PIPE_OUTPUT_");
    for (size_t k = strlen(var), c = 0; name[c] && k + 1 < sizeof var; k++, c++)
        var[k] = (char)toupper((unsigned char)name[c]), var[k + 1] = '\0';
    char *suffix = suffixed_sibling(tmp);
    if (!suffix)
        return pipe_asprintf("step `%s`: `%s` exited 0 but did not write output `%s` (a file or folder at the path in "
                             "{%s} and %s)",
                             ms->name, ms->command[0], name, name, var);
    /* np.save(path, arr) and np.savez add their extension to a path without it. */
    bool numpy = strcmp(suffix, ".npy") == 0 || strcmp(suffix, ".npz") == 0;
    char *why = pipe_asprintf(
        "step `%s`: `%s` exited 0 but did not write output `%s`: it wrote the path in {%s} with `%s` added\n"
        "help: write the exact path (%s), %s",
        ms->name, ms->command[0], name, name, suffix, var,
        numpy ? "np.save appends .npy to a path without it: pass an open file, "
                "`np.save(open(path, \"wb\"), arr)`, or rename the file after saving"
              : "without adding an extension, or rename the file after writing it");
    free(suffix);
    return why;
}

/* After every rank exited 0, on machine 0: every output its ranks wrote is
   checked (all of them before any is moved), then sealed, synced and moved
   into outputs/. NULL, or why not (malloc'ed): an output missing or
   holding what it may not, naming it. */
static char *commit(pipe_supervisor *s)
{
    const pipe_mstep *ms = s->id.ms;
    char *why = NULL;
    for (int moving = 0; moving < 2 && !why; moving++) {
        for (size_t i = 0; i < ms->noutputs && !why; i++) {
            const char *name = ms->outputs[i].name;
            char *tmp = output_path(s, name), *final = pipe_asprintf("%s/%s", s->id.outdir, name), err[1024];
            if (!tmp || !final)
                why = pipe_strdup("out of memory");
            else if (!moving)
                why = check_output(s, name, tmp);
            else {
                /* Hashed while it is synced and moved (hash_pipeline.h). */
                pipe_file_hash *hash = pipe_file_hash_start(tmp);
                if (pipe_artifact_commit(tmp, final, s->id.o.commit_deferred, err, sizeof err) != 0)
                    why = pipe_asprintf("output `%s`: %s", name, err);
                pipe_file_hash_note(hash, why ? NULL : final);
            }
            free(tmp);
            free(final);
        }
    }
    return why;
}

static void free_state(pipe_supervisor *s)
{
    command_state *c = state_of(s);
    if (!c)
        return;
    if (c->metrics_fd >= 0)
        close(c->metrics_fd);
    pipe_metrics_writer_close(&c->metrics_out);
    free(c->metrics_line);
    free(c->workdir);
    free(c->python_dir);
    free(c->media_dir);
    free(c->program);
    free(c);
    s->kind_state = NULL;
}

const pipe_step_kind pipe_command_step = {
    .prepare = prepare,
    .begin = begin,
    .announce = announce,
    .spawn = spawn,
    .follow = follow,
    .commit = commit,
    .free = free_state,
};
