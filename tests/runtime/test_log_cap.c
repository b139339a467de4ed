/* A log's bound (step/log_cap.c) and the room kept for records on a full
   disk (store/reserve.c): the first half as it comes, the ring of the last
   half (wrapping mid-line), the marker that names the lines cut, the tail a
   failure reads while the ring is in use, no bound, values of
   PIPE_LOG_MAX_SIZE; a reserve's blocks and the disk-full message. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "step/log_cap.h"
#include "pipe/error.h"
#include "store/reserve.h"
#include "store/store.h"
#include "util/util.h"

static char dir[] = "/tmp/pipe-test-log-cap-XXXXXX";

static char *slurp(const char *path, size_t *len)
{
    char *text = NULL;
    *len = 0;
    return pipe_read_file(path, &text, len, NULL, 0) == 0 ? text : NULL;
}

/* n lines "line K xxx..." of 100 bytes each through the bound; the bytes. */
static uint64_t flood(pipe_log_cap *c, int fd, int n)
{
    uint64_t total = 0;
    for (int k = 1; k <= n; k++) {
        char line[128];
        int len = snprintf(line, sizeof line, "line %d ", k);
        memset(line + len, 'x', (size_t)(99 - len));
        line[99] = '\n';
        const char *path;
        CHECK(pipe_log_cap_write(c, fd, line, 100, &path) == 0);
        total += 100;
    }
    return total;
}

static int open_log(const char *path) { return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644); }

static void test_cut(void)
{
    char *log = pipe_asprintf("%s/log", dir);
    setenv("PIPE_LOG_MAX_SIZE", "64KiB", 1);
    pipe_log_cap c;
    CHECK(pipe_log_cap_init(&c, log, NULL, 0) == 0);
    CHECK(c.head_max == 32768 && c.ring_size == 32768);
    CHECK_STREQ(c.ring_path + strlen(dir), "/.log.tail");
    int fd = open_log(log);
    uint64_t total = flood(&c, fd, 5000); /* 500 KB: the ring goes round 14 times and a bit */
    CHECK(pipe_log_cap_offset(&c) == total);
    struct stat st;
    CHECK(stat(log, &st) == 0 && st.st_size == 32700); /* 327 whole lines */
    CHECK(access(c.ring_path, F_OK) == 0);
    /* The tail a failure reads comes from the ring. */
    char *tail = NULL;
    size_t len = 0;
    uint64_t start = 0;
    CHECK(pipe_log_cap_tail(&c, log, 1000, &tail, &len, &start) == 0);
    CHECK(len == 1000 && start == total - 1000);
    CHECK(tail && strstr(tail, "line 5000 x") != NULL && tail[len - 1] == '\n');
    free(tail);
    const char *path;
    CHECK(pipe_log_cap_finish(&c, fd, &path) == 0);
    CHECK(access(c.ring_path, F_OK) != 0);
    close(fd);
    pipe_log_cap_free(&c);
    char *text = slurp(log, &len);
    CHECK(text != NULL && len <= 65536 + 200 && len > 65536 - 200);
    /* 327 lines, the marker, then the kept lines: whole ones only. */
    char *marker = text ? strstr(text, "[pipe: ") : NULL;
    CHECK(marker == text + 32700);
    unsigned long from = 0, to = 0;
    CHECK(marker && sscanf(marker, "[pipe: %*s %*s of output cut here (lines %lu-%lu)", &from, &to) == 2);
    CHECK(from == 328);
    char *after = marker ? strchr(marker, '\n') : NULL;
    char want[32];
    snprintf(want, sizeof want, "line %lu x", to + 1);
    CHECK(after && strncmp(after + 1, want, strlen(want)) == 0);
    CHECK(marker && strstr(marker, "; the log keeps the first 31.9 KiB and the last ") != NULL);
    CHECK(len >= 10 && strncmp(text + len - 100, "line 5000 x", 11) == 0);
    /* Every line after the marker is whole and they follow each other. */
    unsigned long expect = to + 1, bad = 0;
    for (char *p = after ? after + 1 : NULL; p && *p; p = strchr(p, '\n') + 1) {
        unsigned long k;
        if (sscanf(p, "line %lu ", &k) != 1 || k != expect++ || strchr(p, '\n') - p != 99)
            bad++;
    }
    CHECK(bad == 0 && expect == 5001);
    free(text);
    free(log);
}

static void test_under_bound(void)
{
    char *log = pipe_asprintf("%s/log2", dir);
    setenv("PIPE_LOG_MAX_SIZE", "64KiB", 1);
    pipe_log_cap c;
    CHECK(pipe_log_cap_init(&c, log, NULL, 0) == 0);
    int fd = open_log(log);
    flood(&c, fd, 500); /* 50 KB: into the ring, which never goes round */
    const char *path;
    CHECK(pipe_log_cap_finish(&c, fd, &path) == 0);
    close(fd);
    pipe_log_cap_free(&c);
    size_t len;
    char *text = slurp(log, &len);
    CHECK(len == 50000 && text && !strstr(text, "[pipe: "));
    CHECK(text && strncmp(text + 49900, "line 500 x", 10) == 0);
    free(text);
    free(log);
}

static void test_settings(void)
{
    pipe_log_cap c;
    char err[256] = "";
    setenv("PIPE_LOG_MAX_SIZE", "0", 1);
    CHECK(pipe_log_cap_init(&c, "/x/log", err, sizeof err) == 0 && c.max == 0);
    char *log = pipe_asprintf("%s/log3", dir);
    int fd = open_log(log);
    const char *path;
    for (int i = 0; i < 2000; i++)
        CHECK(pipe_log_cap_write(&c, fd, "0123456789012345678901234567890123456789\n", 41, &path) == 0);
    CHECK(c.ring_fd < 0 && c.head == 82000);
    close(fd);
    pipe_log_cap_free(&c);
    free(log);
    setenv("PIPE_LOG_MAX_SIZE", "1000", 1);
    CHECK(pipe_log_cap_init(&c, "log", err, sizeof err) == 0 && c.max == PIPE_LOG_MAX_MIN);
    CHECK_STREQ(c.ring_path, ".log.tail");
    pipe_log_cap_free(&c);
    setenv("PIPE_LOG_MAX_SIZE", "2GiB", 1);
    CHECK(pipe_log_cap_init(&c, "/s/r/i/log.machine-1", err, sizeof err) == 0 && c.max == 2147483648ull);
    CHECK_STREQ(c.ring_path, "/s/r/i/.log.machine-1.tail");
    pipe_log_cap_free(&c);
    unsetenv("PIPE_LOG_MAX_SIZE");
    CHECK(pipe_log_cap_init(&c, "log", err, sizeof err) == 0 && c.max == 100u << 20);
    pipe_log_cap_free(&c);
    setenv("PIPE_LOG_MAX_SIZE", "lots", 1);
    CHECK(pipe_log_cap_init(&c, "log", err, sizeof err) == PIPE_EUSAGE);
    CHECK(strstr(err, "PIPE_LOG_MAX_SIZE: `lots` is not a size") != NULL);
    pipe_log_cap_free(&c);
    unsetenv("PIPE_LOG_MAX_SIZE");
}

/* Blocks allocated to the file at path, in bytes. */
static long long allocated(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_blocks * 512 : -1;
}

/* The room a run lends its supervisors: one file, a range per supervisor
   running; a range given back is freed on the disk and allocated again
   when it returns; the file goes with the pool. */
static void test_reserve_pool(void)
{
    pipe_reserve_pool p;
    pipe_reserve_pool_open(&p, dir);
    CHECK(p.fd >= 0 && p.path && allocated(p.path) >= (long long)PIPE_STEP_RESERVE_BYTES);
    long a = pipe_reserve_pool_lend(&p), b = pipe_reserve_pool_lend(&p);
    CHECK(a == 0 && b == 1);
    CHECK(allocated(p.path) >= 2LL * PIPE_STEP_RESERVE_BYTES);
    /* The supervisor lent b gives its room back. */
    long long before = allocated(p.path);
    pipe_reserve_lease_give_back(p.path, (long long)b * PIPE_STEP_RESERVE_BYTES);
    CHECK(allocated(p.path) <= before - (long long)PIPE_STEP_RESERVE_BYTES);
    pipe_reserve_pool_return(&p, b, true);
    CHECK(allocated(p.path) >= 2LL * PIPE_STEP_RESERVE_BYTES);
    /* Returned ranges are lent again before the file grows. */
    CHECK(pipe_reserve_pool_lend(&p) == 1);
    pipe_reserve_pool_return(&p, a, false);
    CHECK(pipe_reserve_pool_lend(&p) == 0);
    CHECK(pipe_reserve_pool_lend(&p) == 2);
    char *keep = pipe_strdup(p.path);
    pipe_reserve_pool_close(&p);
    CHECK(access(keep, F_OK) != 0 && p.fd == -1);
    free(keep);
    /* A disk without room for another range (here the file size limit:
       fallocate fails with EFBIG past it): nothing more is lent, the file
       stops growing, and a range is lent again once there is room. */
    struct rlimit saved;
    CHECK(getrlimit(RLIMIT_FSIZE, &saved) == 0);
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    pipe_reserve_pool_open(&p, dir);
    struct rlimit two = {2 * PIPE_STEP_RESERVE_BYTES, saved.rlim_max};
    CHECK(setrlimit(RLIMIT_FSIZE, &two) == 0);
    CHECK(pipe_reserve_pool_lend(&p) == 0 && pipe_reserve_pool_lend(&p) == 1);
    CHECK(pipe_reserve_pool_lend(&p) == -1 && pipe_reserve_pool_lend(&p) == -1 && p.n == 3);
    pipe_reserve_pool_return(&p, 1, true);
    CHECK(pipe_reserve_pool_lend(&p) == 1);
    CHECK(setrlimit(RLIMIT_FSIZE, &saved) == 0);
    CHECK(pipe_reserve_pool_lend(&p) == 2 && p.n == 3);
    signal(SIGXFSZ, was);
    pipe_reserve_pool_close(&p);

    /* No folder: nothing is lent, and that is not an error. */
    char *missing = pipe_asprintf("%s/no/such/folder", dir);
    pipe_reserve_pool_open(&p, missing);
    CHECK(p.fd == -1 && pipe_reserve_pool_lend(&p) == -1);
    pipe_reserve_pool_close(&p);
    free(missing);
}

static void test_reserve(void)
{
    char *path = NULL;
    CHECK(pipe_reserve_take(dir, ".reserve", PIPE_STEP_RESERVE_BYTES, &path) == 0);
    struct stat st;
    CHECK(path && stat(path, &st) == 0 && st.st_size == PIPE_STEP_RESERVE_BYTES &&
          (uint64_t)st.st_blocks * 512 >= PIPE_STEP_RESERVE_BYTES);
    char *keep = pipe_strdup(path);
    pipe_reserve_release(&path);
    CHECK(path == NULL && access(keep, F_OK) != 0);
    free(keep);
    char *missing = pipe_asprintf("%s/no/such/folder", dir);
    CHECK(pipe_reserve_take(missing, ".reserve", 4096, &path) == ENOENT && path == NULL);
    free(missing);

    char *log = pipe_asprintf("%s/r/i/log", dir);
    char *msg = pipe_disk_error(log, ENOSPC);
    char *want = pipe_asprintf("no space left on device writing %s (the store's disk, mounted at ", log);
    CHECK(msg && want && strncmp(msg, want, strlen(want)) == 0 && strstr(msg, ", is full)"));
    free(msg);
    free(want);
    msg = pipe_disk_error(log, EACCES);
    want = pipe_asprintf("cannot write %s: %s", log, strerror(EACCES));
    CHECK_STREQ(msg, want);
    free(msg);
    free(want);
    free(log);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_cut();
    test_under_bound();
    test_settings();
    test_reserve();
    test_reserve_pool();
    char err[256];
    pipe_remove_tree(dir, err, sizeof err);
    return check_summary();
}
