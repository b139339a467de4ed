/* neuron-monitor, the program: found, started, read, stopped
   (neuron_monitor.h); its reports are read by neuron_report.c. */
#define _GNU_SOURCE /* pipe2 */
#include "neuron_monitor.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/util.h"

struct pipe_neuron_monitor {
    pid_t pid;
    int fd; /* its stdout, non-blocking */
    char *buf;
    size_t len, cap;
    bool skipping; /* in a line past PIPE_NEURON_MAX_LINE: dropped up to its newline */
    size_t skipped;
    pipe_neuron_report report, known;
};

static bool executable(const char *path) { return access(path, X_OK) == 0 && !pipe_dir_exists(path); }

int pipe_neuron_monitor_find(char **out, char *why, size_t whysize)
{
    *out = NULL;
    const char *given = getenv("PIPE_NEURON_MONITOR");
    if (given && *given) {
        if (!executable(given)) {
            snprintf(why, whysize, "PIPE_NEURON_MONITOR=%s is not an executable file", given);
            return -1;
        }
        *out = pipe_strdup(given);
        return *out ? 0 : -1;
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        char *candidate = pipe_asprintf("%.*s/neuron-monitor", (int)n, n ? p : ".");
        if (candidate && executable(candidate)) {
            *out = candidate;
            return 0;
        }
        free(candidate);
        p += n;
        if (*p == ':')
            p++;
    }
    /* Where the aws-neuronx-tools package installs it, not always on PATH. */
    if (executable("/opt/aws/neuron/bin/neuron-monitor")) {
        *out = pipe_strdup("/opt/aws/neuron/bin/neuron-monitor");
        return *out ? 0 : -1;
    }
    snprintf(why, whysize, "neuron-monitor (aws-neuronx-tools) is not on PATH, nor is PIPE_NEURON_MONITOR set");
    return -1;
}

int pipe_neuron_monitor_start(pipe_neuron_monitor **out, const char *dir, uint64_t interval_ms, char *why,
                              size_t whysize)
{
    *out = NULL;
    char *program = NULL;
    if (pipe_neuron_monitor_find(&program, why, whysize) != 0)
        return -1;
    /* neuron-monitor's configuration: its period, and per Neuron runtime the
       core counters and memory (the AWS Neuron "Neuron Monitor User Guide"). */
    char *conf = pipe_asprintf("%s/" PIPE_PROFILE_NEURON_CONF, dir);
    char *text = pipe_asprintf("{\n  \"period\": \"%llums\",\n  \"neuron_runtimes\": [\n    {\n      \"tag_filter\": "
                               "\".*\",\n      \"metrics\": [\n        {\"type\": \"neuroncore_counters\"},\n        "
                               "{\"type\": \"memory_used\"}\n      ]\n    }\n  ],\n  \"system_metrics\": []\n}\n",
                               (unsigned long long)(interval_ms ? interval_ms : 1000));
    pipe_neuron_monitor *m = calloc(1, sizeof *m);
    char err[256];
    int fds[2] = {-1, -1};
    int rc = -1;
    if (!conf || !text || !m) {
        snprintf(why, whysize, "out of memory");
        goto done;
    }
    if (pipe_write_file_atomic(conf, text, strlen(text), err, sizeof err) != 0) {
        snprintf(why, whysize, "%s", err);
        goto done;
    }
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(why, whysize, "cannot make a pipe: %s", strerror(errno));
        goto done;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, whysize, "cannot start %s: %s", program, strerror(errno));
        goto done;
    }
    if (pid == 0) {
        /* Its own process group: a terminal's ^C goes to the step, and the
           profiler stops the monitor itself. */
        setpgid(0, 0);
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDERR_FILENO);
        }
        dup2(fds[1], STDOUT_FILENO);
        char *argv[] = {program, "-c", conf, NULL};
        execv(program, argv);
        _exit(127);
    }
    close(fds[1]);
    fds[1] = -1;
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    m->pid = pid;
    m->fd = fds[0];
    fds[0] = -1;
    *out = m;
    m = NULL;
    rc = 0;
done:
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    free(m);
    free(program);
    free(conf);
    free(text);
    return rc;
}

static void take_line(pipe_neuron_monitor *m, const char *line, size_t len, double t, FILE *csv)
{
    if (len == 0)
        return;
    if (pipe_neuron_report_parse(line, len, &m->report) != 0) {
        m->skipped++;
        return;
    }
    if (pipe_neuron_report_csv(&m->report, &m->known, t, csv) > 0)
        fflush(csv);
}

void pipe_neuron_monitor_read(pipe_neuron_monitor *m, double t, FILE *csv)
{
    if (!m || m->fd < 0)
        return;
    char chunk[65536];
    for (;;) {
        ssize_t got = read(m->fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (got == 0) { /* the program ended: nothing more will come */
                close(m->fd);
                m->fd = -1;
            }
            return;
        }
        for (ssize_t i = 0; i < got;) {
            const char *nl = memchr(chunk + i, '\n', (size_t)(got - i));
            size_t n = nl ? (size_t)(nl - (chunk + i)) : (size_t)(got - i);
            if (!m->skipping && m->len + n > PIPE_NEURON_MAX_LINE) {
                m->skipping = true;
                m->skipped++;
                m->len = 0;
            }
            if (!m->skipping) {
                if (m->len + n + 1 > m->cap) {
                    size_t cap = m->cap ? m->cap : 65536;
                    while (cap < m->len + n + 1)
                        cap *= 2;
                    char *b = realloc(m->buf, cap);
                    if (!b) { /* no room for this report: drop it */
                        m->skipping = true;
                        m->skipped++;
                        m->len = 0;
                    } else {
                        m->buf = b;
                        m->cap = cap;
                    }
                }
                if (!m->skipping) {
                    memcpy(m->buf + m->len, chunk + i, n);
                    m->len += n;
                }
            }
            i += (ssize_t)n;
            if (nl) {
                if (!m->skipping)
                    take_line(m, m->buf, m->len, t, csv);
                m->skipping = false;
                m->len = 0;
                i++;
            }
        }
    }
}

size_t pipe_neuron_monitor_skipped(const pipe_neuron_monitor *m) { return m ? m->skipped : 0; }

void pipe_neuron_monitor_stop(pipe_neuron_monitor *m)
{
    if (!m)
        return;
    if (m->pid > 0 && kill(m->pid, SIGTERM) == 0) {
        /* A moment to exit; the supervisor may reap it first (ECHILD). */
        for (int i = 0; i < 50; i++) {
            pid_t w = waitpid(m->pid, NULL, WNOHANG);
            if (w == m->pid || (w < 0 && errno == ECHILD))
                goto gone;
            pipe_sleep_ms(10);
        }
        kill(m->pid, SIGKILL);
        waitpid(m->pid, NULL, 0);
    }
gone:
    if (m->fd >= 0)
        close(m->fd);
    free(m->buf);
    free(m);
}
