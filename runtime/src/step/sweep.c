#include "sweep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipe/error.h"
#include "proc/procs.h"
#include "store/run_lock.h"
#include "store/commit.h"
#include "store/stepfile.h"
#include "store/store.h"
#include "util/cli.h"
#include "util/util.h"

/* The part of an invocation id that goes into a scratch folder's name. */
#define SCRATCH_NAME_ID_MAX 64

static void random_suffix(char *out, size_t n)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char bytes[16] = {0};
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, bytes, sizeof bytes) : -1;
    if (fd >= 0)
        close(fd);
    if (got != (ssize_t)sizeof bytes) { /* no urandom: time and pid still differ */
        unsigned long x = (unsigned long)(pipe_now() * 1e6) ^ ((unsigned long)getpid() << 16);
        for (size_t i = 0; i < sizeof bytes; i++, x = x * 6364136223846793005ul + 1442695040888963407ul)
            bytes[i] = (unsigned char)(x >> 33);
    }
    for (size_t i = 0; i + 1 < n && i < sizeof bytes; i++)
        out[i] = alphabet[bytes[i] % (sizeof alphabet - 1)];
    out[n - 1] = '\0';
}

int pipe_scratch_make(int lock_fd, const char *invocation, bool create, char **path, char *err, size_t errsize)
{
    const char *tmp = getenv("TMPDIR");
    char cwd[4096] = "";
    if (!tmp || !*tmp)
        tmp = "/tmp";
    /* Absolute: the record must name it for a sweeper in another folder. */
    if (tmp[0] != '/' && !getcwd(cwd, sizeof cwd)) {
        pipe_errf(err, errsize, "cannot find the working directory for TMPDIR=%s: %s", tmp, strerror(errno));
        return PIPE_EIO;
    }
    for (int attempt = 0; attempt < 100; attempt++) {
        char suffix[7];
        random_suffix(suffix, sizeof suffix);
        char *p = pipe_asprintf("%s%s%s/pipe-%.*s-%s", cwd, cwd[0] ? "/" : "", tmp, SCRATCH_NAME_ID_MAX, invocation,
                                suffix);
        char *line = p ? pipe_asprintf("scratch %s\n", p) : NULL;
        /* Recorded first: if this process dies after mkdir, a sweep knows. */
        if (!line) {
            free(p);
            return PIPE_ENOMEM;
        }
        if (lock_fd >= 0 && pipe_lock_record(lock_fd, line) != 0) {
            pipe_errf(err, errsize, "cannot record the scratch folder %s in the step's lock: %s", p, strerror(errno));
            free(p);
            free(line);
            return PIPE_EIO;
        }
        free(line);
        if (!create || mkdir(p, 0700) == 0) {
            *path = p;
            return 0;
        }
        int e = errno;
        if (e != EEXIST) {
            pipe_errf(err, errsize, "cannot create a scratch directory %s: %s", p, strerror(e));
            free(p);
            if (lock_fd >= 0)
                pipe_lock_record(lock_fd, NULL);
            return PIPE_EIO;
        }
        free(p);
    }
    pipe_errf(err, errsize, "cannot find a free name for a scratch directory in %s", tmp);
    return PIPE_EIO;
}

void pipe_scratch_remove(int lock_fd, const char *path)
{
    char err[512];
    /* Most often empty or never made: one call. */
    if (path && rmdir(path) != 0 && errno != ENOENT)
        pipe_remove_tree(path, err, sizeof err);
    if (lock_fd >= 0)
        pipe_lock_record(lock_fd, NULL);
}

/* A path this runtime made for scratch: absolute, a folder named pipe-*,
   no "..": a damaged record cannot make a sweep remove anything else. */
static bool is_scratch_path(const char *p)
{
    const char *base = strrchr(p, '/');
    return p[0] == '/' && base && strncmp(base + 1, "pipe-", 5) == 0 && !strstr(p, "/..");
}

int pipe_sweep_record(const char *record)
{
    char host[256] = "", recorded_host[256], scratch[4096];
    if (!record || !pipe_lock_record_field(record, "scratch", scratch, sizeof scratch) || !is_scratch_path(scratch))
        return 0;
    gethostname(host, sizeof host - 1);
    /* Another machine's /tmp (a store shared by a cluster) is not ours. */
    if (pipe_lock_record_field(record, "host", recorded_host, sizeof recorded_host) && strcmp(recorded_host, host) != 0)
        return 0;
    char err[512];
    return pipe_remove_tree(scratch, err, sizeof err);
}

/* outputs/ of an invocation whose machine-0 supervisor died: only the
   temporary files and folders (.NAME.tmp, .NAME.tmp.PID) when step.yaml
   says it finished, else all of it (a failed or unfinished invocation
   keeps no outputs); and the invocation folder's temporary files
   (NAME.tmp.PID). 0, or PIPE_EIO when something could not be removed. */
static int sweep_outputs(const char *store, const char *run_id, const char *invocation)
{
    char *dir = pipe_store_invocation_dir(store, run_id, invocation);
    char *outdir = dir ? pipe_asprintf("%s/outputs", dir) : NULL;
    char *step = pipe_store_step_file(store, run_id, invocation);
    pipe_step_record *rec = NULL;
    char err[512];
    int rc = PIPE_ENOMEM;
    if (dir && outdir && step) {
        bool finished =
            pipe_step_record_read(step, &rec, err, sizeof err) == 0 && pipe_step_status_succeeded(rec->status);
        rc = finished ? pipe_remove_temporaries(outdir, ".", ".tmp") : pipe_remove_tree(outdir, err, sizeof err);
        /* step.yaml's, a rank's error file's, the profile's */
        if (pipe_remove_temporaries(dir, "", ".tmp") != 0)
            rc = PIPE_EIO;
        pipe_remove_entry(dir, ".reserve");
        pipe_remove_entry(dir, ".log.tail");
    }
    pipe_step_record_free(rec);
    free(step);
    free(outdir);
    free(dir);
    return rc;
}

/* What a dead machine N > 0 (its lock file step.lock.machine-N) leaves in
   the invocation folder: its ranks' error files' temporary files
   (error.rank-R.tmp.PID), its room kept for a record (.reserve.machine-N)
   and its log's ring (.log.machine-N.tail); its log and its failure record
   stay. 0, or PIPE_EIO. */
static int sweep_machine_files(const char *lock_path, const char *store, const char *run_id, const char *invocation)
{
    char *dir = pipe_store_invocation_dir(store, run_id, invocation);
    int rc = dir ? pipe_remove_temporaries(dir, "error.rank-", ".tmp") : PIPE_ENOMEM;
    const char *machine = strstr(lock_path, "step.lock.machine-");
    if (dir && machine) {
        char name[96];
        machine += strlen("step.lock");
        snprintf(name, sizeof name, ".reserve%s", machine);
        pipe_remove_entry(dir, name);
        snprintf(name, sizeof name, ".log%s.tail", machine);
        pipe_remove_entry(dir, name);
    }
    free(dir);
    return rc;
}

/* One lock file of an invocation: 1 when its dead holder's leftovers were
   removed. A removal that fails (a process that had not let go was still
   writing) keeps the record, for a later sweep to finish. */
static int sweep_lock(const char *path, unsigned wait_ms, bool machine0, const char *store, const char *run_id,
                      const char *invocation)
{
    struct stat st;
    if (stat(path, &st) != 0 || st.st_size == 0)
        return 0; /* no record: nothing was left, or nobody ever held it */
    int fd;
    char *prev = NULL, holder[256], err[512];
    if (pipe_lock_take(path, wait_ms, &fd, &prev, holder, sizeof holder, err, sizeof err) != 0)
        return 0; /* alive */
    int swept = 0, rc = 0;
    if (prev) {
        rc = pipe_sweep_record(prev);
        if (machine0 && sweep_outputs(store, run_id, invocation) != 0)
            rc = PIPE_EIO;
        if (!machine0 && sweep_machine_files(path, store, run_id, invocation) != 0)
            rc = PIPE_EIO;
        swept = rc == 0;
    }
    free(prev);
    if (rc == 0)
        pipe_lock_release(fd);
    else
        close(fd); /* the record stays */
    return swept;
}

/* Calls fn on each lock file of the invocation (step.lock,
   step.lock.machine-N); the sum of what it returns. */
static int each_lock(const char *store, const char *run_id, const char *invocation,
                     int (*fn)(const char *path, bool machine0, void *arg), void *arg)
{
    char *dir = pipe_store_invocation_dir(store, run_id, invocation);
    DIR *d = dir ? opendir(dir) : NULL;
    int sum = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strncmp(e->d_name, "step.lock", 9) != 0)
                continue;
            char *path = pipe_asprintf("%s/%s", dir, e->d_name);
            if (path)
                sum += fn(path, strcmp(e->d_name, "step.lock") == 0, arg);
            free(path);
        }
        closedir(d);
    }
    free(dir);
    return sum;
}

static int lock_held(const char *path, bool machine0, void *arg)
{
    (void)machine0;
    (void)arg;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return held;
}

bool pipe_sweep_held(const char *store, const char *run_id, const char *invocation)
{
    return each_lock(store, run_id, invocation, lock_held, NULL) > 0;
}

static int kill_holders(const char *path, bool machine0, void *arg)
{
    (void)machine0;
    (void)arg;
    return (int)pipe_procs_kill_holders(path, 2000);
}

size_t pipe_sweep_kill_holders(const char *store, const char *run_id, const char *invocation)
{
    return (size_t)each_lock(store, run_id, invocation, kill_holders, NULL);
}

typedef struct sweep_args {
    const char *store, *run_id, *invocation;
    unsigned wait_ms;
} sweep_args;

static int sweep_one(const char *path, bool machine0, void *arg)
{
    const sweep_args *a = arg;
    return sweep_lock(path, a->wait_ms, machine0, a->store, a->run_id, a->invocation);
}

int pipe_sweep_invocation(const char *store, const char *run_id, const char *invocation, unsigned wait_ms)
{
    sweep_args a = {store, run_id, invocation, wait_ms};
    return each_lock(store, run_id, invocation, sweep_one, &a) > 0;
}
