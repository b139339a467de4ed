#include "launcher.h"

#include "pipe/settings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cluster_env.h"
#include "coll_shm.h"
#include "coll_watch.h"
#include "net.h"
#include "pipe/base.h"
#include "pipe/error.h"
#include "util/util.h"

static void random_token(char *out, size_t size)
{
    unsigned char bytes[16];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, bytes, sizeof bytes) : -1;
    if (fd >= 0)
        close(fd);
    if (got != (ssize_t)sizeof bytes) {
        /* No urandom: the time and pid still differ between runs. */
        double t = pipe_now();
        pid_t pid = getpid();
        memcpy(bytes, &t, sizeof t);
        memcpy(bytes + 8, &pid, sizeof pid);
    }
    char hex[PIPE_SHA256_HEX_SIZE];
    pipe_sha256_hex_of(bytes, sizeof bytes, hex);
    snprintf(out, size, "%.32s", hex);
}

/* MASTER_PORT and PIPE_RDZV_PORT: the given port and the one above it, or
   on one machine a free port for the framework and, when machine 0 starts
   the rendezvous, another for it. */
static int choose_ports(pipe_launch *l, const pipe_minvocation *inv, char *err, size_t errsize)
{
    int port = (int)inv->accelerate.main_process_port;
    /* As with torchrun, MASTER_PORT in the environment wins. */
    const char *port_env = getenv("MASTER_PORT");
    if (port_env && *port_env) {
        char *end;
        long p = strtol(port_env, &end, 10);
        if (*end || p < 0 || p > 65534) {
            pipe_errf(err, errsize, "MASTER_PORT=%s is not a port number from 0 to 65534 (the port above it is "
                                    "pipe's rendezvous)",
                      port_env);
            return PIPE_EUSAGE;
        }
        port = (int)p;
    }
    if (port > 0) {
        l->master_port = port;
        l->rdzv_port = port + 1;
        return 0;
    }
    if (l->num_machines > 1) {
        pipe_errf(err, errsize, "invocation `%s`: main_process_port = 0 cannot be used across %d machines", inv->id,
                  l->num_machines);
        return PIPE_EUSAGE;
    }
    char why[256];
    if (pipe_tcp_free_port(&l->master_port, why, sizeof why) != 0) {
        pipe_errf(err, errsize, "invocation `%s`: cannot find a free port for MASTER_PORT: %s", inv->id, why);
        return PIPE_EIO;
    }
    l->rdzv_port = 0;
    return 0;
}

/* --machine-rank, else on several machines the first scheduler's that
   says (cluster_env.h); else 0. */
static int machine_rank(pipe_launch *l, const pipe_launch_options *o, char *err, size_t errsize)
{
    if (o && o->machine_rank >= 0) {
        if (o->machine_rank >= l->num_machines) {
            pipe_errf(err, errsize, "--machine-rank %d is not below num_machines %d", o->machine_rank,
                      l->num_machines);
            return PIPE_EUSAGE;
        }
        l->machine_rank = o->machine_rank;
        return 0;
    }
    int rc = l->num_machines > 1 ? pipe_cluster_machine_rank(l->num_machines, &l->machine_rank, err, errsize) : 1;
    return rc < 0 ? rc : 0;
}

/* --main-process-ip, else MASTER_ADDR (on one machine too, as torchrun
   reads it), else on several machines the first scheduler's that says
   (cluster_env.h), else 127.0.0.1. */
static int main_address(pipe_launch *l, const pipe_launch_options *o, char *err, size_t errsize)
{
    const char *addr = o && o->main_process_ip ? o->main_process_ip : getenv("MASTER_ADDR");
    if (addr && *addr) {
        snprintf(l->master_addr, sizeof l->master_addr, "%s", addr);
        return 0;
    }
    int rc = l->num_machines > 1 ? pipe_cluster_main_addr(l->master_addr, sizeof l->master_addr, err, errsize) : 1;
    if (rc == 1)
        snprintf(l->master_addr, sizeof l->master_addr, "127.0.0.1");
    return rc < 0 ? rc : 0;
}

int pipe_launch_setup(pipe_launch *l, const pipe_minvocation *inv, const char *run_id, bool gpu_step, bool command,
                      const pipe_launch_options *o, char *err, size_t errsize)
{
    memset(l, 0, sizeof *l);
    l->shm_fd = -1;
    const pipe_accelerate *acc = &inv->accelerate;
    /* pipe_manifest_parse checked the counts: at most PIPE_MAX_PROCESSES, a
       multiple of num_machines; without @run_with_accelerate they are the
       settings table's values for an absent decorator (one process, one
       machine, no restart). */
    l->num_machines = (int)acc->num_machines;
    l->world = (int)acc->num_processes;
    l->nlocal = l->world / l->num_machines;
    l->distributed = l->world > 1;
    l->pipe_rendezvous = l->distributed && !command;
    l->cpu_only = pipe_invocation_cpu_only(inv);
    l->gpu_per_rank = !command;
    l->max_restarts = (int)acc->max_restarts;
    snprintf(l->run_id, sizeof l->run_id, "%s/%s", run_id, inv->id);
    snprintf(l->mixed_precision, sizeof l->mixed_precision, "%s", acc->mixed_precision);
    l->rdzv_timeout_ms = acc->rdzv_timeout_ms ? acc->rdzv_timeout_ms
                                              : pipe_option_default_ms(PIPE_DEC_ACCELERATE, PIPE_ACC_RDZV_TIMEOUT);
    l->collective_timeout_ms = acc->collective_timeout_ms >= PIPE_COLLECTIVE_TIMEOUT_MIN_MS
                                   ? acc->collective_timeout_ms
                                   : pipe_option_default_ms(PIPE_DEC_ACCELERATE, PIPE_ACC_COLLECTIVE_TIMEOUT);
    snprintf(l->gpu_ids, sizeof l->gpu_ids, "%s", acc->gpu_ids && strcmp(acc->gpu_ids, "all") != 0 ? acc->gpu_ids : "");
    l->backend = gpu_step && acc->multi_gpu && !acc->cpu ? "nccl" : "cpu";
    l->neuron_devices = (int)(inv->resources.trainium + inv->resources.inferentia);
    l->efa = (int)inv->batch.efa;

    int rc;
    if ((rc = machine_rank(l, o, err, errsize)) != 0 || (rc = main_address(l, o, err, errsize)) != 0)
        return rc;
    if (acc->enabled && (rc = choose_ports(l, inv, err, errsize)) != 0)
        return rc;

    const char *token = getenv("PIPE_RDZV_TOKEN");
    if (token && *token) {
        snprintf(l->token, sizeof l->token, "%s", token);
    } else if (l->num_machines == 1) {
        random_token(l->token, sizeof l->token);
    } else {
        /* Every machine's launcher must agree without talking first: derive
           it from what they share. Set PIPE_RDZV_TOKEN for a secret one. */
        char *seed = pipe_asprintf("pipe-rdzv/%s/%s", run_id, inv->id);
        char hex[PIPE_SHA256_HEX_SIZE];
        if (!seed)
            return PIPE_ENOMEM;
        pipe_sha256_hex_of(seed, strlen(seed), hex);
        free(seed);
        snprintf(l->token, sizeof l->token, "%.32s", hex);
    }
    return 0;
}

void pipe_launch_use_cpu(pipe_launch *l)
{
    l->cpu_only = true;
    l->backend = "cpu";
}

/* Whether the ranks meet through the TCP rendezvous: across machines, and
   for NCCL (its unique id travels through it). The CPU collectives of one
   machine meet in its shared memory, where they run anyway: no server, no
   thread, no connection on the launch's critical path. */
static bool tcp_rendezvous(const pipe_launch *l) { return l->num_machines > 1 || strcmp(l->backend, "cpu") != 0; }

int pipe_launch_begin(pipe_launch *l, char *err, size_t errsize)
{
    if (!l->pipe_rendezvous)
        return 0;
    int rc;
    if (!tcp_rendezvous(l))
        l->rdzv_port = 0; /* PIPE_RDZV_PORT=0: the shared memory (rank_env.h) */
    else if (l->machine_rank == 0) {
        int bound = 0;
        /* One machine: nobody else has any business with it. */
        pipe_rdzv_server_config cfg = {
            .bind_addr = l->num_machines == 1 ? "127.0.0.1" : NULL,
            .port = l->rdzv_port,
            .token = l->token,
            .peers = l->world,
        };
        rc = pipe_rdzv_server_start(&cfg, &l->server, &bound, err, errsize);
        if (rc != 0)
            return rc;
        l->rdzv_port = bound;
    }
    if ((rc = pipe_coll_shm_create(l->nlocal, &l->shm_fd, err, errsize)) != 0) {
        pipe_launch_end(l);
        return rc;
    }
    /* The supervisor's view of the hung-rank table. */
    l->watch_size = pipe_coll_watch_bytes(l->nlocal);
    l->watch = mmap(NULL, l->watch_size, PROT_READ | PROT_WRITE, MAP_SHARED, l->shm_fd, 0);
    if (l->watch == MAP_FAILED) {
        l->watch = NULL;
        pipe_errf(err, errsize, "cannot map the shared memory of the collectives: %s", strerror(errno));
        pipe_launch_end(l);
        return PIPE_ENOMEM;
    }
    l->attempt_started = pipe_now();
    l->all_joined = false;
    return 0;
}

/* Whether rank r joined: at the server, or in the shared memory. */
static bool joined(const pipe_launch *l, int r)
{
    if (!l->server)
        return r < l->nlocal && atomic_load(&pipe_coll_watch_slots(l->watch)[r].joined);
    char key[32];
    snprintf(key, sizeof key, "rank/%d", r);
    return pipe_rdzv_server_has(l->server, key);
}

char *pipe_launch_check(pipe_launch *l, double now)
{
    bool shm_join = l->pipe_rendezvous && l->rdzv_port == 0 && l->watch;
    if ((!l->server && !shm_join) || l->all_joined)
        return NULL;
    bool all = true;
    for (int r = 0; r < l->world && all; r++)
        all = joined(l, r);
    if (all) {
        l->all_joined = true;
        return NULL;
    }
    if (now - l->attempt_started < (double)l->rdzv_timeout_ms / 1000.0)
        return NULL;
    /* Name the ranks that never came, and their machines. */
    char ranks[512] = "", machines[256] = "";
    size_t rl = 0, ml = 0;
    int nmissing = 0, last_machine = -1;
    for (int r = 0; r < l->world; r++) {
        if (joined(l, r))
            continue;
        if (rl < sizeof ranks - 16)
            rl += (size_t)snprintf(ranks + rl, sizeof ranks - rl, "%s%d", nmissing ? ", " : "", r);
        nmissing++;
        int m = r / l->nlocal;
        if (m != last_machine && ml < sizeof machines - 16) {
            ml += (size_t)snprintf(machines + ml, sizeof machines - ml, "%s%d", last_machine >= 0 ? ", " : "", m);
            last_machine = m;
        }
    }
    l->all_joined = true; /* reported once */
    if (!l->server)
        return pipe_asprintf("rendezvous timed out after %.0f s: rank%s %s of %d never joined the others in "
                             "shared memory",
                             (double)l->rdzv_timeout_ms / 1000.0, nmissing == 1 ? "" : "s", ranks, l->world);
    if (l->num_machines == 1)
        return pipe_asprintf("rendezvous timed out after %.0f s: rank%s %s of %d never joined at %s:%d",
                             (double)l->rdzv_timeout_ms / 1000.0, nmissing == 1 ? "" : "s", ranks, l->world,
                             pipe_launch_rdzv_addr(l), l->rdzv_port);
    return pipe_asprintf("rendezvous timed out after %.0f s: rank%s %s of %d never joined at %s:%d (they run on "
                         "machine %s: is its launcher started, and can it reach %s:%d?)",
                         (double)l->rdzv_timeout_ms / 1000.0, nmissing == 1 ? "" : "s", ranks, l->world,
                         l->master_addr, l->rdzv_port, machines, l->master_addr, l->rdzv_port);
}

const char *pipe_launch_rdzv_addr(const pipe_launch *l)
{
    return l->num_machines == 1 ? "127.0.0.1" : l->master_addr;
}

char *pipe_launch_take_notes(pipe_launch *l)
{
    return l->server ? pipe_rdzv_server_take_log(l->server) : NULL;
}

void pipe_launch_close_in_child(pipe_launch *l)
{
    pipe_rdzv_server_close_in_child(l->server);
}

void pipe_launch_end(pipe_launch *l)
{
    if (l->server) {
        pipe_rdzv_server_stop(l->server);
        l->server = NULL;
    }
    if (l->watch) {
        munmap(l->watch, l->watch_size);
        l->watch = NULL;
    }
    if (l->shm_fd >= 0) {
        close(l->shm_fd);
        l->shm_fd = -1;
    }
}
