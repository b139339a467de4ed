/* The Neuron launch environment (dist/neuron_env.h): the cores each rank of
   a Trainium or Inferentia step gets, the EFA variables, and the user's own
   values winning; through pipe_rank_env_set, as a forked rank gets them. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dist/neuron_env.h"
#include "dist/rank_env.h"

static const char *const vars[] = {"NEURON_RT_VISIBLE_CORES", "NEURON_RT_NUM_CORES", "FI_PROVIDER",
                                   "FI_EFA_USE_DEVICE_RDMA", "FI_EFA_FORK_SAFE", "PIPE_NEURON_CORES_PER_DEVICE"};

static void clear_env(void)
{
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

/* value of name after rank local_rank of nlocal is set up ("-" when unset). */
static const char *rank_env(int devices, int efa, int local_rank, int nlocal, const char *name)
{
    static char buf[64];
    pipe_launch l;
    memset(&l, 0, sizeof l);
    l.world = l.nlocal = nlocal;
    l.num_machines = 1;
    l.neuron_devices = devices;
    l.efa = efa;
    l.shm_fd = -1;
    pipe_rank_env_set(&l, local_rank, false);
    const char *v = getenv(name);
    snprintf(buf, sizeof buf, "%s", v ? v : "-");
    return buf;
}

/* One fresh rank: the variables of the launcher's environment, then the rank's. */
static const char *fresh(int devices, int efa, int local_rank, int nlocal, const char *name)
{
    clear_env();
    return rank_env(devices, efa, local_rank, nlocal, name);
}

static void test_cores(void)
{
    /* 2 devices x 2 cores (trn1), 4 ranks: one core each. */
    CHECK_STREQ(fresh(2, 0, 0, 4, "NEURON_RT_VISIBLE_CORES"), "0");
    CHECK_STREQ(fresh(2, 0, 1, 4, "NEURON_RT_VISIBLE_CORES"), "1");
    CHECK_STREQ(fresh(2, 0, 2, 4, "NEURON_RT_VISIBLE_CORES"), "2");
    CHECK_STREQ(fresh(2, 0, 3, 4, "NEURON_RT_VISIBLE_CORES"), "3");
    CHECK_STREQ(fresh(2, 0, 3, 4, "NEURON_RT_NUM_CORES"), "-");
    /* 2 ranks: a device (two cores) each. */
    CHECK_STREQ(fresh(2, 0, 0, 2, "NEURON_RT_VISIBLE_CORES"), "0-1");
    CHECK_STREQ(fresh(2, 0, 1, 2, "NEURON_RT_VISIBLE_CORES"), "2-3");
    /* trn1.32xlarge as torchrun runs it: 16 devices, 32 ranks. */
    CHECK_STREQ(fresh(16, 0, 31, 32, "NEURON_RT_VISIBLE_CORES"), "31");
    /* trn2.48xlarge, 16 devices x 8 cores, 128 ranks: the count says 8 a device. */
    CHECK_STREQ(fresh(16, 0, 127, 128, "NEURON_RT_VISIBLE_CORES"), "127");
    CHECK_EQ_INT(pipe_neuron_cores_per_device(16, 128), 8);
    /* One rank: a count, all the step's cores. */
    CHECK_STREQ(fresh(2, 0, 0, 1, "NEURON_RT_NUM_CORES"), "4");
    CHECK_STREQ(fresh(2, 0, 0, 1, "NEURON_RT_VISIBLE_CORES"), "-");
    /* Cores that do not split evenly (2 devices x 2 cores, 3 ranks): a count each. */
    CHECK_STREQ(fresh(2, 0, 2, 3, "NEURON_RT_NUM_CORES"), "1");
    CHECK_STREQ(fresh(2, 0, 2, 3, "NEURON_RT_VISIBLE_CORES"), "-");
    /* The cores per device given: inf1's 4, 2 devices, 2 ranks. */
    clear_env();
    setenv("PIPE_NEURON_CORES_PER_DEVICE", "4", 1);
    CHECK_STREQ(rank_env(2, 0, 1, 2, "NEURON_RT_VISIBLE_CORES"), "4-7");
    setenv("PIPE_NEURON_CORES_PER_DEVICE", "x", 1); /* not a count: as if unset */
    CHECK_EQ_INT(pipe_neuron_cores_per_device(2, 2), 2);
    /* No Neuron device: nothing. */
    CHECK_STREQ(fresh(0, 0, 0, 4, "NEURON_RT_VISIBLE_CORES"), "-");
    CHECK_STREQ(fresh(0, 0, 0, 1, "NEURON_RT_NUM_CORES"), "-");
}

static void test_efa(void)
{
    CHECK_STREQ(fresh(2, 1, 0, 2, "FI_PROVIDER"), "efa");
    CHECK_STREQ(fresh(2, 1, 0, 2, "FI_EFA_USE_DEVICE_RDMA"), "1");
    CHECK_STREQ(fresh(2, 1, 0, 2, "FI_EFA_FORK_SAFE"), "1");
    CHECK_STREQ(fresh(2, 0, 0, 2, "FI_PROVIDER"), "-");
    CHECK_STREQ(fresh(2, 0, 0, 2, "FI_EFA_FORK_SAFE"), "-");
}

/* What the user set (the environment, @environment) wins. */
static void test_user_wins(void)
{
    clear_env();
    setenv("NEURON_RT_VISIBLE_CORES", "5", 1);
    CHECK_STREQ(rank_env(2, 0, 0, 4, "NEURON_RT_VISIBLE_CORES"), "5");
    CHECK_STREQ(rank_env(2, 0, 0, 4, "NEURON_RT_NUM_CORES"), "-");
    clear_env();
    setenv("NEURON_RT_NUM_CORES", "1", 1);
    CHECK_STREQ(rank_env(2, 0, 1, 2, "NEURON_RT_VISIBLE_CORES"), "-");
    CHECK_STREQ(rank_env(2, 0, 1, 2, "NEURON_RT_NUM_CORES"), "1");
    clear_env();
    setenv("FI_PROVIDER", "tcp", 1);
    setenv("FI_EFA_FORK_SAFE", "0", 1);
    CHECK_STREQ(rank_env(2, 4, 0, 2, "FI_PROVIDER"), "tcp");
    CHECK_STREQ(rank_env(2, 4, 0, 2, "FI_EFA_FORK_SAFE"), "0");
    CHECK_STREQ(rank_env(2, 4, 0, 2, "FI_EFA_USE_DEVICE_RDMA"), "1");
}

/* The range helper alone, with a small buffer: cut, never overrun. */
static void test_rank_cores(void)
{
    char out[4];
    int count = 0;
    pipe_neuron_rank_cores(16, 1, 2, out, sizeof out, &count);
    CHECK_EQ_INT(count, 16);
    CHECK(strlen(out) < sizeof out);
    pipe_neuron_rank_cores(1, 4, 5, out, sizeof out, &count); /* 5 ranks on one device: 5 cores it has */
    CHECK_STREQ(out, "4");
    setenv("PIPE_NEURON_CORES_PER_DEVICE", "2", 1);
    pipe_neuron_rank_cores(1, 0, 3, out, sizeof out, &count); /* 2 cores, 3 ranks */
    CHECK_EQ_INT(count, 1);
    CHECK_STREQ(out, "");
    pipe_neuron_rank_cores(1, 7, 3, out, sizeof out, &count); /* not a local rank */
    CHECK_STREQ(out, "");
    unsetenv("PIPE_NEURON_CORES_PER_DEVICE");
}

int main(void)
{
    test_cores();
    test_efa();
    test_user_wins();
    test_rank_cores();
    clear_env();
    return check_summary();
}
