/* NVML through dlopen (nvml.c) against the tests' stand-in library, the
   machine's GPU count from it (resources_local.c), the process sampler
   (proc_sample.c) and the profiler's files (profiler.c).

     test_profile FULL.so MINIMAL.so BROKEN.so */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "observe/metrics.h"
#include "observe/nvml.h"
#include "observe/proc_sample.h"
#include "observe/profiler.h"
#include "exec/resources.h"
#include "step_fixture.h"

static const char *full_lib, *minimal_lib, *broken_lib;

static void test_nvml_full(void)
{
    char why[512] = "";
    pipe_nvml *n = NULL;
    setenv("PIPE_NVML_LIBRARY", full_lib, 1);
    CHECK_EQ_INT(pipe_nvml_open(&n, why, sizeof why), 0);
    if (!n) {
        fprintf(stderr, "    %s\n", why);
        return;
    }
    unsigned count = 0;
    CHECK_EQ_INT(pipe_nvml_count(n, &count, why, sizeof why), 0);
    CHECK_EQ_INT(count, 2);
    pipe_nvml_gpu g;
    CHECK_EQ_INT(pipe_nvml_device(n, "0", &g, why, sizeof why), 0);
    CHECK_EQ_INT(g.index, 0);
    CHECK_STREQ(g.name, "Stand-in GPU 0");
    pipe_gpu_sample s;
    CHECK_EQ_INT(pipe_nvml_sample(n, &g, &s, why, sizeof why), 0);
    CHECK(s.utilization_pct == 37);
    CHECK(s.memory_used_mib == 10240 && s.memory_total_mib == 40960);
    CHECK(fabs(s.power_w - 123.4) < 1e-9);
    CHECK(s.temperature_c == 55 && s.sm_clock_mhz == 1410);
    /* A UUID, as CUDA_VISIBLE_DEVICES may give it: its index is found. */
    CHECK_EQ_INT(pipe_nvml_device(n, "GPU-5a5a0000-0000-4000-8000-000000000001", &g, why, sizeof why), 0);
    CHECK_EQ_INT(g.index, 1);
    CHECK_STREQ(g.name, "Stand-in GPU 1");
    CHECK_EQ_INT(pipe_nvml_sample(n, &g, &s, why, sizeof why), 0);
    CHECK(s.utilization_pct == 81 && s.memory_used_mib == 30720);
    CHECK_EQ_INT(pipe_nvml_device(n, "2", &g, why, sizeof why), PIPE_ENOENT);
    CHECK(fx_contains(why, "GPU 2") && fx_contains(why, "2 GPUs"));
    CHECK_EQ_INT(pipe_nvml_device(n, "GPU-nope", &g, why, sizeof why), PIPE_ENOENT);
    CHECK(fx_contains(why, "GPU-nope") && fx_contains(why, "Not Found"));
    pipe_nvml_close(n);
}

static void test_nvml_optional_missing(void)
{
    char why[512] = "";
    pipe_nvml *n = NULL;
    setenv("PIPE_NVML_LIBRARY", minimal_lib, 1);
    CHECK_EQ_INT(pipe_nvml_open(&n, why, sizeof why), 0);
    if (!n)
        return;
    pipe_nvml_gpu g;
    CHECK_EQ_INT(pipe_nvml_device(n, "1", &g, why, sizeof why), 0);
    CHECK_STREQ(g.name, "GPU 1");
    pipe_gpu_sample s;
    CHECK_EQ_INT(pipe_nvml_sample(n, &g, &s, why, sizeof why), 0);
    CHECK(s.utilization_pct == 81);
    CHECK(isnan(s.power_w) && isnan(s.temperature_c) && isnan(s.sm_clock_mhz));
    CHECK_EQ_INT(pipe_nvml_device(n, "GPU-5a5a0000-0000-4000-8000-000000000001", &g, why, sizeof why),
                 PIPE_ENOTSUP);
    CHECK(fx_contains(why, "nvmlDeviceGetHandleByUUID"));
    pipe_nvml_close(n);
}

static void test_nvml_unusable(void)
{
    char why[512] = "";
    pipe_nvml *n = NULL;
    setenv("PIPE_NVML_LIBRARY", broken_lib, 1);
    CHECK_EQ_INT(pipe_nvml_open(&n, why, sizeof why), PIPE_ENOTSUP);
    CHECK(fx_contains(why, "nvmlDeviceGetMemoryInfo"));
    CHECK_NULL(n);
    setenv("PIPE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    CHECK_EQ_INT(pipe_nvml_open(&n, why, sizeof why), PIPE_ENOTSUP);
    CHECK(fx_contains(why, "cannot load /nonexistent/libnvidia-ml.so.1 (PIPE_NVML_LIBRARY)"));
    setenv("PIPE_NVML_LIBRARY", full_lib, 1);
    setenv("STANDIN_NVML_FAIL", "init", 1);
    CHECK_EQ_INT(pipe_nvml_open(&n, why, sizeof why), PIPE_EIO);
    CHECK(fx_contains(why, "nvmlInit_v2") && fx_contains(why, "Driver Not Loaded"));
    unsetenv("STANDIN_NVML_FAIL");
}

/* GPUs on this machine: PIPE_LOCAL_GPUS, else NVML's count, else none. */
static void test_local_gpu_count(void)
{
    char err[256];
    pipe_local_resources r;
    unsetenv("PIPE_LOCAL_GPUS");
    unsetenv("CUDA_VISIBLE_DEVICES");
    setenv("PIPE_NVML_LIBRARY", full_lib, 1);
    CHECK_EQ_INT(pipe_local_resources_detect(&r, err, sizeof err), 0);
    CHECK_EQ_U64(r.ngpus, 2);
    pipe_local_resources_free(&r);
    setenv("PIPE_LOCAL_GPUS", "3", 1);
    CHECK_EQ_INT(pipe_local_resources_detect(&r, err, sizeof err), 0);
    CHECK_EQ_U64(r.ngpus, 3);
    pipe_local_resources_free(&r);
    unsetenv("PIPE_LOCAL_GPUS");
    setenv("PIPE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    CHECK_EQ_INT(pipe_local_resources_detect(&r, err, sizeof err), 0);
    CHECK_EQ_U64(r.ngpus, 0);
    pipe_local_resources_free(&r);
}

/* A child that burns CPU and holds some memory until killed. */
static pid_t start_busy_child(size_t mib)
{
    pid_t pid = fork();
    if (pid == 0) {
        volatile char *mem = malloc(mib << 20);
        for (size_t i = 0; mem && i < (mib << 20); i += 4096)
            mem[i] = 1;
        volatile unsigned long x = 0;
        for (;;)
            x++;
    }
    return pid;
}

static void stop_child(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static void test_proc_sampler(void)
{
    pipe_proc_sampler s;
    double t0 = pipe_now();
    pid_t a = start_busy_child(48), b = start_busy_child(48);
    pipe_proc_sampler_init(&s, t0);
    pid_t pids[2] = {a, b};
    double cpu = 0, rss = 0;
    pipe_sleep_ms(600);
    CHECK(pipe_proc_sample(&s, pids, 2, pipe_now(), &cpu, &rss));
    /* Both children together: their memory adds up; CPU is what the
       machine gave them (it may be shared), but not nothing. */
    CHECK(rss >= 90);
    CHECK(cpu > 5);
    pipe_sleep_ms(300);
    CHECK(pipe_proc_sample(&s, pids, 2, pipe_now(), &cpu, &rss));
    CHECK(rss >= 90 && cpu > 5 && cpu < 100.0 * (double)sysconf(_SC_NPROCESSORS_ONLN) + 50);
    stop_child(a);
    stop_child(b);
    CHECK(!pipe_proc_sample(&s, pids, 2, pipe_now(), &cpu, &rss));
    pipe_proc_sampler_free(&s);
}

typedef struct notes {
    char text[4096];
    int n;
} notes;

static void on_note(void *arg, const char *msg)
{
    notes *x = arg;
    x->n++;
    size_t used = strlen(x->text);
    snprintf(x->text + used, sizeof x->text - used, "%s\n", msg);
}

/* Profiler rows for as long as a child runs, sampling every 100 ms. */
static void profile_child(pipe_profiler *p, double t_end)
{
    pid_t child = start_busy_child(16);
    for (double now = pipe_now(); now < t_end; now = pipe_now()) {
        pipe_profiler_tick(p, now, &child, 1);
        double wait = pipe_profiler_due(p, pipe_now());
        pipe_sleep_ms((uint64_t)(wait * 1000) + 1);
    }
    stop_child(child);
}

static int count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; p && *p; p++)
        n += *p == '\n';
    return n;
}

static void test_profiler_files(void)
{
    char *dir = fx_tempdir("profile");
    char *prof = pipe_asprintf("%s/profile", dir), err[512];
    notes log = {"", 0};
    setenv("PIPE_NVML_LIBRARY", full_lib, 1);
    pipe_profiler *p = NULL;
    pipe_profiler_config cfg = {prof, 100, pipe_now(), "1,0", on_note, &log, 0};
    CHECK_EQ_INT(pipe_profiler_start(&p, &cfg, err, sizeof err), 0);
    profile_child(p, pipe_now() + 0.65);
    pipe_profiler_stop(p);
    char *gpu_path = pipe_asprintf("%s/gpu.csv", prof), *proc_path = pipe_asprintf("%s/process.csv", prof);
    char *gpu = fx_read(gpu_path), *proc = fx_read(proc_path);
    CHECK(gpu && strncmp(gpu, PIPE_PROFILE_GPU_HEADER "\n", strlen(PIPE_PROFILE_GPU_HEADER) + 1) == 0);
    CHECK(proc && strncmp(proc, "time_s,cpu_pct,rss_mib\n", 23) == 0);
    /* The GPUs in CUDA_VISIBLE_DEVICES order, by NVML index, with every column. */
    CHECK(fx_contains(gpu, ",1,Stand-in GPU 1,81,30720,81920,250.0,67,1755\n"));
    CHECK(fx_contains(gpu, ",0,Stand-in GPU 0,37,10240,40960,123.4,55,1410\n"));
    /* About one sample per 100 ms (a loaded machine may skip some). */
    int rows = count_lines(proc) - 1;
    CHECK(rows >= 3 && rows <= 8);
    CHECK(count_lines(gpu) - 1 == 2 * rows);
    CHECK(fx_contains(log.text, "sampling every 100 ms: GPU 1 (Stand-in GPU 1), 0 (Stand-in GPU 0)"));
    free(gpu);
    free(proc);

    /* Without NVML: process samples all the same, and why not GPUs, once. */
    log.text[0] = '\0';
    log.n = 0;
    setenv("PIPE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    CHECK_EQ_INT(pipe_profiler_start(&p, &cfg, err, sizeof err), 0);
    profile_child(p, pipe_now() + 0.35);
    pipe_profiler_stop(p);
    gpu = fx_read(gpu_path);
    proc = fx_read(proc_path);
    CHECK_STREQ(gpu, PIPE_PROFILE_GPU_HEADER "\n");
    CHECK(count_lines(proc) >= 3);
    CHECK_EQ_INT(log.n, 1);
    CHECK(fx_contains(log.text, "no GPU samples: cannot load /nonexistent/libnvidia-ml.so.1"));
    char *none_path = pipe_asprintf("%s/" PIPE_PROFILE_GPU_NONE, prof), *none = fx_read(none_path);
    CHECK(fx_contains(none, "cannot load"));
    free(none);
    free(gpu);
    free(proc);

    /* A step given no GPU. */
    log.text[0] = '\0';
    cfg.gpus = "";
    setenv("PIPE_NVML_LIBRARY", full_lib, 1);
    CHECK_EQ_INT(pipe_profiler_start(&p, &cfg, err, sizeof err), 0);
    pipe_profiler_stop(p);
    CHECK(fx_contains(log.text, "given no GPU"));

    /* Too short an interval is raised to the shortest one, and said. */
    log.text[0] = '\0';
    cfg.interval_ms = 1;
    CHECK_EQ_INT(pipe_profiler_start(&p, &cfg, err, sizeof err), 0);
    double now = pipe_now();
    pipe_profiler_tick(p, now, NULL, 0);
    CHECK(pipe_profiler_due(p, now) > 0.005);
    pipe_profiler_stop(p);
    CHECK(fx_contains(log.text, "an interval of 1 ms is below 10 ms; sampling every 10 ms"));
    cfg.interval_ms = 100;

    /* An unwritable folder is an error naming it. */
    cfg.dir = "/proc/no-such-folder/profile";
    CHECK(pipe_profiler_start(&p, &cfg, err, sizeof err) != 0);
    CHECK(fx_contains(err, "/proc/no-such-folder"));

    free(none_path);
    free(gpu_path);
    free(proc_path);
    free(prof);
    fx_rmtree(dir);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_profile FULL.so MINIMAL.so BROKEN.so\n");
        return 2;
    }
    full_lib = argv[1];
    minimal_lib = argv[2];
    broken_lib = argv[3];
    test_nvml_full();
    test_nvml_optional_missing();
    test_nvml_unusable();
    test_local_gpu_count();
    test_proc_sampler();
    test_profiler_files();
    return check_summary();
}
