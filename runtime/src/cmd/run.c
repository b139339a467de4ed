/* `run`: the command line and --config of a local run; exec/run.h does
   the run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"
#include "commands.h"
#include "exec/run.h"
#include "exec/run_rebuild.h"
#include "format/params.h"
#include "pipe/error.h"
#include "run_config.h"
#include "store/store.h"
#include "util/cli.h"

/* The command line of `run`. */
typedef struct run_args {
    const char **assignments; /* --param NAME=VALUE */
    size_t nassign;
    const char *config_path, *store, *run_id, *jobs;
    bool no_cache, verify, strict;
} run_args;

typedef struct run_cmd {
    const pipe_manifest *m;
    run_args a;
    pipe_run_config cfg;
    pipe_param_values params;
    char *store;
    pipe_run_options o;
} run_cmd;

static const char run_options[] =
    "  --param NAME=VALUE   set a pipeline parameter (repeatable; overrides --config)\n"
    "  --config FILE        YAML: params: {NAME: VALUE}, store, jobs, no_cache, strict_resources\n"
    "  --store DIR          the artifact store (default $PIPE_STORE, else .pipe)\n"
    "  --no-cache           run every invocation, even when an earlier result matches\n"
    "  --verify             hash every input and cached output again, even files whose\n"
    "                       size and modification time are those recorded\n"
    "  --strict-resources   refuse to run when this machine cannot meet a request\n"
    "  --jobs N             at most N invocations at once\n"
    "  --run-id ID          name the run (default: UTC time and 6 random hex digits)";

/* 0; 1 after --help; -1 after a message; PIPE_ENOMEM. */
static int parse_args(int argc, char **argv, run_args *a)
{
    if (!(a->assignments = calloc((size_t)argc + 1, sizeof *a->assignments)))
        return PIPE_ENOMEM;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value;
        int got;
        if (pipe_opt_is_help(arg)) {
            pipe_commands_help("run", run_options);
            return 1;
        }
        if ((got = pipe_opt_value(argc, argv, &i, "--param", &value)) != 0) {
            if (got < 0)
                return -1;
            a->assignments[a->nassign++] = value;
        } else if ((got = pipe_opt_value(argc, argv, &i, "--config", &a->config_path)) != 0 ||
                   (got = pipe_opt_value(argc, argv, &i, "--store", &a->store)) != 0 ||
                   (got = pipe_opt_value(argc, argv, &i, "--run-id", &a->run_id)) != 0 ||
                   (got = pipe_opt_value(argc, argv, &i, "--jobs", &a->jobs)) != 0) {
            if (got < 0)
                return -1;
        } else if (strcmp(arg, "--no-cache") == 0) {
            a->no_cache = true;
        } else if (strcmp(arg, "--verify") == 0) {
            a->verify = true;
        } else if (strcmp(arg, "--strict-resources") == 0) {
            a->strict = true;
        } else {
            pipe_cli_error(arg[0] == '-' ? "unknown option `%s` (see run --help)"
                                         : "unexpected argument `%s` (see run --help)",
                           arg);
            return -1;
        }
    }
    return 0;
}

/* Parameters (defaults, then the config file, then --param) and the
   settings (--config's, overridden by the command line), into r->o. 0; -1
   after a message; PIPE_ENOMEM. */
static int settings(run_cmd *r)
{
    const pipe_manifest *m = r->m;
    char err[1024] = "";
    if (pipe_params_init(m, &r->params) != 0)
        return PIPE_ENOMEM;
    r->o.params = &r->params;
    if (r->a.config_path) {
        int rc = pipe_run_config_load(r->a.config_path, m, &r->params, &r->cfg, err, sizeof err);
        if (rc == PIPE_ENOMEM)
            return rc;
        if (rc != 0) {
            pipe_cli_error("--config: %s", err);
            return -1;
        }
    }
    int assigned = pipe_params_assign_all(m, &r->params, r->a.assignments, r->a.nassign, err, sizeof err);
    if (assigned == PIPE_ENOMEM)
        return assigned;
    if (assigned != 0) {
        pipe_cli_error("--param: %s", err);
        return -1;
    }
    if (pipe_params_check_complete(m, &r->params, err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        return -1;
    }
    r->o.jobs = r->cfg.jobs;
    if (r->a.jobs && pipe_opt_parse_int("--jobs", r->a.jobs, 1, 1000000, &r->o.jobs) != 0)
        return -1;
    r->o.no_cache = r->a.no_cache || r->cfg.no_cache;
    r->o.strict = r->a.strict || r->cfg.strict_resources;
    r->o.verify = r->a.verify;
    r->o.run_id = r->a.run_id;
    if (r->a.store && !*r->a.store) {
        pipe_cli_error("--store: the directory name is empty");
        return -1;
    }
    if (!(r->store = pipe_store_resolve(r->a.store, r->cfg.store)))
        return PIPE_ENOMEM;
    r->o.store = r->store;
    return 0;
}

int pipe_cmd_run(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv)
{
    bool help = false;
    for (int i = 1; i < argc; i++)
        help = help || pipe_opt_is_help(argv[i]);
    /* First a source edited since the build: the bundle builds itself
       again and the new executable runs with the same command line
       (argv[-1] is the executable as it was started: main.c), or `run`
       refuses. */
    int status;
    if (!help && (status = pipe_run_rebuild_check(prog, m, argc + 1, argv - 1)) >= 0)
        return status;
    run_cmd r;
    memset(&r, 0, sizeof r);
    r.m = m;
    int rc = parse_args(argc, argv, &r.a);
    if (rc == 0)
        rc = settings(&r);
    if (rc == 0)
        status = pipe_run(prog, m, &r.o);
    else if (rc == 1)
        status = PIPE_EXIT_OK; /* --help */
    else {
        if (rc == PIPE_ENOMEM)
            pipe_cli_error("out of memory");
        status = PIPE_EXIT_USAGE;
    }
    free(r.store);
    pipe_run_config_free(&r.cfg);
    pipe_params_free(&r.params);
    free(r.a.assignments);
    return status;
}
