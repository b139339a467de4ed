/* Why an attempt failed (supervisor_parts.h): the root cause that step.yaml's
   `error`, `show` and the runner's summary give, once: the rank that failed
   first, its machine and host, its status or signal, its own account (its
   error file) and its last lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/child.h"
#include "util/followup.h"
#include "crash_trace.h"
#include "pipe/base.h"
#include "store/store.h"
#include "supervisor_parts.h"
#include "util/util.h"

/* The rank's own account of its failure, trimmed; NULL when it wrote none. */
static char *rank_account(const pipe_step_ident *id, int rank)
{
    char *path = pipe_store_error_file(id->dir, rank, id->world);
    char *text = NULL;
    size_t len = 0;
    if (path && pipe_read_file_max(path, PIPE_RECORD_MAX_BYTES, &text, &len, NULL, 0) == 0) {
        while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
            text[--len] = '\0';
        if (len == 0) {
            free(text);
            text = NULL;
        }
    }
    free(path);
    return text;
}

void pipe_supervisor_describe_exit(const pipe_step_ident *id, int rank, int status, char *buf, size_t size)
{
    char who[320] = "", sig[64];
    if (id->world > 1) {
        char host[256] = "?";
        gethostname(host, sizeof host - 1);
        host[sizeof host - 1] = '\0';
        snprintf(who, sizeof who, "rank %d (machine %d, host %s) ", rank, id->machine_rank, host);
    }
    /* A command step's program is named: "rank 1 ... `python3` exited with status 1". */
    char prog[160] = "";
    if (id->command)
        snprintf(prog, sizeof prog, "`%.150s` ", id->ms->command[0]);
    if (WIFSIGNALED(status)) {
        pipe_signal_describe(WTERMSIG(status), sig, sizeof sig);
        snprintf(buf, size, "%s%swas killed by %s", who, prog, sig);
    } else {
        snprintf(buf, size, "%s%sexited with status %d", who, prog, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
}

/* The command that executes the invocation again, as the user types it:
   `EXE step INV --run-id RUN --store STORE --param NAME=VALUE ...`. */
static char *reproduce(const pipe_step_ident *id)
{
    size_t nparams = id->run ? id->run->nparams : 0;
    const char **words = calloc(6 + 2 * nparams, sizeof *words);
    char **params = calloc(nparams + 1, sizeof *params);
    char *cmd = NULL;
    size_t n = 0;
    if (!words || !params)
        goto done;
    words[n++] = "step";
    words[n++] = id->inv->id;
    words[n++] = "--run-id";
    words[n++] = id->o.run_id;
    words[n++] = "--store";
    words[n++] = id->o.store ? id->o.store : id->store;
    for (size_t i = 0; i < nparams; i++) {
        if (!(params[i] = pipe_asprintf("%s=%s", id->run->params[i].key, id->run->params[i].value)))
            goto done;
        words[n++] = "--param";
        words[n++] = params[i];
    }
    cmd = pipe_followup_words(NULL, words, n);
done:
    for (size_t i = 0; params && i < nparams; i++)
        free(params[i]);
    free(params);
    free(words);
    return cmd;
}

char *pipe_supervisor_describe_failure(const pipe_step_ident *id, pipe_step_log *log,
                                       const pipe_attempt_result *r)
{
    char d[64], sig[32], how[512];
    if (r->rendezvous)
        return pipe_strdup(r->rendezvous);
    if (r->collective)
        return pipe_strdup(r->collective);
    if (r->timed_out) {
        pipe_format_duration(id->inv->timeout_ms, d, sizeof d);
        return pipe_asprintf("timed out after %s", d);
    }
    if (r->interrupted) {
        pipe_signal_text(r->interrupted, sig, sizeof sig);
        return pipe_asprintf("interrupted by %s", sig);
    }
    /* A rank that only lost contact with another machine: the cause is
       that machine's. */
    if (r->lost_machine > 0 && pipe_supervisor_spans_machines(id))
        return pipe_supervisor_remote_cause(id, log, r->rank, r->lost_machine - 1);
    /* "rank 1 (machine 0, host h) exited with status 3: step `train`
       returned 3", then the rank's last lines. */
    pipe_supervisor_describe_exit(id, r->rank, r->status, how, sizeof how);
    char *account = rank_account(id, r->rank);
    bool signaled = WIFSIGNALED(r->status);
    if (account && signaled && !id->command) {
        char *resolved = pipe_crash_trace_resolve(account);
        if (resolved) {
            free(account);
            account = resolved;
        }
    }
    char *result = account ? pipe_asprintf("%s: %s", how, account) : pipe_strdup(how);
    free(account);
    char *tail = result ? pipe_supervisor_log_tail(log, r->rank) : NULL;
    if (tail) {
        char *with = id->world > 1 ? pipe_asprintf("%s\nlast lines of rank %d:\n%s", result, r->rank, tail)
                                  : pipe_asprintf("%s\nlast lines of its output:\n%s", result, tail);
        if (with) {
            free(result);
            result = with;
        }
        free(tail);
    }
    char *again = result && signaled ? reproduce(id) : NULL;
    if (again) {
        char *with = pipe_asprintf("%s\nreproduce: `%s`", result, again);
        if (with) {
            free(result);
            result = with;
        }
        free(again);
    }
    return result;
}
