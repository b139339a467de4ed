/* The table of cluster environments (cluster_env.h). */
#include "cluster_env.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "pipe/error.h"
#include "util/util.h"

/* SkyPilot's node list: one address a line, machine 0's first. */
static int first_line(const char *ips, char *out, size_t size)
{
    snprintf(out, size, "%.*s", (int)strcspn(ips, "\n "), ips);
    return 0;
}

const pipe_cluster_env pipe_cluster_envs[] = {
    /* pipe's own: what the Slurm and SkyPilot targets' scripts export, or a person starting `step` by hand. */
    {"pipe", "PIPE_MACHINE_RANK", NULL, NULL, NULL, false},
    {"Slurm", "SLURM_NODEID", "SLURM_JOB_NUM_NODES", "SLURM_JOB_NODELIST", pipe_slurm_first_host, false},
    /* The Job's pods get MASTER_ADDR, pod 0's name (docs/deploy-kubernetes.md). */
    {"Kubernetes Indexed Job", "JOB_COMPLETION_INDEX", NULL, NULL, NULL, false},
    {"SkyPilot", "SKYPILOT_NODE_RANK", "SKYPILOT_NUM_NODES", "SKYPILOT_NODE_IPS", first_line, false},
    /* A multi-node parallel job: the main node is not given its own address
       ("Multi-node parallel jobs > Environment variables", AWS Batch User Guide). */
    {"AWS Batch", "AWS_BATCH_JOB_NODE_INDEX", "AWS_BATCH_JOB_NUM_NODES", "AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS",
     NULL, true},
};
const size_t pipe_cluster_nenvs = sizeof pipe_cluster_envs / sizeof pipe_cluster_envs[0];

/* The value of name when it is set and not empty, else NULL. */
static const char *set_value(const char *name)
{
    const char *v = name ? getenv(name) : NULL;
    return v && *v ? v : NULL;
}

int pipe_cluster_machine_rank(int machines, int *rank, char *err, size_t errsize)
{
    for (size_t i = 0; i < pipe_cluster_nenvs; i++) {
        const char *name = pipe_cluster_envs[i].rank, *v = set_value(name);
        if (!v)
            continue;
        char *end;
        long r = strtol(v, &end, 10);
        if (*end || r < 0 || r >= machines) {
            pipe_errf(err, errsize, "%s=%s is not a machine rank below %d", name, v, machines);
            return PIPE_EUSAGE;
        }
        *rank = (int)r;
        return 0;
    }
    return 1;
}

int pipe_cluster_main_addr(char *out, size_t size, char *err, size_t errsize)
{
    for (size_t i = 0; i < pipe_cluster_nenvs; i++) {
        const pipe_cluster_env *e = &pipe_cluster_envs[i];
        const char *v = set_value(e->main);
        if (!v && e->main_unset_on_main && set_value(e->rank)) {
            pipe_own_ipv4(out, size);
            return 0;
        }
        if (!v)
            continue;
        if (!e->main_host) {
            snprintf(out, size, "%s", v);
            return 0;
        }
        if (e->main_host(v, out, size) != 0) {
            pipe_errf(err, errsize, "cannot read the first host of %s=%s", e->main, v);
            return PIPE_EUSAGE;
        }
        return 0;
    }
    return 1;
}

int pipe_slurm_first_host(const char *nodelist, char *out, size_t size)
{
    /* The first entry: up to a ',' that is not inside brackets. */
    size_t n = 0;
    int depth = 0;
    while (nodelist[n] && !(nodelist[n] == ',' && depth == 0)) {
        depth += nodelist[n] == '[' ? 1 : nodelist[n] == ']' ? -1 : 0;
        n++;
    }
    const char *open = memchr(nodelist, '[', n);
    if (!open) {
        if (n == 0 || n >= size)
            return PIPE_EINVAL;
        snprintf(out, size, "%.*s", (int)n, nodelist);
        return 0;
    }
    /* prefix[a-b,c] -> prefix + a (zero padding kept). */
    const char *num = open + 1, *end = num;
    while (isdigit((unsigned char)*end))
        end++;
    if (end == num)
        return PIPE_EINVAL;
    int len = snprintf(out, size, "%.*s%.*s", (int)(open - nodelist), nodelist, (int)(end - num), num);
    return len < 0 || (size_t)len >= size ? PIPE_EINVAL : 0;
}
