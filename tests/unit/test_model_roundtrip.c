/* The typed model round trip: for every example and golden case, the model
   pipec builds (model_build) is written to bundle.yaml by the generators,
   parsed back by the runtime (pipe_manifest_parse), and must compare equal
   field by field (pipe_manifest_compare). Also checks that the comparison
   sees a change in each part of the model, so that the test can fail. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/build.h"
#include "check.h"
#include "util/diag.h"
#include "model/model_build.h"
#include "check/program.h"
#include "session/session.h"
#include "pipe/base.h"

#ifndef PIPEC_SOURCE_DIR
#error "PIPEC_SOURCE_DIR must name the repository root"
#endif

static char out_root[] = "/tmp/pipec-roundtrip-XXXXXX";
static size_t cases;

/* Mutations of a parsed manifest that the comparison must notice. */
static void expect_difference(const pipe_manifest *model_m, pipe_manifest *parsed)
{
    char diff[512];
    pipe_minvocation *inv = &parsed->invocations[parsed->ninvocations - 1];
    struct {
        const char *what;
        int64_t *i64;
        uint64_t *u64;
    } edits[] = {
        {"invocations[].resources.gpu", &inv->resources.gpu, NULL},
        {"invocations[].accelerate.num_processes", &inv->accelerate.num_processes, NULL},
        {"invocations[].retry_max", &inv->retry_max, NULL},
        {"invocations[].timeout_ms", NULL, &inv->timeout_ms},
        {"invocations[].resources.memory", NULL, &inv->resources.memory},
        {"invocations[].kubernetes.given", NULL, NULL},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        if (edits[i].i64)
            (*edits[i].i64)++;
        else if (edits[i].u64)
            (*edits[i].u64)++;
        else
            inv->kubernetes.given ^= 1u;
        int rc = pipe_manifest_compare(model_m, parsed, diff, sizeof diff);
        if (rc == 0)
            fprintf(stderr, "comparison missed a change of %s\n", edits[i].what);
        CHECK(rc != 0);
        if (edits[i].i64)
            (*edits[i].i64)--;
        else if (edits[i].u64)
            (*edits[i].u64)--;
        else
            inv->kubernetes.given ^= 1u;
    }
    char *saved = parsed->steps[0].code_digest;
    parsed->steps[0].code_digest = "0";
    CHECK(pipe_manifest_compare(model_m, parsed, diff, sizeof diff) != 0);
    CHECK(strstr(diff, "steps[0].code_digest") != NULL);
    parsed->steps[0].code_digest = saved;
    CHECK_EQ_INT(pipe_manifest_compare(model_m, parsed, diff, sizeof diff), 0);
}

/* Builds every pipeline of path (or only `only`) and round-trips its model. */
static void round_trip(const char *path, const char *only, bool mutate)
{
    arena a;
    source_set src;
    diag_engine d;
    program pg;
    char err[512];
    arena_init(&a);
    source_set_init(&src);
    diag_init(&d, &a, &src);
    check_options copts;
    session_check_options(&copts, true);
    if (!program_load(&pg, &a, &d, &src, path, &copts, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", path, err);
        CHECK(false);
        goto done;
    }
    if (diag_error_count(&d)) {
        fprintf(stderr, "%s: does not check cleanly\n", path);
        CHECK(false);
        goto done;
    }
    for (size_t i = 0; i < pg.pipelines.len; i++) {
        pipeline_info *pl = pg.pipelines.items[i];
        if (only && strcmp(pl->name, only) != 0)
            continue;
        model m;
        model_build(&m, &a, &pg, pl);
        char *dir = arena_printf(&a, "%s/case-%zu", out_root, cases++);
        build_options bo = {.out_dir = dir, .pipeline = pl->name, .targets = TARGET_ALL};
        if (bundle_build(&m, &bo, &a, err, sizeof err) != 0) {
            fprintf(stderr, "%s (%s): build failed: %s\n", path, pl->name, err);
            CHECK(false);
            continue;
        }
        char *text = NULL;
        size_t len = 0;
        pipe_manifest *parsed = NULL;
        char *yaml = arena_printf(&a, "%s/bundle.yaml", dir);
        CHECK_EQ_INT(pipe_read_file(yaml, &text, &len, err, sizeof err), 0);
        int rc = pipe_manifest_parse(text, len, &parsed, err, sizeof err);
        if (rc != 0)
            fprintf(stderr, "%s (%s): the runtime rejects bundle.yaml: %s\n", path, pl->name, err);
        CHECK_EQ_INT(rc, 0);
        if (parsed) {
            char diff[512];
            rc = pipe_manifest_compare(&m.manifest, parsed, diff, sizeof diff);
            if (rc != 0)
                fprintf(stderr, "%s (%s): model and parsed bundle.yaml differ: %s\n", path, pl->name, diff);
            CHECK_EQ_INT(rc, 0);
            if (mutate)
                expect_difference(&m.manifest, parsed);
        }
        pipe_manifest_free(parsed);
        free(text);
    }
done:
    program_free(&pg);
    source_set_free(&src);
    arena_free(&a);
}

/* tests/golden/NAME/: case.pipe, or the file named by pipe_path, and the
   pipeline named by `pipeline` when there is one. */
static char *read_line(const char *path)
{
    char *text = NULL, err[256];
    size_t len = 0;
    if (pipe_read_file(path, &text, &len, err, sizeof err) != 0)
        return NULL;
    text[strcspn(text, "\r\n")] = '\0';
    return text;
}

static void golden_cases(void)
{
    const char *root = PIPEC_SOURCE_DIR "/tests/golden";
    DIR *dir = opendir(root);
    CHECK(dir != NULL);
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        char base[1024], file[1200];
        snprintf(base, sizeof base, "%s/%s", root, e->d_name);
        struct stat st;
        if (stat(base, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        snprintf(file, sizeof file, "%s/pipe_path", base);
        char *rel = read_line(file);
        char pipe[1200];
        if (rel)
            snprintf(pipe, sizeof pipe, "%s/%s", PIPEC_SOURCE_DIR, rel);
        else
            snprintf(pipe, sizeof pipe, "%s/case.pipe", base);
        snprintf(file, sizeof file, "%s/pipeline", base);
        char *only = read_line(file);
        round_trip(pipe, only, strcmp(e->d_name, "multi-node") == 0);
        free(rel);
        free(only);
    }
    if (dir)
        closedir(dir);
}

/* Every .pipe file in a folder of examples/: each of its pipelines. */
static void example_cases(void)
{
    const char *root = PIPEC_SOURCE_DIR "/examples";
    DIR *dir = opendir(root);
    CHECK(dir != NULL);
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[1024];
        snprintf(sub, sizeof sub, "%s/%s", root, e->d_name);
        DIR *inner = opendir(sub);
        struct dirent *f;
        while (inner && (f = readdir(inner))) {
            size_t n = strlen(f->d_name);
            if (n > 5 && strcmp(f->d_name + n - 5, ".pipe") == 0) {
                char path[1300];
                snprintf(path, sizeof path, "%s/%s", sub, f->d_name);
                round_trip(path, NULL, false);
            }
        }
        if (inner)
            closedir(inner);
    }
    if (dir)
        closedir(dir);
}

int main(void)
{
    /* The golden cases pin the default CUDA image, as their runner does. */
    setenv("PIPEC_CUDA_VERSION", "12.4.1", 1);
    if (!mkdtemp(out_root)) {
        perror("mkdtemp");
        return 1;
    }
    golden_cases();
    example_cases();
    printf("%zu pipelines round-tripped\n", cases);
    CHECK(cases >= 10);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out_root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", out_root);
    return check_summary();
}
