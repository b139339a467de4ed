/* resources_local.c: detection with the PIPE_LOCAL_* overrides, the
   CUDA_VISIBLE_DEVICES rules, and the scheduler's pool. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exec/resources.h"
#include "observe/gpu_list.h"
#include "pipe/human.h"
#include "step/threads.h"

static void clear_env(void)
{
    unsetenv("PIPE_LOCAL_CPUS");
    unsetenv("PIPE_LOCAL_MEMORY");
    unsetenv("PIPE_LOCAL_GPUS");
    unsetenv("CUDA_VISIBLE_DEVICES");
}

static void test_format_size(void)
{
    char buf[64];
    pipe_format_size_human(0, buf, sizeof buf);
    CHECK_STREQ(buf, "0 bytes");
    pipe_format_size_human(1000, buf, sizeof buf);
    CHECK_STREQ(buf, "1 KB");
    pipe_format_size_human(16000000000ull, buf, sizeof buf);
    CHECK_STREQ(buf, "16 GB");
    pipe_format_size_human(512ull << 30, buf, sizeof buf);
    CHECK_STREQ(buf, "512 GiB");
    pipe_format_size_human(25300000001ull, buf, sizeof buf);
    CHECK_STREQ(buf, "25.3 GB");
    pipe_format_size_human(999, buf, sizeof buf);
    CHECK_STREQ(buf, "999 bytes");
    pipe_format_size_human(1024000, buf, sizeof buf); /* the language's canonical unit */
    CHECK_STREQ(buf, "1024 KB");
}

static void expect_gpus(size_t count, const char *cvd, const char *expected)
{
    char **gpus;
    size_t n;
    char joined[256] = "";
    CHECK_EQ_INT(pipe_gpu_list(count, cvd, &gpus, &n), 0);
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(joined, ",");
        strcat(joined, gpus[i]);
        free(gpus[i]);
    }
    free(gpus);
    CHECK_STREQ(joined, expected);
}

static void test_gpu_list(void)
{
    expect_gpus(0, NULL, "");
    expect_gpus(0, "0,1", "");
    expect_gpus(4, NULL, "0,1,2,3");
    expect_gpus(4, "", "");
    expect_gpus(4, "-1", "");
    expect_gpus(4, "2,0", "2,0");
    expect_gpus(4, " 1 , 3 ", "1,3");
    expect_gpus(4, "1,7,2", "1");     /* stops at the first invalid index */
    expect_gpus(4, "1,1,2", "1");     /* a repeated entry is invalid */
    expect_gpus(4, "01,2", "1,2");
    expect_gpus(2, "0,1,GPU-abc", "0,1"); /* never more than the machine has */
    expect_gpus(4, "GPU-abc,MIG-def", "GPU-abc,MIG-def");
    expect_gpus(4, "x,0", "");
}

static void test_detect(void)
{
    char err[256];
    pipe_local_resources r;

    clear_env();
    CHECK_EQ_INT(pipe_local_resources_detect(&r, err, sizeof err), 0);
    CHECK(r.cpus >= 1);
    CHECK(r.memory > 0);
    pipe_local_resources_free(&r);

    setenv("PIPE_LOCAL_CPUS", "3", 1);
    setenv("PIPE_LOCAL_MEMORY", "8GB", 1);
    setenv("PIPE_LOCAL_GPUS", "4", 1);
    setenv("CUDA_VISIBLE_DEVICES", "3,1", 1);
    CHECK_EQ_INT(pipe_local_resources_detect(&r, err, sizeof err), 0);
    CHECK(r.cpus == 3);
    CHECK_EQ_U64(r.memory, 8000000000ull);
    CHECK_EQ_U64(r.ngpus, 2);
    if (r.ngpus == 2) {
        CHECK_STREQ(r.gpus[0], "3");
        CHECK_STREQ(r.gpus[1], "1");
    }
    pipe_local_resources_free(&r);

    unsetenv("CUDA_VISIBLE_DEVICES");
    setenv("PIPE_LOCAL_GPUS", "0", 1);
    setenv("PIPE_LOCAL_MEMORY", "8000000000", 1); /* plain bytes (docs/runtime.md) */
    CHECK_EQ_INT(pipe_local_resources_detect(&r, err, sizeof err), 0);
    CHECK_EQ_U64(r.ngpus, 0);
    CHECK_EQ_U64(r.memory, 8000000000ull);
    pipe_local_resources_free(&r);

    setenv("PIPE_LOCAL_CPUS", "lots", 1);
    CHECK_EQ_INT(pipe_local_resources_detect(&r, err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "PIPE_LOCAL_CPUS") != NULL);
    setenv("PIPE_LOCAL_CPUS", "0", 1);
    CHECK_EQ_INT(pipe_local_resources_detect(&r, err, sizeof err), PIPE_EUSAGE);
    setenv("PIPE_LOCAL_CPUS", "2", 1);
    setenv("PIPE_LOCAL_MEMORY", "lots", 1);
    CHECK_EQ_INT(pipe_local_resources_detect(&r, err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "PIPE_LOCAL_MEMORY") != NULL);
    setenv("PIPE_LOCAL_MEMORY", "1GB", 1);
    setenv("PIPE_LOCAL_GPUS", "-1", 1);
    CHECK_EQ_INT(pipe_local_resources_detect(&r, err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "PIPE_LOCAL_GPUS") != NULL);
    clear_env();
}

static void test_unmet(void)
{
    char *gpus[] = {"0", "1"};
    pipe_local_resources local = {.cpus = 4, .memory = 8000000000ull, .gpus = gpus, .ngpus = 2};
    pipe_resources req = {0};
    char msg[256];
    CHECK(!pipe_resources_unmet(&local, &req, msg, sizeof msg));
    CHECK_STREQ(msg, "");
    req.cpu = 4;
    req.memory = 8000000000ull;
    req.gpu = 2;
    CHECK(!pipe_resources_unmet(&local, &req, msg, sizeof msg));
    req.cpu = 16;
    CHECK(pipe_resources_unmet(&local, &req, msg, sizeof msg));
    CHECK(strstr(msg, "16 CPUs") && strstr(msg, "has 4"));
    req.cpu = 1;
    req.memory = 16000000000ull;
    req.gpu = 3;
    CHECK(pipe_resources_unmet(&local, &req, msg, sizeof msg));
    CHECK(strstr(msg, "16 GB of memory") && strstr(msg, "8 GB") && strstr(msg, "3 GPUs"));
    CHECK(!strstr(msg, "CPU"));
}

static void test_pool(void)
{
    char *gpus[] = {"0", "1", "2"};
    pipe_local_resources local = {.cpus = 4, .memory = 8000, .gpus = gpus, .ngpus = 3};
    pipe_pool pool;
    pipe_grant a, b, c, d;
    bool ok;
    char list[64];
    CHECK_EQ_INT(pipe_pool_init(&pool, &local), 0);

    pipe_resources two_gpus = {.cpu = 2, .gpu = 2, .memory = 4000};
    CHECK_EQ_INT(pipe_pool_acquire(&pool, &two_gpus, &a, &ok), 0);
    CHECK(ok);
    pipe_grant_gpu_list(&pool, &a, list, sizeof list);
    CHECK_STREQ(list, "0,1");
    /* Two more GPUs are not free. */
    CHECK_EQ_INT(pipe_pool_acquire(&pool, &two_gpus, &b, &ok), 0);
    CHECK(!ok);
    /* A CPU step without a CPU count books one CPU. */
    pipe_resources plain = {0};
    CHECK_EQ_INT(pipe_pool_acquire(&pool, &plain, &b, &ok), 0);
    CHECK(ok);
    CHECK(b.cpu == 1);
    CHECK_EQ_U64(b.ngpus, 0);
    pipe_resources one_gpu = {.gpu = 1};
    CHECK_EQ_INT(pipe_pool_acquire(&pool, &one_gpu, &c, &ok), 0);
    CHECK(ok);
    pipe_grant_gpu_list(&pool, &c, list, sizeof list);
    CHECK_STREQ(list, "2");
    /* CPUs are all booked now (2 + 1 + 1). */
    CHECK_EQ_INT(pipe_pool_acquire(&pool, &plain, &d, &ok), 0);
    CHECK(!ok);
    pipe_pool_release(&pool, &b);
    /* Memory: a holds 4000 of 8000. */
    pipe_resources mem = {.cpu = 1, .memory = 5000};
    CHECK_EQ_INT(pipe_pool_acquire(&pool, &mem, &d, &ok), 0);
    CHECK(!ok);
    mem.memory = 4000;
    CHECK_EQ_INT(pipe_pool_acquire(&pool, &mem, &d, &ok), 0);
    CHECK(ok);
    pipe_pool_release(&pool, &d);

    /* An oversized request waits for an empty machine, then runs alone. */
    pipe_resources huge = {.cpu = 64, .gpu = 8, .memory = 1000000};
    CHECK_EQ_INT(pipe_pool_acquire(&pool, &huge, &d, &ok), 0);
    CHECK(!ok);
    pipe_pool_release(&pool, &a);
    pipe_pool_release(&pool, &c);
    CHECK_EQ_U64(pool.running, 0);
    CHECK_EQ_INT(pipe_pool_acquire(&pool, &huge, &a, &ok), 0);
    CHECK(ok);
    CHECK(a.exclusive);
    CHECK(a.cpu == 4);
    CHECK_EQ_U64(a.memory, 8000);
    CHECK_EQ_U64(a.ngpus, 3);
    CHECK_EQ_INT(pipe_pool_acquire(&pool, &plain, &b, &ok), 0);
    CHECK(!ok);
    pipe_pool_release(&pool, &a);
    CHECK_EQ_INT(pipe_pool_acquire(&pool, &plain, &b, &ok), 0);
    CHECK(ok);
    pipe_pool_release(&pool, &b);
    CHECK(pool.cpus_used == 0);
    CHECK_EQ_U64(pool.memory_used, 0);
    pipe_pool_free(&pool);
}

/* OMP_NUM_THREADS per local rank: floor of the CPUs over the ranks, at least
   1; without a CPU count 1 for several ranks (as torchrun), unset for one;
   never over the user's. */
static void test_omp_threads(void)
{
    CHECK_EQ_INT(pipe_omp_threads(8, 2), 4);
    CHECK_EQ_INT(pipe_omp_threads(5, 2), 2);
    CHECK_EQ_INT(pipe_omp_threads(2.5, 1), 2);
    CHECK_EQ_INT(pipe_omp_threads(1, 4), 1);
    CHECK_EQ_INT(pipe_omp_threads(0.5, 1), 1);
    CHECK_EQ_INT(pipe_omp_threads(0, 2), 1);
    CHECK_EQ_INT(pipe_omp_threads(0, 1), 0);
    CHECK_EQ_INT(pipe_omp_threads(0, 0), 0);
    /* The user's value stands: from the environment or the step's map. */
    pipe_kv env[] = {{.key = "PIPE_OTHER", .value = "1"}, {.key = "OMP_NUM_THREADS", .value = "3"}};
    pipe_mstep step = {.environment = env, .nenvironment = 1};
    unsetenv("OMP_NUM_THREADS");
    CHECK_EQ_INT(pipe_omp_threads_default(&step, 0, 2), 1);
    CHECK_EQ_INT(pipe_omp_threads_default(&step, 8, 2), 4);
    CHECK_EQ_INT(pipe_omp_threads_default(NULL, 8, 2), 4);
    step.nenvironment = 2;
    CHECK_EQ_INT(pipe_omp_threads_default(&step, 8, 2), 0);
    step.nenvironment = 1;
    setenv("OMP_NUM_THREADS", "5", 1);
    CHECK_EQ_INT(pipe_omp_threads_default(&step, 8, 2), 0);
    unsetenv("OMP_NUM_THREADS");
}

int main(void)
{
    test_format_size();
    test_omp_threads();
    test_gpu_list();
    test_detect();
    test_unmet();
    test_pool();
    return check_summary();
}
