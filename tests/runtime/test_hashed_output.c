/* Outputs hashed while they are written (hashed_stream.c) and the digest
   notes that hand the digest to the supervisor (digest_note.c): the
   digest is the file's, writes in order keep it, a write after a seek back
   loses it (the file is read instead), and a note that no longer matches its
   file is ignored. Through pipe_output_open and pipe_ctx_finish as a step
   uses them. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/artifact.h"
#include "check.h"
#include "api/ctx.h"
#include "store/digest_note.h"
#include "store/hashed_stream.h"
#include "pipe/pipe.h"
#include "output_fixture.h"
#include "step_fixture.h"

/* The digest a read of the file gives. */
static void file_digest(const char *path, char hex[PIPE_SHA256_HEX_SIZE])
{
    char err[256] = "";
    CHECK_EQ_INT(pipe_artifact_digest(path, hex, err, sizeof err), 0);
}

/* Writes in order: the note holds the file's digest and matches it. */
static void test_in_order(void)
{
    char *dir = fx_tempdir("hashed");
    pipe_ctx *ctx = fx_model_ctx(dir);
    FILE *f = ctx ? pipe_output_open(ctx, "model") : NULL;
    CHECK_NOT_NULL(f);
    if (!f)
        return;
    CHECK_EQ_INT(fileno(f), -1); /* documented: no descriptor (pipe_output_path gives one) */
    char *big = malloc(3 << 20);
    for (int i = 0; i < 3 << 20; i++)
        big[i] = (char)(i * 7 + 1);
    fputs("header\n", f);
    CHECK_EQ_INT((long)ftell(f), 7); /* ftell asks the stream where it is: no harm */
    fwrite(big, 1, 3 << 20, f);
    for (int i = 0; i < 1000; i++)
        fprintf(f, "line %d\n", i);
    /* Back and forward again without writing: the digest still holds. */
    CHECK_EQ_INT(fseek(f, 0, SEEK_SET), 0);
    CHECK_EQ_INT(fseek(f, 0, SEEK_END), 0);
    fputs("tail\n", f);
    free(big);
    CHECK_EQ_INT(pipe_ctx_finish(ctx, 0, NULL, 0), 0);
    char *final = pipe_asprintf("%s/outputs/model", dir), *note = pipe_asprintf("%s/outputs/.model.sha256", dir);
    CHECK(pipe_file_exists(note));
    char want[PIPE_SHA256_HEX_SIZE], got[PIPE_SHA256_HEX_SIZE] = "";
    file_digest(final, want);
    CHECK(pipe_digest_note_take(final, got));
    CHECK_STREQ(got, want);
    CHECK(!pipe_file_exists(note)); /* taken: removed */
    CHECK(!pipe_digest_note_take(final, got));
    pipe_ctx_destroy(ctx);
    free(final);
    free(note);
    fx_rmtree(dir);
}

/* A write after a seek back: no note (the supervisor reads the file). */
static void test_seek_back(void)
{
    char *dir = fx_tempdir("hashed-seek");
    pipe_ctx *ctx = fx_model_ctx(dir);
    FILE *f = ctx ? pipe_output_open(ctx, "model") : NULL;
    CHECK_NOT_NULL(f);
    if (!f)
        return;
    fputs("0000 then the body", f);
    CHECK_EQ_INT(fseek(f, 0, SEEK_SET), 0);
    fputs("1234", f); /* a header patched at the end, as writers of sizes do */
    CHECK_EQ_INT(pipe_ctx_finish(ctx, 0, NULL, 0), 0);
    char *final = pipe_asprintf("%s/outputs/model", dir), *note = pipe_asprintf("%s/outputs/.model.sha256", dir);
    char *text = fx_read(final);
    CHECK_STREQ(text ? text : "", "1234 then the body");
    CHECK(!pipe_file_exists(note));
    free(text);
    pipe_ctx_destroy(ctx);
    free(final);
    free(note);
    fx_rmtree(dir);
}

/* The stream alone: its digest is that of the bytes written. */
static void test_stream(void)
{
    char *dir = fx_tempdir("hashed-stream");
    char *path = pipe_asprintf("%s/f", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pipe_hashed_stream *hs = NULL;
    FILE *f = pipe_hashed_stream_open(fd, &hs);
    CHECK_NOT_NULL(f);
    fputs("abc", f);
    CHECK_EQ_INT(fclose(f), 0);
    close(fd);
    char hex[PIPE_SHA256_HEX_SIZE] = "";
    uint64_t size = 0;
    CHECK(pipe_hashed_stream_digest(hs, hex, &size));
    CHECK_STREQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK_EQ_INT((int)size, 3);
    pipe_hashed_stream_free(hs);
    free(path);
    fx_rmtree(dir);
}

/* Past the write-behind mark (8 MiB: the bytes are handed to the disk
   as they go), the stream's bytes and digest are the file's, and a write
   after a seek back into what was handed over lands where it should. */
static void test_write_behind(void)
{
    char *dir = fx_tempdir("hashed-behind");
    char *path = pipe_asprintf("%s/f", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pipe_hashed_stream *hs = NULL;
    FILE *f = pipe_hashed_stream_open(fd, &hs);
    CHECK_NOT_NULL(f);
    size_t chunk = 1 << 20;
    char *buf = malloc(chunk);
    for (size_t i = 0; i < chunk; i++)
        buf[i] = (char)(i * 13 + 5);
    for (int i = 0; i < 20; i++)
        CHECK(fwrite(buf, 1, chunk, f) == chunk);
    CHECK_EQ_INT(fflush(f), 0);
    char hex[PIPE_SHA256_HEX_SIZE] = "", want[PIPE_SHA256_HEX_SIZE] = "";
    uint64_t size = 0;
    CHECK(pipe_hashed_stream_digest(hs, hex, &size));
    file_digest(path, want);
    CHECK_STREQ(hex, want);
    CHECK(size == 20u * chunk);
    CHECK_EQ_INT(fseek(f, 4096, SEEK_SET), 0);
    fputs("patched", f);
    CHECK_EQ_INT(fclose(f), 0);
    close(fd);
    char *text = NULL;
    size_t len = 0;
    char err[256];
    CHECK_EQ_INT(pipe_read_file_max(path, 64u << 20, &text, &len, err, sizeof err), 0);
    CHECK(len == 20u * chunk && text && memcmp(text + 4096, "patched", 7) == 0 && text[4096 + 7] == buf[4096 + 7] &&
          memcmp(text + 8 * chunk, buf, chunk) == 0);
    free(text);
    free(buf);
    pipe_hashed_stream_free(hs);
    free(path);
    fx_rmtree(dir);
}

/* A note made for other bytes than the file's now is not believed. */
static void test_stale_note(void)
{
    char *dir = fx_tempdir("hashed-note");
    char *path = pipe_asprintf("%s/model", dir), *note = pipe_asprintf("%s/.model.sha256", dir);
    CHECK(fx_write(path, "abc"));
    struct stat st;
    CHECK_EQ_INT(stat(path, &st), 0);
    const char *abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    char got[PIPE_SHA256_HEX_SIZE] = "";
    CHECK_EQ_INT(pipe_digest_note_write(path, abc, &st), 0);
    CHECK(pipe_digest_note_take(path, got));
    CHECK_STREQ(got, abc);

    /* Rewritten with the same size: another modification time. */
    CHECK_EQ_INT(pipe_digest_note_write(path, abc, &st), 0);
    struct timeval later[2] = {{st.st_atim.tv_sec, 0}, {st.st_mtim.tv_sec + 5, 0}};
    CHECK(fx_write(path, "abd"));
    utimes(path, later);
    CHECK(!pipe_digest_note_take(path, got));
    CHECK(!pipe_file_exists(note));

    /* A damaged note. */
    CHECK(fx_write(note, "pipe-digest-1 zz"));
    CHECK(!pipe_digest_note_take(path, got));
    free(path);
    free(note);
    fx_rmtree(dir);
}

/* With the board open (a supervisor's, before it forks its ranks), notes
   are shared memory: a fork's note reaches its parent with no file made;
   a note for other bytes is still not believed. Runs last: the board
   stays open in this process. */
static void test_board(void)
{
    char *dir = fx_tempdir("hashed-board");
    char *path = pipe_asprintf("%s/model", dir), *note = pipe_asprintf("%s/.model.sha256", dir);
    const char *abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    char got[PIPE_SHA256_HEX_SIZE] = "";
    CHECK(fx_write(path, "abc"));
    pipe_digest_board_open();
    pid_t pid = fork();
    if (pid == 0) {
        struct stat st;
        _exit(stat(path, &st) == 0 && pipe_digest_note_write(path, abc, &st) == 0 ? 0 : 1);
    }
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(!pipe_file_exists(note));
    CHECK(pipe_digest_note_take(path, got));
    CHECK_STREQ(got, abc);

    struct stat st;
    CHECK_EQ_INT(stat(path, &st), 0);
    CHECK_EQ_INT(pipe_digest_note_write(path, abc, &st), 0);
    struct timeval later[2] = {{st.st_atim.tv_sec, 0}, {st.st_mtim.tv_sec + 5, 0}};
    CHECK(fx_write(path, "abd"));
    utimes(path, later);
    CHECK(!pipe_digest_note_take(path, got));

    /* A new attempt empties the board; a full board falls back to files. */
    pipe_digest_board_open();
    CHECK(!pipe_digest_note_take(path, got));
    CHECK_EQ_INT(stat(path, &st), 0);
    for (int i = 0; i < 80; i++)
        CHECK_EQ_INT(pipe_digest_note_write(path, abc, &st), 0);
    CHECK(pipe_file_exists(note));
    free(path);
    free(note);
    fx_rmtree(dir);
}

int main(void)
{
    test_stream();
    test_in_order();
    test_seek_back();
    test_stale_note();
    test_write_behind();
    test_board();
    return check_summary();
}
