/* Cluster environments (private): where each scheduler a bundle deploys to
   says which machine this is, how many there are and where machine 0 is.
   One row per scheduler, tried in the table's order; the launcher
   (pipe_launch_setup) reads them only for a step on several machines, after
   its own options (--machine-rank, --main-process-ip, MASTER_ADDR).

   Adding a scheduler's environment is one row, plus a parser when its main
   variable is not an address as it is (Slurm's is a node list). A scheduler
   that leaves the main variable unset on machine 0 itself (AWS Batch does)
   sets main_unset_on_main: machine 0 then gives its ranks its own address,
   the one the other machines reach it at, rather than 127.0.0.1.
   docs/distributed.md lists the rows. */
#ifndef PIPE_CLUSTER_ENV_H
#define PIPE_CLUSTER_ENV_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pipe_cluster_env {
    const char *scheduler; /* "Slurm" */
    const char *rank;      /* this machine's rank, 0 to the machine count - 1 */
    const char *nodes;     /* the machine count; named, not read: the manifest's num_machines decides it */
    const char *main;      /* where machine 0 is; NULL: the scheduler does not say */
    /* main's value -> machine 0's address in out; non-zero when it cannot be
       read. NULL: the value is the address. */
    int (*main_host)(const char *value, char *out, size_t size);
    /* The scheduler leaves main unset on machine 0 itself (AWS Batch's main
       node): when this row's rank variable is set and main is not, machine
       0's address is this machine's own (pipe_own_ipv4). */
    bool main_unset_on_main;
} pipe_cluster_env;

extern const pipe_cluster_env pipe_cluster_envs[];
extern const size_t pipe_cluster_nenvs;

/* This machine's rank from the first row whose rank variable is set and not
   empty: 0 with *rank; 1 when no row's is; PIPE_EUSAGE naming the variable
   when its value is not a rank below machines. */
int pipe_cluster_machine_rank(int machines, int *rank, char *err, size_t errsize);

/* Machine 0's address from the first row whose main variable is set and not
   empty, or whose rank variable is while its main one is not and
   main_unset_on_main (this machine's own address): 0 with the address in
   out; 1 when no row's is; PIPE_EUSAGE naming
   the variable when its value cannot be read. */
int pipe_cluster_main_addr(char *out, size_t size, char *err, size_t errsize);

/* "n[1-3],x" -> "n1": the first host of a Slurm node list. */
int pipe_slurm_first_host(const char *nodelist, char *out, size_t size);

#endif
