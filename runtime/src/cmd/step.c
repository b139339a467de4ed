/* `step INVOCATION --run-id ID ...`: one invocation (step/step.h), what
   Slurm, Kubernetes, SkyPilot and AWS Batch run on each machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "pipe/base.h"
#include "pipe/error.h"
#include "step/step.h"
#include "util/cli.h"

/* 1 for --help; 0; or PIPE_EUSAGE with the message in err. */
static int parse_options(int argc, char **argv, pipe_step_options *o, char *err, size_t errsize)
{
    char usage_text[512];
    pipe_commands_usage_text("step", usage_text, sizeof usage_text);
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
        if (strcmp(a, "--verify") == 0) {
            o->verify = true;
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
                      "unknown option `%s` for step (options: --run-id, --store, --param, --no-cache, --verify, --echo, "
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

int pipe_cmd_step(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv)
{
    pipe_step_options o = {0};
    char err[2048] = "";
    int rc = parse_options(argc, argv, &o, err, sizeof err), status;
    if (rc == 1) {
        pipe_commands_help("step", NULL);
        status = PIPE_EXIT_OK;
    } else if (rc != 0) {
        pipe_cli_error("%s", rc == PIPE_ENOMEM ? "out of memory" : err);
        status = rc == PIPE_EUSAGE ? PIPE_EXIT_USAGE : PIPE_EXIT_FAILED;
    } else {
        status = pipe_step_run(prog, m, &o);
    }
    free((void *)o.params);
    return status;
}
