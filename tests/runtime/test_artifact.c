/* Artifacts that are files or folders (artifact.c): a folder's digest
   depends on the names, kinds and bytes it holds and on nothing else (not
   the order files were made in, not their times); commit moves a finished
   folder into place; a copy is complete and digests alike; the command
   helpers (placeholders, program lookup) of command.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/artifact.h"
#include "check.h"
#include "exec/command.h"
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
    CHECK_EQ_INT(pipe_artifact_commit(tmp, final, err, sizeof err), 0);
    CHECK(!pipe_artifact_exists(tmp));
    CHECK(pipe_artifact_exists(final));
    digest("out/model", f);
    CHECK_STREQ(f, a);

    /* A copy is complete and digests alike; the source stays. */
    char *copy = pipe_asprintf("%s/copy/model", root), *copies = pipe_asprintf("%s/copy", root);
    pipe_mkdirs(copies, err, sizeof err);
    CHECK_EQ_INT(pipe_artifact_copy_folder(final, copy, err, sizeof err), 0);
    digest("copy/model", f);
    CHECK_STREQ(f, a);
    CHECK_EQ_INT(pipe_artifact_sync(copy, err, sizeof err), 0);
    free(tmp);
    free(final);
    free(out);
    free(copy);
    free(copies);
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
    test_placeholders();
    test_find();
    char err[256];
    pipe_remove_tree(root, err, sizeof err);
    return check_summary();
}
