/* The artifact store: run ids, paths, run.yaml (atomic, first writer wins),
   listing runs, removing trees. */
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "pipe/error.h"
#include "step_fixture.h"
#include "store/commit.h"
#include "store/stepfile.h"
#include "store/store.h"
#include "util/util.h"

static void test_run_ids(void)
{
    char a[PIPE_RUN_ID_SIZE], b[PIPE_RUN_ID_SIZE], err[256];
    CHECK_EQ_INT(pipe_run_id_new(a, sizeof a, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_run_id_new(b, sizeof b, err, sizeof err), 0);
    CHECK_EQ_U64(strlen(a), PIPE_RUN_ID_SIZE - 1);
    CHECK(pipe_run_id_is_generated(a));
    CHECK(pipe_run_id_is_generated(b));
    CHECK(strcmp(a, b) != 0 || pipe_run_id_new(b, sizeof b, err, sizeof err) != 0 || strcmp(a, b) != 0);
    CHECK_EQ_INT(pipe_run_id_check(a, err, sizeof err), 0);
    char small[10];
    CHECK_EQ_INT(pipe_run_id_new(small, sizeof small, err, sizeof err), PIPE_EINVAL);

    CHECK(pipe_run_id_is_generated("20261122-101500-a1b2c3"));
    CHECK(!pipe_run_id_is_generated("20261122-101500-A1B2C3"));
    CHECK(!pipe_run_id_is_generated("20261122-101500-a1b2c"));
    CHECK(!pipe_run_id_is_generated("2026112x-101500-a1b2c3"));
    CHECK(!pipe_run_id_is_generated(NULL));

    CHECK_EQ_INT(pipe_run_id_check("nightly-2026_11_22", err, sizeof err), 0);
    CHECK_EQ_INT(pipe_run_id_check("Run_7", err, sizeof err), 0);
    /* Letters, digits, `_` and `-`, not first `-`: it would read as an option. */
    CHECK_EQ_INT(pipe_run_id_check("-rf", err, sizeof err), PIPE_EUSAGE);
    CHECK(fx_contains(err, "starts with `-`"));
    CHECK_EQ_INT(pipe_run_id_check("--help", err, sizeof err), PIPE_EUSAGE);
    CHECK_EQ_INT(pipe_run_id_check("nightly.2", err, sizeof err), PIPE_EUSAGE);
    CHECK_EQ_INT(pipe_run_id_check("latest", err, sizeof err), PIPE_EUSAGE);
    CHECK(fx_contains(err, "newest run"));
    CHECK_EQ_INT(pipe_run_id_check("", err, sizeof err), PIPE_EUSAGE);
    CHECK_EQ_INT(pipe_run_id_check(NULL, err, sizeof err), PIPE_EUSAGE);
    CHECK_EQ_INT(pipe_run_id_check("../etc", err, sizeof err), PIPE_EUSAGE);
    CHECK_EQ_INT(pipe_run_id_check("a/b", err, sizeof err), PIPE_EUSAGE);
    CHECK(fx_contains(err, "a/b"));
    CHECK_EQ_INT(pipe_run_id_check(".hidden", err, sizeof err), PIPE_EUSAGE);
    CHECK_EQ_INT(pipe_run_id_check("cache", err, sizeof err), PIPE_EUSAGE);
    CHECK(fx_contains(err, "reserved"));
    char longid[200];
    memset(longid, 'a', sizeof longid - 1);
    longid[sizeof longid - 1] = '\0';
    CHECK_EQ_INT(pipe_run_id_check(longid, err, sizeof err), PIPE_EUSAGE);
}

static void test_paths(void)
{
    char *p = pipe_store_output_path("/s", "R", "train", "model");
    CHECK_STREQ(p, "/s/R/train/outputs/model");
    free(p);
    p = pipe_store_step_file("/s", "R", "train");
    CHECK_STREQ(p, "/s/R/train/step.yaml");
    free(p);
    p = pipe_store_run_file("/s", "R");
    CHECK_STREQ(p, "/s/R/run.yaml");
    free(p);
    p = pipe_store_invocation_dir("/s", "R", "x");
    CHECK_STREQ(p, "/s/R/x");
    free(p);
    p = pipe_store_cache_dir("/s");
    CHECK_STREQ(p, "/s/cache");
    free(p);
    p = pipe_store_run_dir("/s", "R");
    CHECK_STREQ(p, "/s/R");
    free(p);

    unsetenv("PIPE_STORE");
    p = pipe_store_resolve(NULL, NULL);
    CHECK_STREQ(p, ".pipe");
    free(p);
    p = pipe_store_resolve(NULL, "/from-config");
    CHECK_STREQ(p, "/from-config");
    free(p);
    setenv("PIPE_STORE", "/from-env", 1);
    p = pipe_store_resolve(NULL, "/from-config");
    CHECK_STREQ(p, "/from-env");
    free(p);
    p = pipe_store_resolve("/from-flag", "/from-config");
    CHECK_STREQ(p, "/from-flag");
    free(p);
    setenv("PIPE_STORE", "", 1);
    p = pipe_store_resolve(NULL, NULL);
    CHECK_STREQ(p, ".pipe");
    free(p);
    unsetenv("PIPE_STORE");
}

static void test_run_yaml(void)
{
    char *store = fx_tempdir("store");
    char err[512];
    pipe_kv params[] = {{"epochs", "5"}, {"name", "a \"quoted\": value\nwith a newline"}, {"flag", "true"},
                        {"empty", ""}};
    pipe_run_info info = {.run_id = "R1", .pipeline = "training", .params = params, .nparams = 4,
                          .started = "2026-11-22T10:15:00.123Z", .status = "running"};
    bool created = false;
    CHECK_EQ_INT(pipe_run_info_write(store, "R1", &info, PIPE_RUN_WRITE_CREATE, &created, err, sizeof err), 0);
    CHECK(created);

    pipe_run_info *back = NULL;
    CHECK_EQ_INT(pipe_run_info_read(store, "R1", &back, err, sizeof err), 0);
    if (back) {
        CHECK_STREQ(back->pipeline, "training");
        CHECK_STREQ(back->run_id, "R1");
        CHECK_STREQ(back->started, "2026-11-22T10:15:00.123Z");
        CHECK_NULL(back->finished);
        CHECK_STREQ(back->status, "running");
        CHECK_EQ_U64(back->nparams, 4);
        CHECK_STREQ(pipe_run_info_param(back, "epochs"), "5");
        CHECK_STREQ(pipe_run_info_param(back, "name"), "a \"quoted\": value\nwith a newline");
        CHECK_STREQ(pipe_run_info_param(back, "flag"), "true");
        CHECK_STREQ(pipe_run_info_param(back, "empty"), "");
        CHECK_NULL(pipe_run_info_param(back, "missing"));
        CHECK_STREQ(back->params[0].key, "epochs"); /* order kept */
        CHECK_STREQ(back->params[3].key, "empty");
    }
    pipe_run_info_free(back);

    /* A second creator loses and leaves the file alone. */
    pipe_run_info other = {.pipeline = "other", .status = "running"};
    CHECK_EQ_INT(pipe_run_info_write(store, "R1", &other, PIPE_RUN_WRITE_CREATE, &created, err, sizeof err), 0);
    CHECK(!created);
    CHECK_EQ_INT(pipe_run_info_read(store, "R1", &back, err, sizeof err), 0);
    CHECK_STREQ(back ? back->pipeline : NULL, "training");
    pipe_run_info_free(back);

    /* Replace: the runner marks the run finished. */
    info.status = "done";
    info.finished = "2026-11-22T11:00:00.000Z";
    CHECK_EQ_INT(pipe_run_info_write(store, "R1", &info, PIPE_RUN_WRITE_REPLACE, &created, err, sizeof err), 0);
    CHECK(created);
    CHECK_EQ_INT(pipe_run_info_read(store, "R1", &back, err, sizeof err), 0);
    CHECK_STREQ(back ? back->status : NULL, "done");
    CHECK_STREQ(back ? back->finished : NULL, "2026-11-22T11:00:00.000Z");
    pipe_run_info_free(back);

    /* No params at all. */
    pipe_run_info bare = {.pipeline = "p"};
    CHECK_EQ_INT(pipe_run_info_write(store, "R2", &bare, PIPE_RUN_WRITE_REPLACE, NULL, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_run_info_read(store, "R2", &back, err, sizeof err), 0);
    CHECK_EQ_U64(back ? back->nparams : 99, 0);
    CHECK_STREQ(back ? back->status : NULL, "running");
    pipe_run_info_free(back);

    /* Errors. */
    back = (pipe_run_info *)1;
    CHECK_EQ_INT(pipe_run_info_read(store, "nope", &back, err, sizeof err), PIPE_ENOENT);
    CHECK_NULL(back);
    CHECK(fx_contains(err, "nope"));
    CHECK_EQ_INT(pipe_run_info_write(store, "../x", &bare, PIPE_RUN_WRITE_REPLACE, NULL, err, sizeof err),
                 PIPE_EUSAGE);
    char *dir = pipe_store_run_dir(store, "bad"), *file = pipe_store_run_file(store, "bad");
    CHECK_EQ_INT(pipe_mkdirs(dir, err, sizeof err), 0);
    CHECK(fx_write(file, "pipeline: [unclosed\n"));
    CHECK_EQ_INT(pipe_run_info_read(store, "bad", &back, err, sizeof err), PIPE_EFORMAT);
    CHECK(fx_contains(err, "run.yaml"));
    CHECK(fx_write(file, "status: done\n"));
    CHECK_EQ_INT(pipe_run_info_read(store, "bad", &back, err, sizeof err), PIPE_EFORMAT);
    CHECK(fx_contains(err, "pipeline"));
    CHECK(fx_write(file, "pipeline: p\nparams: [1, 2]\n"));
    CHECK_EQ_INT(pipe_run_info_read(store, "bad", &back, err, sizeof err), PIPE_EFORMAT);
    CHECK(fx_contains(err, "params"));
    CHECK(fx_write(file, "- a list\n"));
    CHECK_EQ_INT(pipe_run_info_read(store, "bad", &back, err, sizeof err), PIPE_EFORMAT);
    free(dir);
    free(file);
    fx_rmtree(store);
}

/* Eight processes race to create the same run.yaml: exactly one wins and
   everyone reads the winner's file. */
static void test_first_writer_wins(void)
{
    char *store = fx_tempdir("race");
    char err[512];
    enum { N = 8 };
    pid_t pids[N];
    for (int i = 0; i < N; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            char name[32];
            snprintf(name, sizeof name, "writer%d", i);
            pipe_run_info info = {.pipeline = name, .status = "running"};
            bool created = false;
            int rc = pipe_run_info_write(store, "RACE", &info, PIPE_RUN_WRITE_CREATE, &created, NULL, 0);
            _exit(rc != 0 ? 2 : created ? 1 : 0);
        }
    }
    int winners = 0, errors = 0;
    for (int i = 0; i < N; i++) {
        int st = 0;
        waitpid(pids[i], &st, 0);
        winners += WIFEXITED(st) && WEXITSTATUS(st) == 1;
        errors += !WIFEXITED(st) || WEXITSTATUS(st) == 2;
    }
    CHECK_EQ_INT(winners, 1);
    CHECK_EQ_INT(errors, 0);
    pipe_run_info *back = NULL;
    CHECK_EQ_INT(pipe_run_info_read(store, "RACE", &back, err, sizeof err), 0);
    CHECK(back && strncmp(back->pipeline, "writer", 6) == 0);
    pipe_run_info_free(back);
    /* No temporary files left behind. */
    char *cmd = pipe_asprintf("ls -a %s/RACE | grep -c tmp > %s/count || true", store, store);
    CHECK_EQ_INT(system(cmd), 0);
    free(cmd);
    char *countf = pipe_asprintf("%s/count", store), *count = fx_read(countf);
    CHECK_STREQ(count, "0\n");
    free(count);
    free(countf);
    fx_rmtree(store);
}

static void test_list_runs(void)
{
    char *store = fx_tempdir("list");
    char err[512], **ids = NULL;
    size_t n = 99;
    CHECK_EQ_INT(pipe_store_list_runs(store, &ids, &n, err, sizeof err), 0);
    CHECK_EQ_U64(n, 0);
    pipe_store_free_list(ids, n);

    char *missing = pipe_asprintf("%s/none", store);
    CHECK_EQ_INT(pipe_store_list_runs(missing, &ids, &n, err, sizeof err), 0);
    CHECK_EQ_U64(n, 0);
    free(missing);

    pipe_run_info info = {.pipeline = "p"};
    const char *runs[] = {"20261122-101500-bbbbbb", "20251122-101500-aaaaaa", "20261122-101501-000000"};
    for (size_t i = 0; i < 3; i++)
        CHECK_EQ_INT(pipe_run_info_write(store, runs[i], &info, PIPE_RUN_WRITE_REPLACE, NULL, err, sizeof err), 0);
    char *cache = pipe_store_cache_dir(store), *stray = pipe_asprintf("%s/not-a-run", store);
    pipe_mkdirs(cache, err, sizeof err);
    pipe_mkdirs(stray, err, sizeof err);
    CHECK_EQ_INT(pipe_store_list_runs(store, &ids, &n, err, sizeof err), 0);
    CHECK_EQ_U64(n, 3);
    if (n == 3) {
        CHECK_STREQ(ids[0], "20251122-101500-aaaaaa");
        CHECK_STREQ(ids[1], "20261122-101500-bbbbbb");
        CHECK_STREQ(ids[2], "20261122-101501-000000");
    }
    pipe_store_free_list(ids, n);
    free(cache);
    free(stray);
    fx_rmtree(store);
}

static void test_remove_tree(void)
{
    char *root = fx_tempdir("rm");
    char err[512];
    char *keep = pipe_asprintf("%s/keep", root), *keepfile = pipe_asprintf("%s/keep/precious", root);
    char *victim = pipe_asprintf("%s/victim/a/b", root), *file = pipe_asprintf("%s/victim/a/b/f", root);
    char *link = pipe_asprintf("%s/victim/link", root), *top = pipe_asprintf("%s/victim", root);
    pipe_mkdirs(keep, err, sizeof err);
    pipe_mkdirs(victim, err, sizeof err);
    CHECK(fx_write(keepfile, "x"));
    CHECK(fx_write(file, "y"));
    CHECK_EQ_INT(symlink(keep, link), 0);
    CHECK_EQ_INT(pipe_remove_tree(top, err, sizeof err), 0);
    CHECK(!pipe_dir_exists(top));
    CHECK(pipe_file_exists(keepfile)); /* the link was removed, not followed */
    CHECK_EQ_INT(pipe_remove_tree(top, err, sizeof err), 0); /* already gone */
    CHECK_EQ_INT(pipe_remove_tree(keepfile, err, sizeof err), 0); /* a plain file */
    CHECK(!pipe_file_exists(keepfile));
    free(keep);
    free(keepfile);
    free(victim);
    free(file);
    free(link);
    free(top);
    fx_rmtree(root);
}

/* mkdir -p: deep and new, already there, a trailing slash, a file in the way. */
static void test_mkdirs(void)
{
    char tmpl[] = "/tmp/pipe-mkdirs-XXXXXX";
    char *root = mkdtemp(tmpl), err[256];
    CHECK(root != NULL);
    if (!root)
        return;
    char *deep = pipe_asprintf("%s/a/b/c/d", root), *slash = pipe_asprintf("%s/a/e/", root);
    char *file = pipe_asprintf("%s/f", root), *under = pipe_asprintf("%s/f/g", root);
    CHECK_EQ_INT(pipe_mkdirs(deep, err, sizeof err), 0);
    CHECK(pipe_dir_exists(deep));
    CHECK_EQ_INT(pipe_mkdirs(deep, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_mkdirs(slash, err, sizeof err), 0);
    CHECK(pipe_dir_exists(slash));
    CHECK(fx_write(file, "x"));
    CHECK_EQ_INT(pipe_mkdirs(file, err, sizeof err), PIPE_EIO);
    CHECK(fx_contains(err, file) && fx_contains(err, "Not a directory"));
    CHECK_EQ_INT(pipe_mkdirs(under, err, sizeof err), PIPE_EIO);
    CHECK(fx_contains(err, "Not a directory"));
    CHECK_EQ_INT(pipe_remove_tree(root, err, sizeof err), 0);
    free(deep);
    free(slash);
    free(file);
    free(under);
}

/* A temporary name left by a dead process whose PID this one reuses
   (PATH.tmp.PID) does not stop an atomic write, and is gone after it. */
static void test_write_over_stale_tmp(void)
{
    char tmpl[] = "/tmp/pipe-stale-XXXXXX";
    char *root = mkdtemp(tmpl), err[256];
    CHECK(root != NULL);
    if (!root)
        return;
    char *path = pipe_asprintf("%s/error.rank-3", root);
    char *stale = pipe_asprintf("%s.tmp.%ld", path, (long)getpid());
    CHECK(fx_write(stale, "left by a dead process"));
    CHECK_EQ_INT(pipe_write_file_atomic(path, "rank 3 failed\n", 14, err, sizeof err), 0);
    char *text = fx_read(path);
    CHECK(text && strcmp(text, "rank 3 failed\n") == 0);
    CHECK(access(stale, F_OK) != 0);
    free(text);
    CHECK_EQ_INT(pipe_remove_tree(root, err, sizeof err), 0);
    free(path);
    free(stale);
}

/* The group commit's list (store/commit.h): what it says, and what a crash
   may leave of it. */
static void test_commit_list(void)
{
    char tmpl[] = "/tmp/pipe-commit-XXXXXX";
    char *root = mkdtemp(tmpl), err[256];
    CHECK(root != NULL);
    if (!root)
        return;
    char *run = pipe_asprintf("%s/R", root), *list = pipe_asprintf("%s/R/unsynced", root);
    CHECK_EQ_INT(pipe_mkdirs(run, err, sizeof err), 0);
    /* No list: the run's writes were durable when made, or it ended. */
    CHECK(pipe_commit_durable(root, "R", "a"));
    pipe_commit c;
    CHECK_EQ_INT(pipe_commit_begin(&c, root, "R", err, sizeof err), 0);
    CHECK(!pipe_commit_durable(root, "R", "a"));
    const char *ended[] = {"a", "b"};
    CHECK_EQ_INT(pipe_commit_point(&c, ended, 2, err, sizeof err), 0);
    CHECK(pipe_commit_durable(root, "R", "a") && pipe_commit_durable(root, "R", "b"));
    CHECK(!pipe_commit_durable(root, "R", "c") && !pipe_commit_durable(root, "R", "ab"));
    /* What a crash may leave: a list cut short, zeros, another run's. */
    CHECK(fx_write(list, "run: R\ndurable: a\n"));
    CHECK(!pipe_commit_durable(root, "R", "a"));
    CHECK(fx_write(list, "run: R\ndurable: a\nend"));
    CHECK(!pipe_commit_durable(root, "R", "a"));
    CHECK(fx_write(list, ""));
    CHECK(!pipe_commit_durable(root, "R", "a"));
    CHECK(fx_write(list, "run: S\ndurable: a\nend\n"));
    CHECK(!pipe_commit_durable(root, "R", "a"));
    CHECK(fx_write(list, "run: R\ndurable: a\nend\n"));
    CHECK(pipe_commit_durable(root, "R", "a"));
    /* The end: everything durable, no list. */
    CHECK_EQ_INT(pipe_commit_end(&c, err, sizeof err), 0);
    CHECK(access(list, F_OK) != 0);
    CHECK(pipe_commit_durable(root, "R", "c"));
    pipe_commit_free(&c); /* twice is harmless */
    CHECK_EQ_INT(pipe_remove_tree(root, err, sizeof err), 0);
    free(run);
    free(list);
}

/* Recovery after a crash: of six records that say done, each with an
   output that does not match its digest, the ones the list names are
   trusted as they are and the others taken back (names that sort before,
   between and after the listed ones, and one that a listed name begins
   with). */
static void test_commit_recover(void)
{
    char tmpl[] = "/tmp/pipe-recover-XXXXXX";
    char *root = mkdtemp(tmpl), err[256];
    CHECK(root != NULL);
    if (!root)
        return;
    static const char *const names[] = {"a", "b", "bb", "c", "d", "zz"};
    static const bool listed[] = {false, true, false, true, false, true};
    for (size_t i = 0; i < 6; i++) {
        char *dir = pipe_asprintf("%s/R/%s/outputs", root, names[i]);
        char *out = pipe_asprintf("%s/out", dir), *step = pipe_asprintf("%s/R/%s/step.yaml", root, names[i]);
        CHECK_EQ_INT(pipe_mkdirs(dir, err, sizeof err), 0);
        CHECK(fx_write(out, "bytes the digest is not of"));
        pipe_step_artifact art = {.name = "out", .path = out,
                                  .sha256 = "0000000000000000000000000000000000000000000000000000000000000000"};
        pipe_step_record rec = {.invocation = (char *)names[i], .step = (char *)names[i], .run_id = "R",
                                .status = PIPE_STEP_DONE, .outputs = &art, .noutputs = 1};
        CHECK_EQ_INT(pipe_step_record_write(step, &rec, false, err, sizeof err), 0);
        free(dir);
        free(out);
        free(step);
    }
    char *list = pipe_asprintf("%s/R/unsynced", root);
    CHECK(fx_write(list, "run: R\ndurable: b\ndurable: c\ndurable: zz\nend\n"));
    size_t dropped = 0;
    CHECK_EQ_INT(pipe_commit_recover(root, "R", &dropped, err, sizeof err), 0);
    CHECK(dropped == 3);
    for (size_t i = 0; i < 6; i++) {
        char *step = pipe_asprintf("%s/R/%s/step.yaml", root, names[i]);
        CHECK(pipe_file_exists(step) == listed[i]);
        free(step);
    }
    CHECK(access(list, F_OK) != 0);
    CHECK_EQ_INT(pipe_remove_tree(root, err, sizeof err), 0);
    free(list);
}

int main(void)
{
    test_mkdirs();
    test_commit_list();
    test_commit_recover();
    test_write_over_stale_tmp();
    test_run_ids();
    test_paths();
    test_run_yaml();
    test_first_writer_wins();
    test_list_runs();
    test_remove_tree();
    return check_summary();
}
