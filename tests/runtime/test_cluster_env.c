/* The table of cluster environments (cluster_env.h) through the launcher
   (pipe_launch_setup), with a fake environment per scheduler: which
   variable gives the machine rank and the main address, in which order,
   what --machine-rank, --main-process-ip and MASTER_ADDR override, what a
   step on one machine ignores, and the messages for values that cannot be
   read. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dist/cluster_env.h"
#include "dist/launcher.h"
#include "dist/net.h"
#include "pipe/error.h"

/* No variable of any row, nor the launcher's own, is set. */
static void clear_env(void)
{
    for (size_t i = 0; i < pipe_cluster_nenvs; i++) {
        const pipe_cluster_env *e = &pipe_cluster_envs[i];
        unsetenv(e->rank);
        if (e->nodes)
            unsetenv(e->nodes);
        if (e->main)
            unsetenv(e->main);
    }
    unsetenv("MASTER_ADDR");
    unsetenv("MASTER_PORT");
    unsetenv("PIPE_RDZV_TOKEN");
}

/* An accelerated invocation on `machines` machines, one process each. */
static pipe_minvocation invocation(int machines)
{
    pipe_minvocation inv;
    memset(&inv, 0, sizeof inv);
    inv.id = "train";
    inv.accelerate.enabled = true;
    inv.accelerate.num_machines = machines;
    inv.accelerate.num_processes = machines;
    inv.accelerate.main_process_port = 29500;
    return inv;
}

typedef struct outcome {
    int rc;
    int rank;
    char addr[256];
    char err[512];
} outcome;

static outcome setup_with(int machines, const pipe_launch_options *o)
{
    pipe_minvocation inv = invocation(machines);
    pipe_launch l;
    outcome out = {0};
    out.rc = pipe_launch_setup(&l, &inv, "run-1", false, false, o, out.err, sizeof out.err);
    out.rank = l.machine_rank;
    snprintf(out.addr, sizeof out.addr, "%s", l.master_addr);
    pipe_launch_end(&l);
    return out;
}

static outcome setup(int machines) { return setup_with(machines, NULL); }

/* Each scheduler alone: its rank variable and its main variable. */
static void test_each_scheduler(void)
{
    clear_env();
    outcome o = setup(4);
    CHECK_EQ_INT(o.rc, 0);
    CHECK_EQ_INT(o.rank, 0);
    CHECK_STREQ(o.addr, "127.0.0.1"); /* nothing says: machine 0, on loopback */

    clear_env(); /* pipe's own, with the address the deploy scripts export */
    setenv("PIPE_MACHINE_RANK", "2", 1);
    setenv("MASTER_ADDR", "10.1.0.1", 1);
    o = setup(4);
    CHECK_EQ_INT(o.rc, 0);
    CHECK_EQ_INT(o.rank, 2);
    CHECK_STREQ(o.addr, "10.1.0.1");

    clear_env(); /* Slurm */
    setenv("SLURM_NODEID", "3", 1);
    setenv("SLURM_JOB_NUM_NODES", "4", 1);
    setenv("SLURM_JOB_NODELIST", "gpu[007-010],cpu1", 1);
    o = setup(4);
    CHECK_EQ_INT(o.rc, 0);
    CHECK_EQ_INT(o.rank, 3);
    CHECK_STREQ(o.addr, "gpu007");

    clear_env(); /* Kubernetes Indexed Job: the pods get MASTER_ADDR */
    setenv("JOB_COMPLETION_INDEX", "1", 1);
    setenv("MASTER_ADDR", "train-0.train", 1);
    o = setup(2);
    CHECK_EQ_INT(o.rc, 0);
    CHECK_EQ_INT(o.rank, 1);
    CHECK_STREQ(o.addr, "train-0.train");

    clear_env(); /* SkyPilot */
    setenv("SKYPILOT_NODE_RANK", "1", 1);
    setenv("SKYPILOT_NUM_NODES", "2", 1);
    setenv("SKYPILOT_NODE_IPS", "10.0.0.5\n10.0.0.6\n", 1);
    o = setup(2);
    CHECK_EQ_INT(o.rc, 0);
    CHECK_EQ_INT(o.rank, 1);
    CHECK_STREQ(o.addr, "10.0.0.5");

    clear_env(); /* AWS Batch, a node other than the main one */
    setenv("AWS_BATCH_JOB_NODE_INDEX", "3", 1);
    setenv("AWS_BATCH_JOB_NUM_NODES", "4", 1);
    setenv("AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS", "10.0.7.9", 1);
    o = setup(4);
    CHECK_EQ_INT(o.rc, 0);
    CHECK_EQ_INT(o.rank, 3);
    CHECK_STREQ(o.addr, "10.0.7.9");

    /* The main node: Batch sets no main address there; its own, not 127.0.0.1,
       so that its ranks and the other nodes' name the same machine. */
    clear_env();
    setenv("AWS_BATCH_JOB_NODE_INDEX", "0", 1);
    setenv("AWS_BATCH_JOB_NUM_NODES", "2", 1);
    o = setup(2);
    CHECK_EQ_INT(o.rc, 0);
    CHECK_EQ_INT(o.rank, 0);
    char own[64];
    pipe_own_ipv4(own, sizeof own);
    CHECK_STREQ(o.addr, own);
    struct in_addr parsed;
    CHECK_EQ_INT(inet_pton(AF_INET, o.addr, &parsed), 1);
}

/* This machine's own address: an IPv4 address, a non-loopback one where
   the machine has an interface up besides lo (`hostname -I`'s first). */
static void test_own_address(void)
{
    char own[64], small[4];
    pipe_own_ipv4(own, sizeof own);
    struct in_addr a;
    CHECK_EQ_INT(inet_pton(AF_INET, own, &a), 1);
    struct ifaddrs *all = NULL;
    bool other = false;
    if (getifaddrs(&all) == 0) {
        for (struct ifaddrs *i = all; i; i = i->ifa_next)
            other |= i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
                     !(i->ifa_flags & IFF_LOOPBACK);
        freeifaddrs(all);
    }
    CHECK(other ? strncmp(own, "127.", 4) != 0 : strcmp(own, "127.0.0.1") == 0);
    pipe_own_ipv4(small, sizeof small); /* too small: cut, never overrun */
    CHECK(strlen(small) < sizeof small);
}

/* Several schedulers' variables at once: the table's order decides. */
static void test_precedence(void)
{
    clear_env();
    setenv("SKYPILOT_NODE_RANK", "3", 1);
    setenv("JOB_COMPLETION_INDEX", "2", 1);
    setenv("SLURM_NODEID", "1", 1);
    outcome o = setup(4);
    CHECK_EQ_INT(o.rank, 1);
    setenv("PIPE_MACHINE_RANK", "0", 1);
    CHECK_EQ_INT(setup(4).rank, 0);
    setenv("PIPE_MACHINE_RANK", "", 1); /* empty: as if unset */
    CHECK_EQ_INT(setup(4).rank, 1);
    unsetenv("SLURM_NODEID");
    CHECK_EQ_INT(setup(4).rank, 2);
    unsetenv("JOB_COMPLETION_INDEX");
    CHECK_EQ_INT(setup(4).rank, 3);

    pipe_launch_options opt = {.main_process_ip = NULL, .machine_rank = 1};
    CHECK_EQ_INT(setup_with(4, &opt).rank, 1); /* --machine-rank first */

    clear_env();
    setenv("SKYPILOT_NODE_IPS", "10.0.0.5", 1);
    CHECK_STREQ(setup(2).addr, "10.0.0.5");
    setenv("SLURM_JOB_NODELIST", "n[1-2]", 1);
    CHECK_STREQ(setup(2).addr, "n1");
    setenv("MASTER_ADDR", "head", 1);
    CHECK_STREQ(setup(2).addr, "head");
    opt = (pipe_launch_options){.main_process_ip = "10.9.9.9", .machine_rank = -1};
    CHECK_STREQ(setup_with(2, &opt).addr, "10.9.9.9");
    /* An empty --main-process-ip= passes over MASTER_ADDR, to the schedulers'. */
    opt.main_process_ip = "";
    CHECK_STREQ(setup_with(2, &opt).addr, "n1");
}

/* A step on one machine reads no scheduler's variables; MASTER_ADDR still counts. */
static void test_one_machine(void)
{
    clear_env();
    setenv("SLURM_NODEID", "5", 1);
    setenv("SLURM_JOB_NODELIST", "n[1-2]", 1);
    setenv("SKYPILOT_NODE_IPS", "10.0.0.5", 1);
    outcome o = setup(1);
    CHECK_EQ_INT(o.rc, 0);
    CHECK_EQ_INT(o.rank, 0);
    CHECK_STREQ(o.addr, "127.0.0.1");
    setenv("MASTER_ADDR", "head", 1);
    CHECK_STREQ(setup(1).addr, "head");
}

static void test_bad_values(void)
{
    clear_env();
    setenv("SLURM_NODEID", "2", 1);
    outcome o = setup(2);
    CHECK_EQ_INT(o.rc, PIPE_EUSAGE);
    CHECK_STREQ(o.err, "SLURM_NODEID=2 is not a machine rank below 2");
    setenv("SLURM_NODEID", "x1", 1);
    CHECK_STREQ(setup(2).err, "SLURM_NODEID=x1 is not a machine rank below 2");
    /* A bad value is not passed over for the next row's. */
    setenv("SKYPILOT_NODE_RANK", "1", 1);
    CHECK_EQ_INT(setup(2).rc, PIPE_EUSAGE);

    clear_env();
    setenv("JOB_COMPLETION_INDEX", "-1", 1);
    CHECK_STREQ(setup(2).err, "JOB_COMPLETION_INDEX=-1 is not a machine rank below 2");

    clear_env();
    setenv("SLURM_JOB_NODELIST", "n[x]", 1);
    o = setup(2);
    CHECK_EQ_INT(o.rc, PIPE_EUSAGE);
    CHECK_STREQ(o.err, "cannot read the first host of SLURM_JOB_NODELIST=n[x]");

    clear_env();
    pipe_launch_options opt = {.main_process_ip = NULL, .machine_rank = 2};
    o = setup_with(2, &opt);
    CHECK_EQ_INT(o.rc, PIPE_EUSAGE);
    CHECK_STREQ(o.err, "--machine-rank 2 is not below num_machines 2");
}

/* The table itself: every row names its rank variable; a main variable
   whose value is not an address has a parser. */
static void test_table(void)
{
    CHECK(pipe_cluster_nenvs >= 5);
    for (size_t i = 0; i < pipe_cluster_nenvs; i++) {
        CHECK(pipe_cluster_envs[i].scheduler != NULL);
        CHECK(pipe_cluster_envs[i].rank != NULL);
        CHECK(!pipe_cluster_envs[i].main_host || pipe_cluster_envs[i].main);
    }
    char host[64];
    CHECK_EQ_INT(pipe_slurm_first_host("n1", host, sizeof host), 0);
    CHECK_STREQ(host, "n1");
    CHECK_EQ_INT(pipe_slurm_first_host("a,b", host, sizeof host), 0);
    CHECK_STREQ(host, "a");
    CHECK_EQ_INT(pipe_slurm_first_host("n[08-10,12],m[1-2]", host, sizeof host), 0);
    CHECK_STREQ(host, "n08");
    CHECK(pipe_slurm_first_host("", host, sizeof host) != 0);
    CHECK(pipe_slurm_first_host("n[x]", host, sizeof host) != 0);
    CHECK(pipe_slurm_first_host("averylongname", host, 4) != 0);
}

int main(void)
{
    test_each_scheduler();
    test_precedence();
    test_one_machine();
    test_bad_values();
    test_table();
    test_own_address();
    clear_env();
    return check_summary();
}
