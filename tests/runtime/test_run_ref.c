/* RUN as runs/show/logs/report take it (run_ref.c): an id, a unique prefix
   or part of one, `latest`; and a run's state (run_state.c): the runner's lock. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "store/run_lock.h"
#include "view/run_ref.h"
#include "store/run_state.h"
#include "step_fixture.h"

static void add_run(const char *store, const char *id, const char *started, const char *status)
{
    char err[256];
    pipe_run_info info = {0};
    info.run_id = (char *)id;
    info.pipeline = "p";
    info.started = (char *)started;
    info.status = (char *)status;
    CHECK_EQ_INT(pipe_run_info_write(store, id, &info, PIPE_RUN_WRITE_REPLACE, NULL, err, sizeof err), 0);
}

static void test_resolve(void)
{
    char *store = fx_tempdir("runref"), *id = NULL, err[512];
    CHECK_EQ_INT(pipe_run_ref_resolve(store, NULL, &id, err, sizeof err), PIPE_ENOENT);
    CHECK(fx_contains(err, "no runs in"));
    add_run(store, "20261101-100000-aaaaaa", "2026-11-01T10:00:00.000Z", "done");
    add_run(store, "20261102-100000-bbbbbb", "2026-11-02T10:00:00.000Z", "failed");
    add_run(store, "20261102-110000-cccccc", "2026-11-02T11:00:00.000Z", "done");
    add_run(store, "nightly", "2026-10-01T10:00:00.000Z", "done");
    add_run(store, "nightly_2", "2026-10-02T10:00:00.000Z", "done");

    CHECK_EQ_INT(pipe_run_ref_resolve(store, NULL, &id, err, sizeof err), 0);
    CHECK_STREQ(id, "20261102-110000-cccccc");
    free(id);
    CHECK_EQ_INT(pipe_run_ref_resolve(store, "latest", &id, err, sizeof err), 0);
    CHECK_STREQ(id, "20261102-110000-cccccc");
    free(id);
    CHECK_EQ_INT(pipe_run_ref_resolve(store, "20261101", &id, err, sizeof err), 0);
    CHECK_STREQ(id, "20261101-100000-aaaaaa");
    free(id);
    /* An exact id wins over the longer one it is a prefix of. */
    CHECK_EQ_INT(pipe_run_ref_resolve(store, "nightly", &id, err, sizeof err), 0);
    CHECK_STREQ(id, "nightly");
    free(id);
    CHECK_EQ_INT(pipe_run_ref_resolve(store, "nightly_", &id, err, sizeof err), 0);
    CHECK_STREQ(id, "nightly_2");
    free(id);
    id = NULL;
    CHECK_EQ_INT(pipe_run_ref_resolve(store, "20261102", &id, err, sizeof err), PIPE_EUSAGE);
    CHECK(fx_contains(err, "start of 2 runs") && fx_contains(err, "20261102-110000-cccccc") &&
          fx_contains(err, "20261102-100000-bbbbbb"));
    CHECK_NULL(id);
    /* Any unique part: the random part of an id that starts with its date. */
    CHECK_EQ_INT(pipe_run_ref_resolve(store, "bbbbbb", &id, err, sizeof err), 0);
    CHECK_STREQ(id, "20261102-100000-bbbbbb");
    free(id);
    CHECK_EQ_INT(pipe_run_ref_resolve(store, "110000-c", &id, err, sizeof err), 0);
    CHECK_STREQ(id, "20261102-110000-cccccc");
    free(id);
    id = NULL;
    CHECK_EQ_INT(pipe_run_ref_resolve(store, "-100000-", &id, err, sizeof err), PIPE_EUSAGE);
    CHECK(fx_contains(err, "part of 2 runs") && fx_contains(err, "20261101-100000-aaaaaa") &&
          fx_contains(err, "20261102-100000-bbbbbb"));
    CHECK_NULL(id);
    /* A prefix wins over a part elsewhere: `nightly` starts both, `20261101` only one. */
    CHECK_EQ_INT(pipe_run_ref_resolve(store, "ightly", &id, err, sizeof err), PIPE_EUSAGE);
    CHECK(fx_contains(err, "part of 2 runs"));
    CHECK_NULL(id);
    CHECK_EQ_INT(pipe_run_ref_resolve(store, "nightlx", &id, err, sizeof err), PIPE_ENOENT);
    CHECK(fx_contains(err, "did you mean `nightly`"));
    CHECK_EQ_INT(pipe_run_ref_resolve(store, "../etc", &id, err, sizeof err), PIPE_ENOENT);
    CHECK_EQ_INT(pipe_run_ref_resolve(store, "", &id, err, sizeof err), PIPE_ENOENT);

    pipe_run_entry *e = NULL;
    size_t n = 0;
    CHECK_EQ_INT(pipe_run_entries_read(store, &e, &n, err, sizeof err), 0);
    CHECK_EQ_U64(n, 5);
    CHECK(n == 5 && strcmp(e[0].id, "20261102-110000-cccccc") == 0 && strcmp(e[4].id, "nightly") == 0);
    pipe_run_entries_free(e, n);
    fx_rmtree(store);
}

static void test_state(void)
{
    char *store = fx_tempdir("runstate"), err[512];
    add_run(store, "a", "2026-11-01T10:00:00.000Z", "done");
    add_run(store, "b", "2026-11-01T10:00:00.000Z", "failed");
    add_run(store, "c", "2026-11-01T10:00:00.000Z", "running");
    add_run(store, "d", "2026-11-01T10:00:00.000Z", "interrupted");
    pipe_run_info *info = NULL;
    static const char *const ids[] = {"a", "b", "d"};
    static const pipe_run_state want[] = {PIPE_RUN_SUCCEEDED, PIPE_RUN_FAILED, PIPE_RUN_INTERRUPTED};
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(pipe_run_info_read(store, ids[i], &info, err, sizeof err), 0);
        CHECK_EQ_INT(pipe_run_state_of(store, ids[i], info, NULL), want[i]);
        pipe_run_info_free(info);
    }
    CHECK_EQ_INT(pipe_run_info_read(store, "c", &info, err, sizeof err), 0);
    /* No lock file: started step by step (Slurm); nothing says it ended. */
    CHECK_EQ_INT(pipe_run_state_of(store, "c", info, NULL), PIPE_RUN_RUNNING);
    int fd = -1;
    CHECK_EQ_INT(pipe_run_lock_hold(store, "c", &fd, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_run_state_of(store, "c", info, NULL), PIPE_RUN_RUNNING);
    close(fd); /* the runner is gone */
    CHECK_EQ_INT(pipe_run_state_of(store, "c", info, NULL), PIPE_RUN_INTERRUPTED);
    CHECK_STREQ(pipe_run_state_name(PIPE_RUN_INTERRUPTED), "interrupted");
    pipe_run_info_free(info);
    /* A store that cannot be made (a file in the way): an error naming it. */
    CHECK(pipe_run_lock_hold("/dev/null/store", "c", &fd, err, sizeof err) != 0);
    CHECK(fx_contains(err, "/dev/null/store"));
    fx_rmtree(store);
}

/* Another runner's sweep removes an unborn run's folder (nothing in it but
   a free run.lock) while it holds that lock: a runner that opened the lock
   file before and locks it after must not hold a lock on a removed file in
   a removed folder (the run then failed writing .reserve: ENOENT). */
static void test_lock_swept_away(void)
{
    char *store = fx_tempdir("lockswept"), err[512], holder[256];
    char *dir = pipe_asprintf("%s/r", store), *path = pipe_run_lock_path(store, "r");
    CHECK(mkdir(dir, 0700) == 0);
    int sweeper = -1;
    CHECK_EQ_INT(pipe_lock_take(path, 0, &sweeper, NULL, holder, sizeof holder, err, sizeof err), 0);
    pid_t child = fork();
    if (child == 0) { /* the runner: opens run.lock now, locks it once the sweeper lets go */
        int fd = -1;
        struct stat held, named;
        close(sweeper); /* the sweeper's lock is the parent's alone */
        int rc = pipe_run_lock_hold(store, "r", &fd, err, sizeof err);
        _exit(rc == 0 && fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_ino == named.st_ino ? 0 : 1);
    }
    pipe_sleep_ms(300); /* the child has opened the file and waits for the lock */
    CHECK(unlink(path) == 0);
    CHECK(rmdir(dir) == 0);
    close(sweeper);
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0); /* the lock it holds is the file run.lock names */
    free(dir);
    free(path);
    fx_rmtree(store);
}

int main(void)
{
    test_resolve();
    test_state();
    test_lock_swept_away();
    return check_summary();
}
