/* Why an attempt failed (supervisor.h): the text that step.yaml's `error`,
   the console and the runner's summary show. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "pipe/base.h"
#include "supervisor.h"
#include "util.h"

char *pipe_supervisor_describe_failure(const pipe_supervisor *s, const pipe_attempt_result *r)
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
        pipe_format_duration(s->inv->timeout_ms, d, sizeof d);
        result = pipe_asprintf("timed out after %s", d);
    } else if (r->interrupted) {
        pipe_signal_text(r->interrupted, sig, sizeof sig);
        result = pipe_asprintf("interrupted by %s", sig);
    } else if (WIFSIGNALED(r->status)) {
        pipe_signal_text(WTERMSIG(r->status), sig, sizeof sig);
        if (text)
            result = pipe_asprintf("%skilled by %s after: %s", who, sig, text);
        else if (pipe_step_is_command(s->ms))
            result = pipe_asprintf("%s`%s` killed by %s", who, s->ms->command[0], sig);
        else
            result = pipe_asprintf("%skilled by %s", who, sig);
    } else if (text) {
        result = s->world > 1 && strncmp(text, "rank ", 5) != 0 ? pipe_asprintf("%s%s", who, text) : pipe_strdup(text);
    } else if (pipe_step_is_command(s->ms)) {
        result = pipe_asprintf("%s`%s` exited with status %d", who, s->ms->command[0],
                               WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1);
    } else {
        result = pipe_asprintf("%sexited with status %d", who, WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1);
    }
    free(text);
    /* A program's last lines say what went wrong (a Python traceback ends
       there), one rank or many. */
    bool with_tail = s->world > 1 || pipe_step_is_command(s->ms);
    if (result && with_tail && !r->rendezvous && !r->timed_out && !r->interrupted) {
        char *tail = pipe_supervisor_log_tail(s, r->rank);
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
