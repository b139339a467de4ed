/* The sweep of a whole store when a run starts (sweep_store.h). */
#include "sweep_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "step/sweep.h"
#include "store/commit.h"
#include "store/run_lock.h"
#include "store/store.h"
#include "util/cli.h"
#include "util/util.h"

/* A run whose runner is gone while run.yaml says `running`: marked
   `interrupted`. 1 when it was. */
static int sweep_run(const char *store, const char *run_id)
{
    char *path = pipe_run_lock_path(store, run_id), *dir = pipe_store_run_dir(store, run_id);
    int fd, swept = 0;
    char holder[256], err[512];
    if (path && dir && access(path, F_OK) == 0 &&
        pipe_lock_take(path, 0, &fd, NULL, holder, sizeof holder, err, sizeof err) == 0) {
        pipe_run_info *info = NULL;
        if (pipe_run_info_read(store, run_id, &info, err, sizeof err) == 0 && info->status &&
            strcmp(info->status, "running") == 0) {
            char now[40], *status = pipe_strdup("interrupted");
            pipe_iso8601(now, sizeof now);
            if (status) {
                free(info->status);
                info->status = status;
                free(info->finished);
                info->finished = pipe_strdup(now);
                swept = pipe_run_info_write(store, run_id, info, PIPE_RUN_WRITE_REPLACE, NULL, err, sizeof err) == 0;
            }
            pipe_remove_temporaries(dir, "run.yaml", ".tmp");
            pipe_remove_temporaries(dir, "run.yaml", ".new");
            /* The group commit's list (store/commit.h) stays: it says what
               to verify; a new one that was never renamed goes. */
            pipe_remove_temporaries(dir, "unsynced", ".tmp");
            pipe_remove_entry(dir, ".reserve");
            pipe_remove_entry(dir, ".reserve.steps");
        }
        /* A runner that died before its end left writes that may not be
           durable: what its list does not name is verified (commit.h). */
        size_t dropped = 0;
        if (pipe_commit_recover(store, run_id, &dropped, err, sizeof err) != 0)
            pipe_cli_warning("%s (a later run tries again)", err);
        else if (dropped > 0)
            pipe_cli_warning("run %s: %zu record%s written before a crash named outputs that did not survive it; "
                             "%s as unfinished",
                             run_id, dropped, dropped == 1 ? "" : "s", dropped == 1 ? "it counts" : "they count");
        swept += dropped > 0;
        pipe_run_info_free(info);
        pipe_lock_release(fd);
    }
    free(path);
    free(dir);
    return swept;
}

/* A runner killed after it locked its new run and before it wrote run.yaml
   leaves a folder with nothing but run.lock: with the lock free, the folder
   goes (so the run id can be used again). 1 when one did. */
static int sweep_unborn_run(const char *store, const char *run_id)
{
    char *dir = pipe_store_run_dir(store, run_id), *lock = pipe_run_lock_path(store, run_id);
    char *run_file = pipe_store_run_file(store, run_id);
    int fd, swept = 0;
    char holder[256], err[512];
    if (dir && lock && run_file && !pipe_file_exists(run_file) && access(lock, F_OK) == 0 &&
        pipe_lock_take(lock, 0, &fd, NULL, holder, sizeof holder, err, sizeof err) == 0) {
        /* Still unborn under the lock: its runner is gone. */
        if (!pipe_file_exists(run_file) && unlink(lock) == 0) {
            pipe_remove_entry(dir, ".reserve");
            pipe_remove_entry(dir, ".reserve.steps");
            rmdir(dir); /* fails, harmlessly, when something else is in it */
            swept = 1;
        }
        close(fd);
    }
    free(dir);
    free(lock);
    free(run_file);
    return swept;
}

/* Folders of the store that hold a run.lock but no run.yaml. */
static size_t sweep_unborn_runs(const char *store)
{
    DIR *d = opendir(store);
    size_t swept = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && strcmp(e->d_name, "cache") != 0)
            swept += (size_t)sweep_unborn_run(store, e->d_name);
    if (d)
        closedir(d);
    return swept;
}

size_t pipe_sweep_store(const char *store)
{
    char **ids = NULL, err[512];
    size_t n = 0, swept = 0;
    if (pipe_store_list_runs(store, &ids, &n, err, sizeof err) != 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char *dir = pipe_store_run_dir(store, ids[i]);
        DIR *d = dir ? opendir(dir) : NULL;
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            struct stat st;
            bool is_dir = e->d_type == DT_DIR ||
                          (e->d_type == DT_UNKNOWN && fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                           S_ISDIR(st.st_mode));
            if (e->d_name[0] != '.' && is_dir)
                swept += (size_t)pipe_sweep_invocation(store, ids[i], e->d_name, 0);
        }
        if (d)
            closedir(d);
        free(dir);
        swept += (size_t)sweep_run(store, ids[i]);
    }
    pipe_store_free_list(ids, n);
    return swept + sweep_unborn_runs(store);
}
