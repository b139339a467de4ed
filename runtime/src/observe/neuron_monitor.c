/* neuron-monitor's stream into neuron.csv (neuron_monitor.h). */
#define _GNU_SOURCE /* pipe2 */
#include "neuron_monitor.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/json_walk.h"
#include "util/util.h"

/* ---- one report ---- */

/* A core index as neuron-monitor writes it ("0", "17"), or -1. */
static int core_index(const pipe_json_step *step)
{
    if (!step->key || step->key_len == 0 || step->key_len > 4)
        return -1;
    int n = 0;
    for (size_t i = 0; i < step->key_len; i++) {
        if (step->key[i] < '0' || step->key[i] > '9')
            return -1;
        n = n * 10 + (step->key[i] - '0');
    }
    return n < PIPE_NEURON_MAX_CORES ? n : -1;
}

/* path[from..] is exactly the keys given (NULL: any array element). */
static bool path_is(const pipe_json_step *path, int depth, int from, const char *const *keys, int n)
{
    if (depth != from + n)
        return false;
    for (int i = 0; i < n; i++) {
        const pipe_json_step *s = &path[from + i];
        if (keys[i] ? !pipe_json_key_is(s, keys[i]) : s->key != NULL)
            return false;
    }
    return true;
}

static void add(double *slot, double v)
{
    *slot = isnan(*slot) ? v : *slot + v;
}

static void on_value(void *arg, const pipe_json_step *path, int depth, const pipe_json_value *v)
{
    pipe_neuron_report *r = arg;
    static const char *const util[] = {"neuron_runtime_data", NULL, "report", "neuroncore_counters",
                                       "neuroncores_in_use"};
    static const char *const mem[] = {"neuron_runtime_data", NULL, "report", "memory_used", "neuron_runtime_used_bytes",
                                      "usage_breakdown", "neuroncore_memory_usage"};
    if (depth == 2 && pipe_json_key_is(&path[0], "neuron_hardware_info")) {
        if (pipe_json_key_is(&path[1], "neuroncore_per_device_count") && v->type == PIPE_JSON_NUMBER &&
            v->number >= 1 && v->number <= 64)
            r->cores_per_device = (int)v->number;
        else if (pipe_json_key_is(&path[1], "neuron_device_type") && v->type == PIPE_JSON_STRING) {
            /* A name for a CSV field: letters, digits and a few marks only;
               escapes ("\n", "\u00e9") dropped whole. */
            size_t n = 0;
            for (size_t i = 0; i < v->len && n + 1 < sizeof r->device_type; i++) {
                char c = v->text[i];
                if (c == '\\') {
                    i += i + 1 < v->len && v->text[i + 1] == 'u' ? 5 : 1;
                    continue;
                }
                if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || c == '.')
                    r->device_type[n++] = c;
            }
            r->device_type[n] = '\0';
        }
        return;
    }
    if (v->type != PIPE_JSON_NUMBER || !isfinite(v->number) || v->number < 0)
        return;
    /* neuron_runtime_data[i].report.neuroncore_counters.neuroncores_in_use.CORE.neuroncore_utilization */
    if (depth == 7 && path_is(path, depth - 2, 0, util, 5) && pipe_json_key_is(&path[6], "neuroncore_utilization")) {
        int core = core_index(&path[5]);
        if (core >= 0) {
            add(&r->utilization_pct[core], v->number);
            if (r->utilization_pct[core] > 100)
                r->utilization_pct[core] = 100;
            if (core + 1 > r->ncores)
                r->ncores = core + 1;
        }
        return;
    }
    /* ...memory_used.neuron_runtime_used_bytes.usage_breakdown.neuroncore_memory_usage.CORE.KIND */
    if (depth == 9 && path_is(path, depth - 2, 0, mem, 7)) {
        int core = core_index(&path[7]);
        if (core >= 0) {
            add(&r->memory_bytes[core], v->number);
            if (core + 1 > r->ncores)
                r->ncores = core + 1;
        }
    }
}

int pipe_neuron_report_parse(const char *line, size_t len, pipe_neuron_report *r)
{
    r->cores_per_device = 0;
    r->device_type[0] = '\0';
    r->ncores = 0;
    for (int i = 0; i < PIPE_NEURON_MAX_CORES; i++)
        r->utilization_pct[i] = r->memory_bytes[i] = NAN;
    /* One object: a report; anything else (a stray number, an array) is not. */
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n'))
        i++;
    if (i == len || line[i] != '{')
        return -1;
    if (pipe_json_walk(line, len, on_value, r) != 0) {
        r->ncores = 0;
        return -1;
    }
    return 0;
}

static void number_field(FILE *f, double v, int decimals)
{
    if (isfinite(v))
        fprintf(f, ",%.*f", decimals, v);
    else
        fputc(',', f);
}

size_t pipe_neuron_report_csv(const pipe_neuron_report *r, pipe_neuron_report *known, double t, FILE *csv)
{
    if (r->cores_per_device > 0)
        known->cores_per_device = r->cores_per_device;
    if (r->device_type[0])
        memcpy(known->device_type, r->device_type, sizeof known->device_type);
    size_t rows = 0;
    for (int core = 0; core < r->ncores; core++) {
        if (isnan(r->utilization_pct[core]) && isnan(r->memory_bytes[core]))
            continue;
        fprintf(csv, "%.3f,", t);
        if (known->cores_per_device > 0)
            fprintf(csv, "%d", core / known->cores_per_device);
        fprintf(csv, ",%d", core);
        number_field(csv, r->utilization_pct[core], 1);
        number_field(csv, r->memory_bytes[core] / (1024.0 * 1024.0), 1);
        fprintf(csv, ",%s\n", known->device_type);
        rows++;
    }
    return rows;
}

/* ---- the program ---- */

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
