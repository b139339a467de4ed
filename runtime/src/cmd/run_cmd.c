/* Options and RUN for runs, show, logs and report (run_cmd.h). */
#include "run_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"
#include "commands.h"
#include "pipe/error.h"
#include "view/run_ref.h"
#include "store/store.h"
#include "util/cli.h"

int pipe_run_args_parse(int argc, char **argv, unsigned allowed, int max_positional, const char *command,
                        pipe_run_args *a)
{
    char usage[512];
    pipe_commands_usage_text(command, usage, sizeof usage);
    memset(a, 0, sizeof *a);
    a->rank = -1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        int got;
        if (pipe_opt_is_help(arg))
            return 1;
        if ((got = pipe_opt_value(argc, argv, &i, "--store", &a->store)) != 0) {
            if (got < 0)
                return -1;
            if (!*a->store) {
                pipe_cli_error("--store: the directory name is empty");
                return -1;
            }
            continue;
        }
        if ((allowed & PIPE_ARG_JSON) && strcmp(arg, "--json") == 0) {
            a->json = true;
            continue;
        }
        if ((allowed & PIPE_ARG_FOLLOW) && (strcmp(arg, "--follow") == 0 || strcmp(arg, "-f") == 0)) {
            a->follow = true;
            continue;
        }
        if ((allowed & PIPE_ARG_OUTPUT) && ((got = pipe_opt_value(argc, argv, &i, "-o", &a->output)) != 0 ||
                                            (got = pipe_opt_value(argc, argv, &i, "--output", &a->output)) != 0)) {
            if (got < 0)
                return -1;
            if (!*a->output) {
                pipe_cli_error("-o: the file name is empty");
                return -1;
            }
            continue;
        }
        if ((allowed & PIPE_ARG_RANK) && (got = pipe_opt_value(argc, argv, &i, "--rank", &value)) != 0) {
            if (got < 0 || pipe_opt_parse_int("--rank", value, 0, 1 << 20, &a->rank) != 0)
                return -1;
            continue;
        }
        if ((allowed & PIPE_ARG_METRIC) && (got = pipe_opt_value(argc, argv, &i, "--metric", &value)) != 0) {
            if (got < 0)
                return -1;
            if (!*value || a->nmetric >= PIPE_RUN_ARGS_MAX) {
                pipe_cli_error(*value ? "--metric: at most %d of them" : "--metric: the name is empty",
                               PIPE_RUN_ARGS_MAX);
                return -1;
            }
            a->metric[a->nmetric++] = value;
            continue;
        }
        if (arg[0] == '-' && arg[1] != '\0') {
            pipe_cli_error("unknown option `%s`\n%s", arg, usage);
            return -1;
        }
        if (a->npositional >= max_positional) {
            pipe_cli_error("unexpected argument `%s`\n%s", arg, usage);
            return -1;
        }
        a->positional[a->npositional++] = arg;
    }
    return 0;
}

int pipe_run_args_resolve(const pipe_run_args *a, const char *ref, char **store, char **run_id)
{
    char err[1024];
    *run_id = NULL;
    if (!(*store = pipe_store_resolve(a->store, NULL))) {
        pipe_cli_error("out of memory");
        return PIPE_EXIT_USAGE;
    }
    if (pipe_run_ref_resolve(*store, ref, run_id, err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        free(*store);
        *store = NULL;
        return PIPE_EXIT_USAGE;
    }
    return PIPE_EXIT_OK;
}

int pipe_run_cmd_begin(int argc, char **argv, unsigned allowed, int max_positional, const char *command,
                       const char *details, const pipe_manifest *m, unsigned what, pipe_run_args *a,
                       pipe_run_view **v)
{
    char err[1024], *store = NULL, *run_id = NULL;
    *v = NULL;
    int rc = pipe_run_args_parse(argc, argv, allowed, max_positional, command, a);
    if (rc != 0) {
        if (rc > 0)
            pipe_commands_help(command, details);
        return rc > 0 ? PIPE_EXIT_OK : PIPE_EXIT_USAGE;
    }
    int status = pipe_run_args_resolve(a, a->npositional ? a->positional[0] : NULL, &store, &run_id);
    if (status == PIPE_EXIT_OK && pipe_run_view_load(store, run_id, m, what, v, err, sizeof err) != 0) {
        pipe_cli_error("%s", err);
        status = PIPE_EXIT_USAGE;
    }
    free(store);
    free(run_id);
    return status == PIPE_EXIT_OK ? -1 : status;
}
