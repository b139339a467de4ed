/* Hashing on a second thread (hash_pipeline.c) gives the plain SHA-256 of
   the bytes: for odd sizes and feeds across the ring's slots, through a
   file read, through pipe_output_open's stream of a large odd-sized output
   and for a command step's output hashed while it is committed. A write
   that fails midway (ENOSPC) fails the output with no file and no note; a
   cancelled pipeline stops; a fork leaves the child a copy that gives no
   digest, and the parent's digest stays right. The reference digest is the
   built-in code on one thread (not libcrypto, which the pipeline uses). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/ctx.h"
#include "check.h"
#include "pipe/pipe.h"
#include "output_fixture.h"
#include "step_fixture.h"
#include "store/artifact.h"
#include "store/digest_note.h"
#include "store/hash_pipeline.h"
#include "store/hashed_stream.h"

/* Bytes that repeat with no short period. */
static unsigned char *pattern(size_t n, unsigned seed)
{
    unsigned char *b = malloc(n ? n : 1);
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        b[i] = (unsigned char)(x >> 16);
    }
    return b;
}

static void reference(const void *data, size_t n, char hex[PIPE_SHA256_HEX_SIZE])
{
    pipe_sha256 s;
    unsigned char d[PIPE_SHA256_SIZE];
    pipe_sha256_init_builtin(&s);
    pipe_sha256_update(&s, data, n);
    pipe_sha256_final(&s, d);
    pipe_sha256_to_hex(d, hex);
}

static void reference_file(const char *path, char hex[PIPE_SHA256_HEX_SIZE])
{
    size_t n = 0;
    char *text = NULL;
    CHECK_EQ_INT(pipe_read_file_max(path, (size_t)1 << 30, &text, &n, NULL, 0), 0);
    reference(text ? text : "", text ? n : 0, hex);
    free(text);
}

static bool write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, n, f) == n;
    return f && fclose(f) == 0 && ok;
}

/* Sizes around the slots (1 MiB) and the ring (4 slots), fed in pieces of
   odd lengths. */
static void test_feeds(void)
{
    static const size_t sizes[] = {0, 1, 63, 64, 65, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, (4 << 20) + 13,
                                   (9 << 20) + 7};
    static const size_t pieces[] = {1, 4097, 1 << 20, 3 << 20, 65536 + 3};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        unsigned char *data = pattern(sizes[i], (unsigned)i);
        char want[PIPE_SHA256_HEX_SIZE];
        reference(data, sizes[i], want);
        for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
            if (pieces[k] == 1 && sizes[i] > (2 << 20))
                continue; /* a byte at a time: only for the small ones */
            pipe_hash_pipeline *p = pipe_hash_pipeline_start(NULL);
            CHECK_NOT_NULL(p);
            if (!p)
                break;
            for (size_t off = 0; off < sizes[i]; off += pieces[k])
                pipe_hash_pipeline_feed(p, data + off, sizes[i] - off < pieces[k] ? sizes[i] - off : pieces[k]);
            unsigned char d[PIPE_SHA256_SIZE];
            char got[PIPE_SHA256_HEX_SIZE] = "";
            CHECK(pipe_hash_pipeline_finish(p, d));
            pipe_sha256_to_hex(d, got);
            if (strcmp(got, want) != 0)
                fprintf(stderr, "size %zu in pieces of %zu:\n", sizes[i], pieces[k]);
            CHECK_STREQ(got, want);
        }
        free(data);
    }
}

/* A pipeline goes on from bytes hashed on the caller's thread. */
static void test_taken_over(void)
{
    size_t n = (3 << 20) + 5;
    unsigned char *data = pattern(n, 7);
    char want[PIPE_SHA256_HEX_SIZE], got[PIPE_SHA256_HEX_SIZE] = "";
    reference(data, n, want);
    pipe_sha256 s;
    pipe_sha256_init(&s);
    pipe_sha256_update(&s, data, 5000); /* libcrypto's state by now */
    pipe_hash_pipeline *p = pipe_hash_pipeline_start(&s);
    CHECK_NOT_NULL(p);
    if (p) {
        pipe_hash_pipeline_feed(p, data + 5000, n - 5000);
        unsigned char d[PIPE_SHA256_SIZE];
        CHECK(pipe_hash_pipeline_finish(p, d));
        pipe_sha256_to_hex(d, got);
        CHECK_STREQ(got, want);
    }
    pipe_sha256_discard(&s); /* left empty by the start: harmless */
    free(data);
}

/* Files read while another thread hashes: odd sizes, a missing file. */
static void test_files(void)
{
    char *dir = fx_tempdir("hash-files");
    char *path = pipe_asprintf("%s/f", dir), err[512] = "";
    static const size_t sizes[] = {0, 5, (1 << 20) + 1, (5 << 20) + 12345};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        unsigned char *data = pattern(sizes[i], 100 + (unsigned)i);
        CHECK(write_file(path, data, sizes[i]));
        char want[PIPE_SHA256_HEX_SIZE], got[PIPE_SHA256_HEX_SIZE] = "", plain[PIPE_SHA256_HEX_SIZE] = "";
        reference(data, sizes[i], want);
        CHECK_EQ_INT(pipe_hash_pipeline_file(path, got, err, sizeof err), 0);
        CHECK_STREQ(got, want);
        CHECK_EQ_INT(pipe_artifact_digest(path, plain, err, sizeof err), 0);
        CHECK_STREQ(plain, want);
        free(data);
    }
    char *missing = pipe_asprintf("%s/none", dir);
    char hex[PIPE_SHA256_HEX_SIZE];
    CHECK_EQ_INT(pipe_hash_pipeline_file(missing, hex, err, sizeof err), PIPE_ENOENT);
    CHECK(strstr(err, "none") != NULL);
    free(missing);
    free(path);
    fx_rmtree(dir);
}

/* A file hashed in the background while it is moved: the note for its new
   path holds its digest; a small file or a folder starts nothing. */
static void test_file_hash_note(void)
{
    char *dir = fx_tempdir("hash-note");
    char *tmp = pipe_asprintf("%s/.out.tmp", dir), *final = pipe_asprintf("%s/out", dir);
    size_t n = (6 << 20) + 77;
    unsigned char *data = pattern(n, 3);
    CHECK(write_file(tmp, data, n));
    char want[PIPE_SHA256_HEX_SIZE], got[PIPE_SHA256_HEX_SIZE] = "";
    reference(data, n, want);
    pipe_file_hash *h = pipe_file_hash_start(tmp);
    CHECK_NOT_NULL(h);
    CHECK_EQ_INT(rename(tmp, final), 0);
    pipe_file_hash_note(h, final);
    CHECK(pipe_digest_note_take(final, got));
    CHECK_STREQ(got, want);

    CHECK(write_file(tmp, "small", 5));
    CHECK(pipe_file_hash_start(tmp) == NULL);
    CHECK(pipe_file_hash_start(dir) == NULL);
    /* Waited for, without a note (a commit that failed). */
    CHECK(write_file(tmp, data, n));
    h = pipe_file_hash_start(tmp);
    CHECK_NOT_NULL(h);
    pipe_file_hash_note(h, NULL);
    char *note = pipe_asprintf("%s/.out.sha256", dir);
    CHECK(!pipe_file_exists(note));
    free(note);
    free(data);
    free(tmp);
    free(final);
    fx_rmtree(dir);
}

/* Cancelled with slots still queued, and before anything was fed. */
static void test_cancel(void)
{
    size_t n = 16 << 20;
    unsigned char *data = pattern(n, 9);
    pipe_hash_pipeline *p = pipe_hash_pipeline_start(NULL);
    CHECK_NOT_NULL(p);
    if (p) {
        pipe_hash_pipeline_feed(p, data, n);
        pipe_hash_pipeline_cancel(p);
    }
    pipe_hash_pipeline_cancel(pipe_hash_pipeline_start(NULL));
    pipe_hash_pipeline_cancel(NULL);
    free(data);
}

/* A fork while a pipeline is alive: the child's copy gives no digest and
   does not wait for a thread it does not have; the parent's is right. */
static void test_fork(void)
{
    size_t n = (7 << 20) + 3;
    unsigned char *data = pattern(n, 11);
    char want[PIPE_SHA256_HEX_SIZE], got[PIPE_SHA256_HEX_SIZE] = "";
    reference(data, n, want);
    pipe_hash_pipeline *p = pipe_hash_pipeline_start(NULL);
    CHECK_NOT_NULL(p);
    if (!p) {
        free(data);
        return;
    }
    pipe_hash_pipeline_feed(p, data, n / 2);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20); /* a child that waits for a missing thread would hang */
        pipe_hash_pipeline_feed(p, data + n / 2, n - n / 2);
        unsigned char d[PIPE_SHA256_SIZE];
        bool digest = pipe_hash_pipeline_finish(p, d);
        /* And a new pipeline in the child works. */
        pipe_hash_pipeline *q = pipe_hash_pipeline_start(NULL);
        bool fresh = q != NULL;
        if (q) {
            pipe_hash_pipeline_feed(q, "abc", 3);
            fresh = pipe_hash_pipeline_finish(q, d);
            char hex[PIPE_SHA256_HEX_SIZE];
            pipe_sha256_to_hex(d, hex);
            fresh = fresh && strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0;
        }
        _exit(!digest && fresh ? 0 : 1);
    }
    CHECK(pid > 0);
    pipe_hash_pipeline_feed(p, data + n / 2, n - n / 2);
    unsigned char d[PIPE_SHA256_SIZE];
    CHECK(pipe_hash_pipeline_finish(p, d));
    pipe_sha256_to_hex(d, got);
    CHECK_STREQ(got, want);
    int status = 0;
    CHECK_EQ_INT((int)waitpid(pid, &status, 0), (int)pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(data);
}

/* A large odd-sized output through pipe_output_open, in writes of mixed
   sizes: the note's digest is the file's plain SHA-256. */
static void test_large_output(void)
{
    char *dir = fx_tempdir("hash-output");
    pipe_ctx *ctx = fx_model_ctx(dir);
    FILE *f = ctx ? pipe_output_open(ctx, "model") : NULL;
    CHECK_NOT_NULL(f);
    if (!f)
        return;
    size_t n = (11 << 20) + 4321;
    unsigned char *data = pattern(n, 5);
    size_t off = 0;
    for (size_t step = 1; off < n; step = step * 3 + 1) { /* 1, 4, 13, ... up to several MiB */
        size_t take = step % (3 << 20);
        take = take < n - off ? take : n - off;
        CHECK_EQ_INT((int)fwrite(data + off, 1, take, f), (int)take);
        off += take;
    }
    fprintf(f, "end\n");
    CHECK_EQ_INT(pipe_ctx_finish(ctx, 0, NULL, 0), 0);
    char *final = pipe_asprintf("%s/outputs/model", dir);
    char want[PIPE_SHA256_HEX_SIZE], got[PIPE_SHA256_HEX_SIZE] = "";
    reference_file(final, want);
    struct stat st;
    CHECK(stat(final, &st) == 0 && (size_t)st.st_size == n + 4);
    CHECK(pipe_digest_note_take(final, got));
    CHECK_STREQ(got, want);
    pipe_ctx_destroy(ctx);
    free(final);
    free(data);
    fx_rmtree(dir);
}

/* The disk fills up midway (the output's file is /dev/full): the step's
   output fails with the error, and nothing of it is left, not even a
   note. */
static void test_full_disk(void)
{
    char *dir = fx_tempdir("hash-full");
    pipe_ctx *ctx = fx_model_ctx(dir);
    CHECK_NOT_NULL(ctx);
    if (!ctx)
        return;
    CHECK_EQ_INT(symlink("/dev/full", ctx->outputs[0].tmp_path), 0);
    FILE *f = pipe_output_open(ctx, "model");
    CHECK_NOT_NULL(f);
    /* The bytes end where a page no one may read begins: a stream that
       made stdio read past the caller's buffer after a failed write (a
       cookie write returning -1) crashes here. */
    size_t n = 5 << 20, page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *area = mmap(NULL, n + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(area != MAP_FAILED && mprotect(area + n, page, PROT_NONE) == 0);
    unsigned char *data = area, *fill = pattern(n, 13);
    memcpy(data, fill, n);
    free(fill);
    CHECK(fwrite(data, 1, n, f) < n);
    char err[512] = "";
    CHECK(pipe_ctx_finish(ctx, 0, err, sizeof err) != 0);
    CHECK(strstr(err, "No space left on device") != NULL);
    char *final = pipe_asprintf("%s/outputs/model", dir), *note = pipe_asprintf("%s/outputs/.model.sha256", dir);
    struct stat st;
    CHECK(lstat(final, &st) != 0 && errno == ENOENT);
    CHECK(lstat(ctx->outputs[0].tmp_path, &st) != 0);
    CHECK(!pipe_file_exists(note));
    pipe_ctx_destroy(ctx);

    /* The stream alone: a failing write leaves no digest, and freeing it
       ends its thread. */
    int fd = open("/dev/full", O_WRONLY);
    pipe_hashed_stream *hs = NULL;
    f = pipe_hashed_stream_open(fd, &hs);
    CHECK_NOT_NULL(f);
    CHECK(fwrite(data, 1, n, f) < n || fflush(f) != 0);
    fclose(f);
    close(fd);
    pipe_hashed_stream_free(hs);
    free(final);
    free(note);
    munmap(area, n + page);
    fx_rmtree(dir);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    test_feeds();
    test_taken_over();
    test_files();
    test_file_hash_note();
    test_cancel();
    test_fork();
    test_large_output();
    test_full_disk();
    return check_summary();
}
