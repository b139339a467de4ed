/* @checkpoint without a run: natural order and the newest complete
   checkpoint (step/checkpoint_folder.c); the folder's lock, which waits for
   an earlier execution's process and kills one that outlives its grace;
   what a killed writer left, removed before an attempt; the removal after
   success; and the step API (api/checkpoint.c) in a one-rank step. */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/wait.h>

#include "check.h"
#include "api/ctx.h"
#include "step/checkpoint_folder.h"
#include "pipe/pipe.h"
#include "step_fixture.h"

static void test_natural_order(void)
{
    static const char *const ascending[] = {"a",        "b",        "step_2",    "step_9",   "step_10",
                                            "step_011", "step_11",  "step_99",   "step_100", "step_100a",
                                            "step_101", "step_1000", "x1y2",     "x1y10",    "x2"};
    size_t n = sizeof ascending / sizeof ascending[0];
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n; k++) {
            int c = pipe_checkpoint_name_compare(ascending[i], ascending[k]);
            bool right = i < k ? c < 0 : i > k ? c > 0 : c == 0;
            if (!right)
                fprintf(stderr, "compare(%s, %s) = %d\n", ascending[i], ascending[k], c);
            CHECK(right);
        }
}

static void make_dir(const char *base, const char *name)
{
    char *p = pipe_asprintf("%s/%s", base, name), err[256];
    pipe_mkdirs(p, err, sizeof err);
    free(p);
}

static bool exists_in(const char *base, const char *name)
{
    char *p = pipe_asprintf("%s/%s", base, name);
    bool e = p && access(p, F_OK) == 0;
    free(p);
    return e;
}

static void test_latest_and_prepare(void)
{
    char *store = fx_tempdir("ckpt");
    pipe_checkpoint_folder c;
    char key[65], err[1024] = "", *waited = NULL;
    memset(key, 'a', 64);
    key[64] = '\0';
    CHECK_EQ_INT(pipe_checkpoint_folder_init(&c, store, "p", "train", key, 0), 0);
    CHECK(fx_contains(c.dir, "/cache/checkpoints/p/train-aaaa"));
    CHECK(c.lock_path && strcmp(c.lock_path + strlen(c.lock_path) - 5, ".lock") == 0);
    CHECK_EQ_INT(pipe_checkpoint_folder_lock(&c, 1000, &waited, err, sizeof err), 0);
    CHECK_NULL(waited); /* nobody held it */
    CHECK(c.lock_fd >= 0 && pipe_dir_exists(c.dir));

    /* Empty: no checkpoint. */
    CHECK_EQ_INT(pipe_checkpoint_folder_prepare(&c, true, err, sizeof err), 0);
    CHECK_NULL(c.latest);
    /* Complete ones, and what killed writers left. */
    make_dir(c.dir, "step_9");
    make_dir(c.dir, "step_10");
    make_dir(c.dir, ".step_11.tmp");
    make_dir(c.dir, ".step_11.tmp/inner");
    char *stray = pipe_asprintf("%s/.half", c.dir);
    fx_write(stray, "x");
    /* Another machine does not clean (the folder is machine 0's to clean). */
    CHECK_EQ_INT(pipe_checkpoint_folder_prepare(&c, false, err, sizeof err), 0);
    CHECK(exists_in(c.dir, ".step_11.tmp"));
    CHECK(fx_contains(c.latest, "/step_10") && !fx_contains(c.latest, "step_100"));
    CHECK_EQ_INT(pipe_checkpoint_folder_prepare(&c, true, err, sizeof err), 0);
    CHECK(!exists_in(c.dir, ".step_11.tmp") && !exists_in(c.dir, ".half"));
    CHECK(exists_in(c.dir, "step_9") && exists_in(c.dir, "step_10"));
    char *want = pipe_asprintf("%s/step_10", c.dir);
    CHECK_STREQ(c.latest, want);
    free(want);

    /* After success: the folder and its lock file go. */
    char *dir = pipe_strdup(c.dir), *lock = pipe_strdup(c.lock_path);
    CHECK_EQ_INT(pipe_checkpoint_folder_remove(&c, err, sizeof err), 0);
    CHECK(access(dir, F_OK) != 0 && access(lock, F_OK) != 0);
    char *emptied = pipe_asprintf("%s/cache/checkpoints", store); /* nothing else was there */
    CHECK(access(emptied, F_OK) != 0);
    free(emptied);
    pipe_checkpoint_folder_free(&c);
    CHECK_EQ_INT(c.lock_fd, -1);
    free(dir);
    free(lock);
    free(stray);
    fx_rmtree(store);
}

/* A process of an earlier execution holds the lock: one that lets go
   within the grace is waited for; one that does not is killed. */
static void test_lock_waits_then_kills(void)
{
    char *store = fx_tempdir("ckpt-lock");
    char err[1024] = "", *waited = NULL;
    for (int stubborn = 0; stubborn <= 1; stubborn++) {
        pipe_checkpoint_folder c;
        CHECK_EQ_INT(pipe_checkpoint_folder_init(&c, store, "p", "train", "k", 0), 0);
        char *parent = pipe_asprintf("%s/cache/checkpoints/p", store);
        pipe_mkdirs(parent, err, sizeof err);
        free(parent);
        int ready[2];
        CHECK_EQ_INT(pipe(ready), 0);
        pid_t holder = fork();
        if (holder == 0) {
            int fd = open(c.lock_path, O_RDWR | O_CREAT, 0666);
            if (fd < 0 || flock(fd, LOCK_EX) != 0)
                _exit(1);
            ssize_t w = write(ready[1], "x", 1);
            (void)w;
            if (stubborn)
                for (;;)
                    pause();
            pipe_sleep_ms(300);
            _exit(0);
        }
        char x;
        CHECK_EQ_INT((int)read(ready[0], &x, 1), 1);
        close(ready[0]);
        close(ready[1]);
        double t0 = pipe_now();
        CHECK_EQ_INT(pipe_checkpoint_folder_lock(&c, 1000, &waited, err, sizeof err), 0);
        double took = pipe_now() - t0;
        int st = 0;
        waitpid(holder, &st, 0);
        if (stubborn) {
            CHECK(took >= 0.9 && took < 3.0);
            CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
            CHECK(fx_contains(waited, "killed 1 process of an earlier execution"));
        } else {
            CHECK(took >= 0.2 && took < 0.9);
            CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
            CHECK(fx_contains(waited, "waited"));
        }
        free(waited);
        waited = NULL;
        pipe_checkpoint_folder_free(&c);
    }
    fx_rmtree(store);
}

static pipe_ctx *make_ctx(const char *dir)
{
    char *outputs = pipe_asprintf("%s/outputs", dir), err[512] = "";
    pipe_mkdirs(outputs, err, sizeof err);
    free(outputs);
    pipe_ctx_config cfg = {.invocation = "train", .run_id = "R", .dir = dir};
    pipe_ctx *ctx = NULL;
    if (pipe_ctx_create(&cfg, &ctx, err, sizeof err) != 0)
        fprintf(stderr, "pipe_ctx_create: %s\n", err);
    return ctx;
}

static void test_api(void)
{
    char *dir = fx_tempdir("ckpt-api"), err[512];
    unsetenv("RANK");
    unsetenv("WORLD_SIZE");
    unsetenv("LOCAL_RANK");
    unsetenv("LOCAL_WORLD_SIZE");

    /* Without @checkpoint: no folder, and saving says why. */
    unsetenv("PIPE_CHECKPOINT_DIR");
    setenv("PIPE_CHECKPOINT_LATEST", "/elsewhere/step_1", 1); /* not without a folder */
    pipe_ctx *ctx = make_ctx(dir);
    CHECK_NOT_NULL(ctx);
    CHECK_NULL(pipe_checkpoint_dir(ctx));
    CHECK_NULL(pipe_checkpoint_latest(ctx));
    CHECK_NULL(pipe_checkpoint_begin(ctx, "step_1"));
    CHECK(fx_contains(pipe_last_error(ctx), "has no @checkpoint"));
    CHECK_EQ_INT(pipe_checkpoint_commit(ctx, "step_1"), PIPE_EINVAL);
    pipe_ctx_destroy(ctx);
    CHECK_NULL(pipe_checkpoint_dir(NULL));
    CHECK_NULL(pipe_checkpoint_latest(NULL));
    CHECK_NULL(pipe_checkpoint_begin(NULL, "x"));
    CHECK_EQ_INT(pipe_checkpoint_commit(NULL, "x"), PIPE_EINVAL);

    char *ckpt = pipe_asprintf("%s/ckpt", dir);
    pipe_mkdirs(ckpt, err, sizeof err);
    setenv("PIPE_CHECKPOINT_DIR", ckpt, 1);
    unsetenv("PIPE_CHECKPOINT_LATEST");
    ctx = make_ctx(dir);
    CHECK_STREQ(pipe_checkpoint_dir(ctx), ckpt);
    CHECK_NULL(pipe_checkpoint_latest(ctx));
    static const char *const bad[] = {"", ".hidden", "a/b", NULL};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_NULL(pipe_checkpoint_begin(ctx, bad[i]));
        CHECK(fx_contains(pipe_last_error(ctx), "is not a checkpoint name"));
    }
    /* Commit without begin. */
    CHECK_EQ_INT(pipe_checkpoint_commit(ctx, "step_0"), PIPE_ESTATE);
    CHECK(fx_contains(pipe_last_error(ctx), "pipe_checkpoint_begin"));
    /* Begin: an empty temporary folder, even when an earlier try left one. */
    const char *tmp = pipe_checkpoint_begin(ctx, "step_50");
    CHECK(tmp && fx_contains(tmp, "/ckpt/.step_50.tmp") && pipe_dir_exists(tmp));
    char *f = tmp ? pipe_asprintf("%s/state", tmp) : NULL;
    CHECK(f && fx_write(f, "half"));
    free(f);
    tmp = pipe_checkpoint_begin(ctx, "step_50");
    f = tmp ? pipe_asprintf("%s/state", tmp) : NULL;
    CHECK(f && access(f, F_OK) != 0);
    CHECK(f && fx_write(f, "whole"));
    free(f);
    CHECK_EQ_INT(pipe_checkpoint_commit(ctx, "step_50"), 0);
    char *done = pipe_asprintf("%s/step_50/state", ckpt), *text = fx_read(done);
    CHECK_STREQ(text, "whole");
    CHECK(!exists_in(ckpt, ".step_50.tmp"));
    free(text);
    free(done);
    /* A name that is taken. */
    CHECK_NOT_NULL(pipe_checkpoint_begin(ctx, "step_50"));
    CHECK_EQ_INT(pipe_checkpoint_commit(ctx, "step_50"), PIPE_EINVAL);
    CHECK(fx_contains(pipe_last_error(ctx), "exists already"));
    pipe_ctx_destroy(ctx);

    /* The newest complete one, as the supervisor found it. */
    char *latest = pipe_asprintf("%s/step_50", ckpt);
    setenv("PIPE_CHECKPOINT_LATEST", latest, 1);
    ctx = make_ctx(dir);
    CHECK_STREQ(pipe_checkpoint_latest(ctx), latest);
    pipe_ctx_destroy(ctx);
    unsetenv("PIPE_CHECKPOINT_DIR");
    unsetenv("PIPE_CHECKPOINT_LATEST");
    free(latest);
    free(ckpt);
    fx_rmtree(dir);
}

int main(void)
{
    test_natural_order();
    test_latest_and_prepare();
    test_lock_waits_then_kills();
    test_api();
    return check_summary();
}
