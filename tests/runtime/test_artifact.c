/* Artifacts that are files or folders (artifact.c): a folder's digest
   depends on the names, kinds and bytes it holds and on nothing else (not
   the order files were made in, not their times); commit moves a finished
   folder into place; a copy is complete and digests alike; what an output
   may hold (links that stay inside, no hard link to a file outside); a
   committed artifact is read-only and still removable; the command
   helpers (placeholders, program lookup) of command.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/artifact.h"
#include "check.h"
#include "step/command.h"
#include "pipe/error.h"
#include "store/store.h"
#include "util/util.h"

static char root[] = "/tmp/pipe-test-artifact-XXXXXX";

static void put(const char *rel, const char *text)
{
    char *path = pipe_asprintf("%s/%s", root, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    char err[256];
    pipe_mkdirs(path, err, sizeof err);
    *slash = '/';
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    free(path);
}

static void digest(const char *rel, char hex[PIPE_SHA256_HEX_SIZE])
{
    char *path = pipe_asprintf("%s/%s", root, rel);
    char err[256];
    CHECK_EQ_INT(pipe_artifact_digest(path, hex, err, sizeof err), 0);
    free(path);
}

static void test_folders(void)
{
    char a[PIPE_SHA256_HEX_SIZE], b[PIPE_SHA256_HEX_SIZE], c[PIPE_SHA256_HEX_SIZE], f[PIPE_SHA256_HEX_SIZE];
    put("a/config.json", "{}");
    put("a/shards/0.bin", "zero");
    put("a/shards/1.bin", "one");
    /* The same tree, made in another order. */
    put("b/shards/1.bin", "one");
    put("b/config.json", "{}");
    put("b/shards/0.bin", "zero");
    digest("a", a);
    digest("b", b);
    CHECK_STREQ(a, b);
    /* A byte, a name or a kind changes it. */
    put("b/shards/1.bin", "One");
    digest("b", b);
    CHECK(strcmp(a, b) != 0);
    put("b/shards/1.bin", "one");
    char *from = pipe_asprintf("%s/b/config.json", root), *to = pipe_asprintf("%s/b/config.jsn", root);
    rename(from, to);
    digest("b", b);
    CHECK(strcmp(a, b) != 0);
    rename(to, from);
    free(from);
    free(to);
    put("c/shards/0.bin", "zero");
    put("c/shards/1.bin", "one");
    put("c/config.json/x", "{}"); /* a folder where a has a file */
    digest("c", c);
    CHECK(strcmp(a, c) != 0);
    /* A file's digest is its bytes' SHA-256, as before folders existed. */
    digest("a/config.json", f);
    char want[PIPE_SHA256_HEX_SIZE];
    pipe_sha256_hex_of("{}", 2, want);
    CHECK_STREQ(f, want);

    char err[512];
    char *missing = pipe_asprintf("%s/nothing", root);
    CHECK_EQ_INT(pipe_artifact_digest(missing, f, err, sizeof err), PIPE_ENOENT);
    CHECK(!pipe_artifact_exists(missing));
    free(missing);

    /* Commit: the finished folder replaces nothing and lands whole. */
    char *tmp = pipe_asprintf("%s/a", root), *final = pipe_asprintf("%s/out/model", root);
    char *out = pipe_asprintf("%s/out", root);
    pipe_mkdirs(out, err, sizeof err);
    CHECK_EQ_INT(pipe_artifact_commit(tmp, final, false, err, sizeof err), 0);
    CHECK(!pipe_artifact_exists(tmp));
    CHECK(pipe_artifact_exists(final));
    digest("out/model", f);
    CHECK_STREQ(f, a);

    /* A copy is complete and digests alike; the source stays. */
    char *copy = pipe_asprintf("%s/copy/model", root), *copies = pipe_asprintf("%s/copy", root);
    pipe_mkdirs(copies, err, sizeof err);
    CHECK_EQ_INT(pipe_artifact_copy_folder(final, copy, false, err, sizeof err), 0);
    digest("copy/model", f);
    CHECK_STREQ(f, a);
    CHECK_EQ_INT(pipe_artifact_sync(copy, err, sizeof err), 0);
    free(tmp);
    free(final);
    free(out);
    free(copy);
    free(copies);
}

static char *at(const char *rel) { return pipe_asprintf("%s/%s", root, rel); }

static void link_at(const char *target, const char *rel)
{
    char *path = at(rel);
    CHECK_EQ_INT(symlink(target, path), 0);
    free(path);
}

/* pipe_artifact_check of root/rel as artifact `name`: its code, and err
   holding want when it fails. */
static void check_holds(const char *rel, int want, const char *say)
{
    char *path = at(rel), err[1024] = "";
    int rc = pipe_artifact_check(path, "out", err, sizeof err);
    if (rc != want || (say && !strstr(err, say)))
        fprintf(stderr, "check of %s: got %d (%s), expected %d with `%s`\n", rel, rc, err, want, say ? say : "");
    CHECK_EQ_INT(rc, want);
    CHECK(!say || strstr(err, say));
    free(path);
}

/* What an output may hold: links that stay inside it (resolved as the
   kernel does), hard links only among its own files; the output itself
   a file or folder. Once an output that was a link to /etc/passwd was
   recorded done with that file's digest, and a folder's link to a file
   outside kept the digest of its text while the file changed. */
static void test_what_it_holds(void)
{
    put("h/ok/model.bin", "weights");
    put("h/ok/ckpt/step_10/state", "s");
    link_at("model.bin", "h/ok/latest");             /* a sibling */
    link_at("ckpt/step_10", "h/ok/ckpt_latest");     /* a folder inside */
    link_at("../model.bin", "h/ok/ckpt/model");      /* up, still inside */
    link_at("ckpt/step_10/../../model.bin", "h/ok/via"); /* through a folder and back */
    link_at("missing", "h/ok/dangling");             /* leads nowhere, inside */
    char *a = at("h/ok/model.bin"), *b = at("h/ok/ckpt/same.bin");
    CHECK_EQ_INT(link(a, b), 0); /* a hard link, both names inside */
    free(a);
    free(b);
    check_holds("h/ok", 0, NULL);
    char hex[PIPE_SHA256_HEX_SIZE], err[1024];
    digest("h/ok", hex);

    /* Out by an absolute link, by "..", or by ".." after a link to the top. */
    put("h/abs/x", "x");
    link_at("/etc/passwd", "h/abs/passwd");
    check_holds("h/abs", PIPE_EINVAL, "out/passwd is a symbolic link to `/etc/passwd`, which is an absolute link");
    put("h/up/sub/x", "x");
    link_at("../../secret", "h/up/sub/leak");
    check_holds("h/up", PIPE_EINVAL, "out/sub/leak is a symbolic link to `../../secret`, which goes above the top");
    put("h/phys/sub/x", "x");
    link_at("..", "h/phys/sub/top");             /* the output itself: fine alone */
    link_at("sub/top/../secret", "h/phys/leak"); /* as written it stays inside; resolved it leaves */
    check_holds("h/phys", PIPE_EINVAL, "out/leak is a symbolic link to `sub/top/../secret`, which goes above");
    put("h/loop/x", "x");
    link_at("b", "h/loop/a");
    link_at("a", "h/loop/b");
    check_holds("h/loop", PIPE_EINVAL, "too many links");
    put("h/via_abs/x", "x");
    link_at("/tmp", "h/via_abs/t");
    link_at("t/x", "h/via_abs/u");
    check_holds("h/via_abs", PIPE_EINVAL, "absolute");

    /* A hard link to a file outside; a single file with another name. */
    put("h/hard/x", "x");
    put("outside.bin", "shared bytes");
    char *outside = at("outside.bin"), *inside = at("h/hard/copy.bin");
    CHECK_EQ_INT(link(outside, inside), 0);
    check_holds("h/hard", PIPE_EINVAL, "out/copy.bin is a hard link to a file outside out (2 links, 1 inside)");
    check_holds("outside.bin", PIPE_EINVAL, "out is a hard link to a file elsewhere (2 links)");
    free(outside);
    free(inside);

    /* The output itself a link, or neither file nor folder. */
    link_at("/etc/passwd", "h/passwd");
    check_holds("h/passwd", PIPE_EINVAL, "out is a symbolic link (to `/etc/passwd`)");
    put("h/fifo/x", "x");
    char *fifo = at("h/fifo/pipe");
    CHECK_EQ_INT(mkfifo(fifo, 0600), 0);
    free(fifo);
    check_holds("h/fifo", PIPE_EINVAL, "out/pipe is neither a file, a folder nor a symbolic link");
    check_holds("h/nothing", PIPE_ENOENT, NULL);

    /* The digest refuses a link that leads out: what a consumer reads
       through it would not be covered. */
    char *path = at("h/abs");
    CHECK_EQ_INT(pipe_artifact_digest(path, hex, err, sizeof err), PIPE_EINVAL);
    CHECK(strstr(err, "passwd is a symbolic link to `/etc/passwd`") != NULL);
    free(path);
}

static bool writable_bits(const char *rel)
{
    char *path = at(rel);
    struct stat st;
    bool w = lstat(path, &st) != 0 || (st.st_mode & 0222) != 0;
    free(path);
    return w;
}

/* In a child as an ordinary user (nobody, when the test runs as root, whom
   permissions do not stop): a committed artifact cannot be written, nor a
   file added to it, and the runtime still removes it. 0 when all held. */
static int as_owner(const char *dir)
{
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
        return 10;
    char *tmp = pipe_asprintf("%s/.model.tmp", dir), *final = pipe_asprintf("%s/model", dir);
    char *file = pipe_asprintf("%s/model/weights", final), err[512];
    char *sub = pipe_asprintf("%s/model", tmp), *w = pipe_asprintf("%s/weights", sub);
    if (mkdir(tmp, 0755) != 0 || mkdir(sub, 0755) != 0)
        return 11;
    FILE *f = fopen(w, "w");
    if (!f || fputs("v1", f) < 0 || fclose(f) != 0)
        return 12;
    if (pipe_artifact_commit(tmp, final, false, err, sizeof err) != 0)
        return 13;
    if (open(file, O_WRONLY) >= 0 || errno != EACCES)
        return 14; /* its file cannot be written */
    char *added = pipe_asprintf("%s/model/new", final);
    if (open(added, O_WRONLY | O_CREAT, 0644) >= 0 || errno != EACCES)
        return 15; /* nor a file added */
    if (pipe_remove_tree(final, err, sizeof err) != 0 || access(final, F_OK) == 0)
        return 16; /* the runtime removes it all the same */
    return 0;
}

/* Committed artifacts are read-only, files and folders; a link made for
   another artifact is to a read-only file, never a writable one shared. */
static void test_read_only(void)
{
    char err[512];
    put("ro/a/config.json", "{}");
    put("ro/a/shards/0.bin", "zero");
    char *tmp = at("ro/a"), *final = at("ro/model");
    CHECK_EQ_INT(pipe_artifact_commit(tmp, final, false, err, sizeof err), 0);
    CHECK(!writable_bits("ro/model"));
    CHECK(!writable_bits("ro/model/shards"));
    CHECK(!writable_bits("ro/model/shards/0.bin"));
    CHECK(!writable_bits("ro/model/config.json"));
    char *copy = at("ro/copy");
    CHECK_EQ_INT(pipe_artifact_copy_folder(final, copy, false, err, sizeof err), 0);
    CHECK(!writable_bits("ro/copy") && !writable_bits("ro/copy/shards/0.bin"));
    /* A plain file linked: the link and the original read-only (same file). */
    put("ro/file.bin", "bytes");
    char *src = at("ro/file.bin"), *dst = at("ro/linked.bin");
    CHECK(writable_bits("ro/file.bin"));
    CHECK_EQ_INT(pipe_artifact_link(src, dst, err, sizeof err), 0);
    CHECK(!writable_bits("ro/linked.bin") && !writable_bits("ro/file.bin"));
    CHECK_EQ_INT(pipe_remove_tree(final, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_remove_tree(copy, err, sizeof err), 0);
    free(tmp);
    free(final);
    free(copy);
    free(src);
    free(dst);

    /* As the artifact's owner. */
    char dir[] = "/tmp/pipe-test-owner-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    if (geteuid() == 0)
        CHECK_EQ_INT(chown(dir, 65534, 65534), 0);
    pid_t pid = fork();
    if (pid == 0)
        _exit(as_owner(dir));
    int status = -1;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "as the owner: status %d (as_owner's step that failed)\n", WEXITSTATUS(status));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    pipe_remove_tree(dir, err, sizeof err);
}

static const char *lookup(void *arg, const char *name, size_t len)
{
    (void)arg;
    if (len == 2 && strncmp(name, "lr", 2) == 0)
        return "0.01";
    if (len == 5 && strncmp(name, "model", 5) == 0)
        return "/store/run/train/outputs/.model.tmp";
    return NULL;
}

static void test_placeholders(void)
{
    char *out = NULL, err[256];
    CHECK_EQ_INT(pipe_command_expand("--lr={lr}", lookup, NULL, &out, err, sizeof err), 0);
    CHECK_STREQ(out, "--lr=0.01");
    free(out);
    CHECK_EQ_INT(pipe_command_expand("{{\"a\": {lr}}} {model}", lookup, NULL, &out, err, sizeof err), 0);
    CHECK_STREQ(out, "{\"a\": 0.01} /store/run/train/outputs/.model.tmp");
    free(out);
    CHECK_EQ_INT(pipe_command_expand("$(rm -rf /) ; `x` \"q\"", lookup, NULL, &out, err, sizeof err), 0);
    CHECK_STREQ(out, "$(rm -rf /) ; `x` \"q\"");
    free(out);
    static const char *const bad[] = {"{nope}", "{}", "a { b", "a } b", "{lr"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        out = NULL;
        CHECK_EQ_INT(pipe_command_expand(bad[i], lookup, NULL, &out, err, sizeof err), PIPE_EINVAL);
        CHECK(out == NULL);
    }
}

static void test_find(void)
{
    char *path = NULL, err[1024];
    CHECK_EQ_INT(pipe_command_find("sh", "/nonexistent:/bin:/usr/bin", root, &path, err, sizeof err), 0);
    CHECK(path && strcmp(path, "/bin/sh") == 0);
    free(path);
    CHECK_EQ_INT(pipe_command_find("pipe-no-such-program", "/bin:/usr/bin", root, &path, err, sizeof err),
                 PIPE_ENOENT);
    CHECK(strstr(err, "no executable `pipe-no-such-program` in PATH (/bin:/usr/bin)") != NULL);
    /* With a '/': relative to the step's folder, and it must be executable. */
    put("tools/run.sh", "#!/bin/sh\n");
    CHECK_EQ_INT(pipe_command_find("./tools/run.sh", "/bin", root, &path, err, sizeof err), PIPE_ENOENT);
    CHECK(strstr(err, "is it marked executable?") != NULL);
    char *script = pipe_asprintf("%s/tools/run.sh", root);
    chmod(script, 0755);
    CHECK_EQ_INT(pipe_command_find("./tools/run.sh", "/bin", root, &path, err, sizeof err), 0);
    CHECK(path && strstr(path, "/tools/run.sh") != NULL);
    free(path);
    free(script);
}

int main(void)
{
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    test_folders();
    test_what_it_holds();
    test_read_only();
    test_placeholders();
    test_find();
    char err[256];
    pipe_remove_tree(root, err, sizeof err);
    return check_summary();
}
