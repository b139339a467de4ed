/* Fuzz target for the report (docs/report.md): one input is cut at each
   byte 0x1e (the ASCII record separator) into the files of one invocation
   of a run in a scratch store,

     metrics.csv | profile/gpu.csv | profile/process.csv | step.yaml |
     profile/neuron.csv | a second run's metrics.csv

   (a missing piece: no such file; a missing step.yaml: a fixed one), and
   `report` renders the run, then the two runs compared, in this process.
   Whatever the data, the page is bounded in time and memory: the smoke run
   (smoke.sh) gives each input a time and a memory limit, and steps at 2^53
   or at INT64_MAX once made the axis ticks loop forever. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "store/store.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { PIECES = 6 };

static const char *const files[PIECES] = {"R/train/metrics.csv", "R/train/profile/gpu.csv",
                                          "R/train/profile/process.csv", "R/train/step.yaml",
                                          "R/train/profile/neuron.csv", "R2/train/metrics.csv"};

static const char run_yaml[] = "pipeline: \"fuzz\"\nparams:\n  n: \"1\"\nstarted: 2026-11-27T02:26:42.150Z\n"
                               "finished: 2026-11-27T02:26:43.212Z\nstatus: done\n";
static const char step_yaml[] = "invocation: train\nstep: train\nrun_id: R\nstatus: done\nexit_code: 0\n"
                                "attempts: 1\nstarted: 2026-11-27T02:26:42.155Z\n"
                                "finished: 2026-11-27T02:26:42.177Z\nduration_s: 0.022\n";

static char store[64];

static char *path_of(const char *rel)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s/%s", store, rel);
    return buf;
}

static void put(const char *rel, const void *data, size_t len)
{
    FILE *f = fopen(path_of(rel), "wb");
    if (!f)
        abort();
    if (len && fwrite(data, 1, len, f) != len)
        abort();
    fclose(f);
}

static void make_dir(const char *rel)
{
    if (mkdir(path_of(rel), 0777) != 0)
        abort();
}

static void remove_store(void) { pipe_remove_tree(store, NULL, 0); }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(store, sizeof store, "%.40s/fuzz-report-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(store))
        abort();
    atexit(remove_store);
    make_dir("R");
    make_dir("R/train");
    make_dir("R/train/profile");
    make_dir("R2");
    make_dir("R2/train");
    put("R/run.yaml", "run_id: R\n", 10);
    FILE *f = fopen(path_of("R/run.yaml"), "ab");
    fputs(run_yaml, f);
    fclose(f);
    put("R2/run.yaml", "run_id: R2\n", 11);
    f = fopen(path_of("R2/run.yaml"), "ab");
    fputs(run_yaml, f);
    fclose(f);
    put("R2/train/step.yaml", step_yaml, strlen(step_yaml));
    return 0;
}

static int report(int argc, char **argv) { return pipe_cmd_report(NULL, NULL, argc, argv); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *piece[PIECES] = {0};
    size_t len[PIECES] = {0}, n = 0;
    for (size_t start = 0; n < PIECES;) {
        const uint8_t *sep = memchr(data + start, 0x1e, size - start);
        size_t end = sep ? (size_t)(sep - data) : size;
        piece[n] = data + start;
        len[n++] = end - start;
        if (!sep)
            break;
        start = end + 1;
    }
    for (size_t i = 0; i < PIECES; i++) {
        if (i < n)
            put(files[i], piece[i], len[i]);
        else if (i == 3)
            put(files[i], step_yaml, strlen(step_yaml));
        else
            unlink(path_of(files[i]));
    }
    char *one[] = {"report", "R", "--store", store, "-o", "-", NULL};
    char *two[] = {"report", "R", "R2", "--store", store, "-o", "-", NULL};
    /* The pages go to stdout, and stdout to /dev/null meanwhile. */
    fflush(stdout);
    int saved = dup(1), null = open("/dev/null", O_WRONLY);
    if (saved < 0 || null < 0 || dup2(null, 1) < 0)
        abort();
    close(null);
    report(6, one);
    report(7, two);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    return 0;
}
