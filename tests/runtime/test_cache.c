/* The step cache: keys, look-ups (hit, miss, invalidated digest, failed,
   cut or missing records), recording, and linking outputs into a new run
   (read-only). */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/stat.h>

#include "store/cache.h"
#include "check.h"
#include "pipe/base.h"
#include "pipe/error.h"
#include "step_fixture.h"
#include "store/stepfile.h"

static void key_of(const char *code, const pipe_kv *params, size_t np, const pipe_step_artifact *in, size_t ni,
                   char out[PIPE_SHA256_HEX_SIZE])
{
    pipe_cache_key_input k = {.code_digest = code, .step = "train", .entry = "train_main", .params = params,
                              .nparams = np, .inputs = in, .ninputs = ni};
    pipe_cache_key(&k, out);
}

static void test_keys(void)
{
    char a[65], b[65];
    pipe_kv p1[] = {{"epochs", "5"}, {"lr", "0.05"}};
    pipe_kv p2[] = {{"epochs", "6"}, {"lr", "0.05"}};
    pipe_kv p3[] = {{"lr", "0.05"}, {"epochs", "5"}};
    pipe_kv s1[] = {{"a", "b\0"}, {"c", ""}};
    pipe_kv s2[] = {{"a", ""}, {"bc", ""}};
    pipe_step_artifact i1[] = {{"data", "/x", "aaaa", -1, -1}};
    pipe_step_artifact i2[] = {{"data", "/elsewhere", "aaaa", -1, -1}};
    pipe_step_artifact i3[] = {{"data", "/x", "bbbb", -1, -1}};

    key_of("d1", p1, 2, i1, 1, a);
    CHECK_EQ_U64(strlen(a), 64);
    key_of("d1", p1, 2, i1, 1, b);
    CHECK_STREQ(a, b); /* deterministic */
    key_of("d1", p1, 2, i2, 1, b);
    CHECK_STREQ(a, b); /* the input's path does not matter, only its bytes */
    key_of("d2", p1, 2, i1, 1, b);
    CHECK(strcmp(a, b) != 0); /* code changed */
    key_of("d1", p2, 2, i1, 1, b);
    CHECK(strcmp(a, b) != 0); /* a parameter changed */
    key_of("d1", p3, 2, i1, 1, b);
    CHECK(strcmp(a, b) != 0); /* order is part of the key */
    key_of("d1", p1, 2, i3, 1, b);
    CHECK(strcmp(a, b) != 0); /* an input's digest changed */
    key_of("d1", p1, 2, NULL, 0, b);
    CHECK(strcmp(a, b) != 0);
    /* Fields cannot run into each other. */
    key_of("d1", s1, 2, NULL, 0, a);
    key_of("d1", s2, 2, NULL, 0, b);
    CHECK(strcmp(a, b) != 0);
    pipe_cache_key_input x = {.code_digest = "d", .step = "ab", .entry = "c"};
    pipe_cache_key_input y = {.code_digest = "d", .step = "a", .entry = "bc"};
    pipe_cache_key(&x, a);
    pipe_cache_key(&y, b);
    CHECK(strcmp(a, b) != 0);

    /* The other parts (cache_key.h): each one changes the key, and the
       version in the key text keeps entries of pipe-cache-1 from matching. */
    pipe_kv parts1[] = {{"mixed_precision", "bf16"}, {"device", "cpu"}};
    pipe_kv parts2[] = {{"mixed_precision", "no"}, {"device", "cpu"}};
    pipe_cache_key_input p = {.code_digest = "d", .step = "s", .entry = "e", .parts = parts1, .nparts = 2};
    pipe_cache_key(&p, a);
    p.parts = parts2;
    pipe_cache_key(&p, b);
    CHECK(strcmp(a, b) != 0);
    p.nparts = 0;
    pipe_cache_key(&p, a);
    static const char v1[] = "pipe-cache-1\0d\0s\0e";
    pipe_sha256_hex_of(v1, sizeof v1, b);
    CHECK(strcmp(a, b) != 0);
    static const char v2[] = "pipe-cache-2\0d\0s\0e";
    pipe_sha256_hex_of(v2, sizeof v2, b);
    CHECK_STREQ(a, b);
}

/* Makes STORE/RUN/INV with outputs and a step.yaml of the given status. */
static void make_invocation(const char *store, const char *run, const char *inv, pipe_step_status status,
                            const char *model_text)
{
    char err[512];
    char *dir = pipe_asprintf("%s/%s/%s/outputs", store, run, inv);
    char *model = pipe_store_output_path(store, run, inv, "model");
    char *step = pipe_store_step_file(store, run, inv);
    pipe_mkdirs(dir, err, sizeof err);
    fx_write(model, model_text);
    char hex[65];
    pipe_sha256_file(model, hex, err, sizeof err);
    pipe_step_record r = {.invocation = (char *)inv, .step = "train", .run_id = (char *)run, .status = status,
                          .attempts = 1};
    pipe_step_record_add_output(&r, "model", model, hex);
    pipe_step_record_set_metric(&r, "loss", 0.25);
    CHECK_EQ_INT(pipe_step_record_write(step, &r, false, err, sizeof err), 0);
    for (size_t i = 0; i < r.noutputs; i++) {
        free(r.outputs[i].name);
        free(r.outputs[i].path);
        free(r.outputs[i].sha256);
    }
    free(r.outputs);
    for (size_t i = 0; i < r.nmetrics; i++)
        free(r.metrics[i].name);
    free(r.metrics);
    free(dir);
    free(model);
    free(step);
}

static void test_lookup(void)
{
    char *store = fx_tempdir("cache");
    char err[512], why[512];
    const char *key = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    const char *outputs[] = {"model"};
    pipe_cache_hit *hit = (pipe_cache_hit *)1;

    /* Miss: nothing recorded. */
    CHECK_EQ_INT(pipe_cache_lookup(store, key, outputs, 1, false, &hit, why, sizeof why, err, sizeof err), 0);
    CHECK_NULL(hit);
    CHECK(fx_contains(why, "no cache entry"));

    /* Hit. */
    make_invocation(store, "R1", "train", PIPE_STEP_DONE, "weights v1");
    CHECK_EQ_INT(pipe_cache_record(store, key, "R1", "train", err, sizeof err), 0);
    char *entry = pipe_asprintf("%s/cache/%s", store, key), *entry_text = fx_read(entry);
    CHECK_STREQ(entry_text, "R1/train\n");
    free(entry_text);
    CHECK_EQ_INT(pipe_cache_lookup(store, key, outputs, 1, false, &hit, why, sizeof why, err, sizeof err), 0);
    CHECK_NOT_NULL(hit);
    if (hit) {
        CHECK_STREQ(hit->from, "R1/train");
        CHECK_EQ_INT(hit->record->status, PIPE_STEP_DONE);
        CHECK_EQ_U64(hit->record->nmetrics, 1);
        const pipe_step_artifact *m = pipe_step_record_output(hit->record, "model");
        CHECK(m && fx_contains(m->path, "/R1/train/outputs/model"));

        /* Reuse it in another run: a link (or copy) with the same bytes. */
        char *dstdir = pipe_asprintf("%s/R2/train/outputs", store), *dst = pipe_asprintf("%s/model", dstdir);
        pipe_mkdirs(dstdir, err, sizeof err);
        CHECK_EQ_INT(pipe_link_or_copy(m->path, dst, false, err, sizeof err), 0);
        char *copied = fx_read(dst);
        CHECK_STREQ(copied, "weights v1");
        free(copied);
        /* Read-only, both names of it: writing into R2's copy cannot change
           R1's recorded artifact (once a writable link shared by both). */
        struct stat r1, r2;
        CHECK(stat(m->path, &r1) == 0 && stat(dst, &r2) == 0);
        CHECK_EQ_INT(r2.st_mode & 0222, 0);
        CHECK_EQ_INT(r1.st_mode & 0222, 0);
        /* Again: replaces, still complete, no temporary files left. */
        CHECK_EQ_INT(pipe_link_or_copy(m->path, dst, false, err, sizeof err), 0);
        char *cmd = pipe_asprintf("test $(ls -A %s | wc -l) -eq 1", dstdir);
        CHECK_EQ_INT(system(cmd), 0);
        free(cmd);
        CHECK_EQ_INT(pipe_link_or_copy("/nonexistent/src", dst, false, err, sizeof err), PIPE_EIO);
        CHECK(fx_contains(err, "/nonexistent/src"));
        free(dstdir);
        free(dst);
    }
    pipe_cache_hit_free(hit);

    /* Invalidated: the output's bytes changed since they were recorded. */
    char *model = pipe_store_output_path(store, "R1", "train", "model");
    CHECK(fx_write(model, "tampered"));
    CHECK_EQ_INT(pipe_cache_lookup(store, key, outputs, 1, false, &hit, why, sizeof why, err, sizeof err), 0);
    CHECK_NULL(hit);
    CHECK(fx_contains(why, "changed"));

    /* Missing output. */
    unlink(model);
    CHECK_EQ_INT(pipe_cache_lookup(store, key, outputs, 1, false, &hit, why, sizeof why, err, sizeof err), 0);
    CHECK_NULL(hit);
    CHECK(fx_contains(why, "gone"));

    /* An output the record does not have. */
    make_invocation(store, "R1", "train", PIPE_STEP_DONE, "weights v1");
    const char *more[] = {"model", "report"};
    CHECK_EQ_INT(pipe_cache_lookup(store, key, more, 2, false, &hit, why, sizeof why, err, sizeof err), 0);
    CHECK_NULL(hit);
    CHECK(fx_contains(why, "report"));

    /* The record is not `done`. */
    make_invocation(store, "R1", "train", PIPE_STEP_FAILED, "weights v1");
    CHECK_EQ_INT(pipe_cache_lookup(store, key, outputs, 1, false, &hit, why, sizeof why, err, sizeof err), 0);
    CHECK_NULL(hit);
    CHECK(fx_contains(why, "failed"));

    /* The record says done but was cut short, at a line's end (once
       accepted): a miss. */
    make_invocation(store, "R1", "train", PIPE_STEP_DONE, "weights v1");
    char *record = pipe_store_step_file(store, "R1", "train"), *text = fx_read(record);
    const char *cut = text ? strstr(text, "\nmetrics:") : NULL;
    CHECK(cut && truncate(record, cut + 1 - text) == 0);
    CHECK_EQ_INT(pipe_cache_lookup(store, key, outputs, 1, false, &hit, why, sizeof why, err, sizeof err), 0);
    CHECK_NULL(hit);
    CHECK(fx_contains(why, "is not whole"));
    free(text);
    free(record);

    /* The record is gone. */
    char *step = pipe_store_step_file(store, "R1", "train");
    unlink(step);
    CHECK_EQ_INT(pipe_cache_lookup(store, key, outputs, 1, false, &hit, why, sizeof why, err, sizeof err), 0);
    CHECK_NULL(hit);

    /* A malformed entry. */
    CHECK(fx_write(entry, "../../etc/passwd\n"));
    CHECK_EQ_INT(pipe_cache_lookup(store, key, outputs, 1, false, &hit, why, sizeof why, err, sizeof err), 0);
    CHECK_NULL(hit);
    CHECK(fx_contains(why, "malformed"));

    /* Bad keys. */
    CHECK_EQ_INT(pipe_cache_lookup(store, "../x", outputs, 1, false, &hit, why, sizeof why, err, sizeof err), PIPE_EINVAL);
    CHECK_EQ_INT(pipe_cache_record(store, "ABC", "R", "i", err, sizeof err), PIPE_EINVAL);

    free(step);
    free(model);
    free(entry);
    fx_rmtree(store);
}

/* An output recorded with its size and modification time: bytes changed
   behind the same size and time are trusted (not read again) unless
   verify; a changed size is noticed either way. */
static void test_stamped_outputs(void)
{
    char *store = fx_tempdir("cache-stamp");
    char err[512], why[512];
    const char *key = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    const char *outputs[] = {"model"};
    pipe_cache_hit *hit = NULL;
    make_invocation(store, "R1", "train", PIPE_STEP_DONE, "weights v1");
    CHECK_EQ_INT(pipe_cache_record(store, key, "R1", "train", err, sizeof err), 0);
    char *step = pipe_store_step_file(store, "R1", "train"), *model = pipe_store_output_path(store, "R1", "train", "model");
    pipe_step_record *r = NULL;
    CHECK_EQ_INT(pipe_step_record_read(step, &r, err, sizeof err), 0);
    if (!r)
        return;
    pipe_step_artifact_stamp(&r->outputs[0], model);
    CHECK(r->outputs[0].size == 10 && r->outputs[0].mtime_ns > 0);
    CHECK_EQ_INT(pipe_step_record_write(step, r, false, err, sizeof err), 0);
    pipe_step_record_free(r);
    char *text = fx_read(step);
    CHECK(fx_contains(text, "size: 10"));
    CHECK(fx_contains(text, "mtime_ns: "));
    free(text);

    struct stat st;
    CHECK_EQ_INT(stat(model, &st), 0);
    CHECK(fx_write(model, "weights v2")); /* the same size */
    struct timespec times[2] = {st.st_atim, st.st_mtim};
    CHECK_EQ_INT(utimensat(AT_FDCWD, model, times, 0), 0);
    CHECK_EQ_INT(pipe_cache_lookup(store, key, outputs, 1, false, &hit, why, sizeof why, err, sizeof err), 0);
    CHECK_NOT_NULL(hit); /* trusted */
    pipe_cache_hit_free(hit);
    CHECK_EQ_INT(pipe_cache_lookup(store, key, outputs, 1, true, &hit, why, sizeof why, err, sizeof err), 0);
    CHECK_NULL(hit); /* verified: read, and found changed */
    CHECK(fx_contains(why, "changed"));

    CHECK(fx_write(model, "weights v10"));
    CHECK_EQ_INT(utimensat(AT_FDCWD, model, times, 0), 0);
    CHECK_EQ_INT(pipe_cache_lookup(store, key, outputs, 1, false, &hit, why, sizeof why, err, sizeof err), 0);
    CHECK_NULL(hit); /* another size: read */
    free(step);
    free(model);
    fx_rmtree(store);
}

/* STORE/cache/last/PIPELINE/INVOCATION: the invocation's last success,
   whatever its key; gone, failed or unnamed, nothing. */
static void test_last(void)
{
    char *store = fx_tempdir("cache-last");
    char err[512], *from = (char *)1;
    pipe_step_record *r = (pipe_step_record *)1;
    CHECK_EQ_INT(pipe_cache_last(store, "demo", "train", &r, &from), 0);
    CHECK_NULL(r);
    CHECK_NULL(from);
    make_invocation(store, "R1", "train", PIPE_STEP_DONE, "weights v1");
    CHECK_EQ_INT(pipe_cache_record_last(store, "demo", "R1", "train", err, sizeof err), 0);
    char *path = pipe_asprintf("%s/cache/last/demo/train", store), *text = fx_read(path);
    CHECK_STREQ(text, "R1/train\n");
    free(text);
    CHECK_EQ_INT(pipe_cache_last(store, "demo", "train", &r, &from), 0);
    CHECK(r && r->status == PIPE_STEP_DONE && strcmp(r->run_id, "R1") == 0);
    CHECK_STREQ(from, "R1/train");
    pipe_step_record_free(r);
    free(from);
    /* Another pipeline of the same store has its own. */
    CHECK_EQ_INT(pipe_cache_last(store, "other", "train", &r, &from), 0);
    CHECK_NULL(r);
    /* Not done any more (the run was executed again and failed). */
    make_invocation(store, "R1", "train", PIPE_STEP_FAILED, "weights v1");
    CHECK_EQ_INT(pipe_cache_last(store, "demo", "train", &r, &from), 0);
    CHECK_NULL(r);
    CHECK_NULL(from);
    /* A name that is no path component files nothing and finds nothing. */
    CHECK_EQ_INT(pipe_cache_record_last(store, "../demo", "R1", "train", err, sizeof err), 0);
    CHECK_EQ_INT(pipe_cache_record_last(store, "demo", ".hidden", "R1", err, sizeof err), 0);
    CHECK_EQ_INT(pipe_cache_last(store, "demo", "a/b", &r, &from), 0);
    CHECK_NULL(r);
    /* What a key's entry names, usable or not. */
    const char *key = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    CHECK_NULL(pipe_cache_entry(store, key));
    CHECK_EQ_INT(pipe_cache_record(store, key, "R1", "train", err, sizeof err), 0);
    char *entry = pipe_cache_entry(store, key);
    CHECK_STREQ(entry, "R1/train");
    free(entry);
    CHECK_NULL(pipe_cache_entry(store, "../last/demo/train"));
    /* A malformed entry finds nothing. */
    CHECK(fx_write(path, "../../etc/passwd\n"));
    CHECK_EQ_INT(pipe_cache_last(store, "demo", "train", &r, &from), 0);
    CHECK_NULL(r);
    free(path);
    fx_rmtree(store);
}

/* The names in STORE/cache that are not a key's entry (a temporary file). */
static size_t strays_in_cache(const char *store, const char *key)
{
    char *dir = pipe_asprintf("%s/cache", store);
    DIR *d = opendir(dir);
    size_t n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && strcmp(e->d_name, key) != 0) {
            fprintf(stderr, "  stray in cache/: %s\n", e->d_name);
            n++;
        }
    if (d)
        closedir(d);
    free(dir);
    return n;
}

/* A cache entry written again replaces the old one; an entry is given its
   name only once whole (an unnamed file), so a writer killed at any moment
   leaves no temporary file behind: 40 writers, each recording the same key
   in a loop, killed after 0 to 3 ms. */
static void test_entry_replaced(void)
{
    char *store = fx_tempdir("cache-replace"), err[512];
    const char *key = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    CHECK_EQ_INT(pipe_cache_record(store, key, "R1", "train", err, sizeof err), 0);
    CHECK_EQ_INT(pipe_cache_record(store, key, "R2", "train", err, sizeof err), 0);
    char *entry = pipe_cache_entry(store, key);
    CHECK_STREQ(entry, "R2/train");
    free(entry);
    CHECK_EQ_U64(strays_in_cache(store, key), 0);
    for (int round = 0; round < 40; round++) {
        pid_t pid = fork();
        if (pid == 0) {
            for (;;)
                pipe_cache_record(store, key, "R3", "train", err, sizeof err);
        }
        struct timespec ts = {0, (long)(round % 4) * 1000000L + 50000L * (round % 7)};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    CHECK_EQ_U64(strays_in_cache(store, key), 0);
    fx_rmtree(store);
}

int main(void)
{
    test_keys();
    test_entry_replaced();
    test_lookup();
    test_stamped_outputs();
    test_last();
    return check_summary();
}
