/* The accelerate-style launcher's distributed part (private): where the
   ranks meet (MASTER_ADDR, MASTER_PORT left free for the step's framework,
   PIPE_RDZV_PORT and the token for pipe's own rendezvous), the rendezvous
   store machine 0 runs for each attempt and the shared memory of the local
   ranks.
   The supervisor forks the ranks and watches them, rank_env_write.c passes this
   on to each rank; this file knows what they need to find each other. */
#ifndef PIPE_LAUNCHER_H
#define PIPE_LAUNCHER_H

#include <stdbool.h>
#include <stdint.h>

#include "pipe/manifest.h"
#include "rendezvous.h"

#define PIPE_LAUNCH_RUN_ID_MAX 512

typedef struct pipe_launch {
    bool distributed;     /* more than one rank */
    bool pipe_rendezvous; /* the ranks meet through pipe's rendezvous and shared memory (a
                             native step's collectives); a command step's program meets
                             through its own framework at MASTER_ADDR:MASTER_PORT */
    bool cpu_only;        /* cpu = true: the ranks see no GPU */
    bool gpu_per_rank;    /* CUDA_VISIBLE_DEVICES narrowed to each rank's GPU (native steps);
                             a command step's ranks see them all and take cuda:LOCAL_RANK */
    int world, nlocal, machine_rank, num_machines;
    char master_addr[256];
    int master_port; /* MASTER_PORT, for the step's framework: the given port or a free one */
    int rdzv_port;   /* PIPE_RDZV_PORT: master_port + 1, or 0 until machine 0 binds a free one */
    char token[PIPE_RDZV_TOKEN_MAX + 1];
    char run_id[PIPE_LAUNCH_RUN_ID_MAX]; /* TORCHELASTIC_RUN_ID: RUN/INVOCATION */
    char mixed_precision[8];             /* ACCELERATE_MIXED_PRECISION: "no", "fp16", "bf16", "fp8" */
    int restarts, max_restarts;          /* TORCHELASTIC_RESTART_COUNT, _MAX_RESTARTS */
    const char *backend; /* "cpu" or "nccl" */
    char gpu_ids[256];   /* "" for all */
    int neuron_devices;  /* AWS Neuron devices per machine (@resources trainium or inferentia) */
    int efa;             /* EFA devices per machine (@batch efa) */
    uint64_t rdzv_timeout_ms;
    uint64_t collective_timeout_ms;
    pipe_rdzv_server *server; /* machine 0, during an attempt */
    int shm_fd;
    void *watch; /* the hung-rank table at the start of shm_fd (coll_watch.h), during an attempt */
    size_t watch_size;
    double attempt_started;
    bool all_joined;
} pipe_launch;

/* Command-line overrides of `step` (NULL / -1 when not given). */
typedef struct pipe_launch_options {
    const char *main_process_ip;
    int machine_rank;
} pipe_launch_options;

/* Decides the world of inv on this machine: machine rank (--machine-rank,
   else on several machines the cluster environment's: PIPE_MACHINE_RANK,
   SLURM_NODEID, JOB_COMPLETION_INDEX, SKYPILOT_NODE_RANK,
   AWS_BATCH_JOB_NODE_INDEX; cluster_env.h),
   the main address (--main-process-ip, MASTER_ADDR, else on several
   machines the cluster environment's: the first host of SLURM_JOB_NODELIST,
   the first of SKYPILOT_NODE_IPS, AWS Batch's main node address or, on
   the main node, its own; else 127.0.0.1), the ports (MASTER_PORT in the environment, else
   main_process_port; 0: a free port, and the rendezvous a second one), the
   token (PIPE_RDZV_TOKEN, else random on one machine and derived from the
   run and invocation across machines) and the collectives backend. A
   command step runs no pipe rendezvous. PIPE_EUSAGE with a message for bad
   values. */
int pipe_launch_setup(pipe_launch *l, const pipe_minvocation *inv, const char *run_id, bool gpu_step, bool command,
                      const pipe_launch_options *o, char *err, size_t errsize);
/* The ranks run on the CPU though GPUs were asked for (none is usable
   here): as with cpu = true, they see no GPU and use the CPU collectives. */
void pipe_launch_use_cpu(pipe_launch *l);
/* Before forking an attempt's ranks: machine 0 starts the rendezvous;
   every machine makes its local ranks' shared memory. */
int pipe_launch_begin(pipe_launch *l, char *err, size_t errsize);
/* Polled while the ranks run: a malloc'ed message once the rendezvous has
   waited rdzv_timeout without every rank joining (naming the missing ranks
   and the address and port), else NULL. Machine 0 only. */
char *pipe_launch_check(pipe_launch *l, double now);
/* What the rendezvous turned away since the last call (lines ending in
   '\n', malloc'ed), for the step's log; NULL when nothing. */
char *pipe_launch_take_notes(pipe_launch *l);
/* Where the ranks reach the rendezvous: 127.0.0.1 on one machine (the
   server listens on loopback only), else the main address. */
const char *pipe_launch_rdzv_addr(const pipe_launch *l);
/* In a forked rank: drops the rendezvous server's descriptors. */
void pipe_launch_close_in_child(pipe_launch *l);
void pipe_launch_end(pipe_launch *l);

#endif
