/* step.yaml: write and read back every field; malformed files; a record cut
   short; number text. */
#include <math.h>

#include "check.h"
#include "pipe/error.h"
#include "step_fixture.h"
#include "store/stepfile.h"

static pipe_step_record *full_record(void)
{
    pipe_step_record *r = calloc(1, sizeof *r);
    r->invocation = pipe_strdup("train");
    r->step = pipe_strdup("train_step");
    r->run_id = pipe_strdup("20261122-101500-a1b2c3");
    r->status = PIPE_STEP_FAILED;
    r->has_exit_code = true;
    r->exit_code = 3;
    r->signal = pipe_strdup("SIGKILL");
    r->error = pipe_strdup("loss is NaN: \"bad\" data\nsecond line: yes");
    r->attempts = 3;
    r->started = pipe_strdup("2026-11-22T10:15:00.123Z");
    r->finished = pipe_strdup("2026-11-22T10:15:04.456Z");
    r->duration_s = 4.333;
    r->cache_key = pipe_strdup("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
    r->cached_from = pipe_strdup("20261121-000000-000000/train");
    pipe_step_record_add_param(r, "epochs", "5");
    pipe_step_record_add_param(r, "lr", "0.050000000000000003");
    pipe_step_record_add_param(r, "name", "true");
    pipe_step_record_add_param(r, "note", "");
    pipe_step_record_add_input(r, "data", "/store/R/split/outputs/train",
                               "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    pipe_step_record_add_output(r, "model", "/store/R/train/outputs/model",
                                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    pipe_step_record_add_output(r, "report", "/store/R/train/outputs/report", NULL);
    pipe_step_record_set_metric(r, "loss", 0.0123);
    pipe_step_record_set_metric(r, "accuracy", 0.5);
    pipe_step_record_set_metric(r, "loss", 0.0125); /* replaces */
    pipe_step_record_set_metric(r, "nan", NAN);
    pipe_step_record_set_metric(r, "big", -INFINITY);
    return r;
}

static void test_round_trip(void)
{
    char *dir = fx_tempdir("stepfile");
    char *path = pipe_asprintf("%s/step.yaml", dir), err[512];
    pipe_step_record *r = full_record(), *b = NULL;
    CHECK_EQ_INT(pipe_step_record_write(path, r, false, err, sizeof err), 0);
    char *text = fx_read(path);
    CHECK(fx_contains(text, "invocation: train\n"));
    CHECK(fx_contains(text, "status: failed\n"));
    CHECK(fx_contains(text, "params: {epochs: \"5\", lr: \"0.050000000000000003\""));
    CHECK(fx_contains(text, "metrics: {loss: 0.0125, accuracy: 0.5"));
    CHECK(fx_contains(text, "duration_s: 4.333\n"));
    CHECK(fx_contains(text, "  data: {path: /store/R/split/outputs/train, sha256: e3b0"));
    free(text);

    CHECK_EQ_INT(pipe_step_record_read(path, &b, err, sizeof err), 0);
    CHECK_NOT_NULL(b);
    if (b) {
        CHECK_STREQ(b->invocation, "train");
        CHECK_STREQ(b->step, "train_step");
        CHECK_STREQ(b->run_id, r->run_id);
        CHECK_EQ_INT(b->status, PIPE_STEP_FAILED);
        CHECK(b->has_exit_code);
        CHECK_EQ_INT(b->exit_code, 3);
        CHECK_STREQ(b->signal, "SIGKILL");
        CHECK_STREQ(b->error, r->error);
        CHECK_EQ_INT(b->attempts, 3);
        CHECK_STREQ(b->started, r->started);
        CHECK_STREQ(b->finished, r->finished);
        CHECK(fabs(b->duration_s - 4.333) < 1e-9);
        CHECK_STREQ(b->cache_key, r->cache_key);
        CHECK_STREQ(b->cached_from, r->cached_from);
        CHECK_EQ_U64(b->nparams, 4);
        if (b->nparams == 4) {
            CHECK_STREQ(b->params[0].key, "epochs");
            CHECK_STREQ(b->params[1].value, "0.050000000000000003");
            CHECK_STREQ(b->params[2].value, "true");
            CHECK_STREQ(b->params[3].value, "");
        }
        CHECK_EQ_U64(b->ninputs, 1);
        const pipe_step_artifact *in = pipe_step_record_input(b, "data");
        CHECK_STREQ(in ? in->path : NULL, "/store/R/split/outputs/train");
        CHECK_STREQ(in ? in->sha256 : NULL, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        CHECK_EQ_U64(b->noutputs, 2);
        const pipe_step_artifact *out = pipe_step_record_output(b, "report");
        CHECK_STREQ(out ? out->path : NULL, "/store/R/train/outputs/report");
        CHECK(out && out->sha256 == NULL);
        CHECK_NULL(pipe_step_record_output(b, "nothing"));
        CHECK_NULL(pipe_step_record_input(b, "model"));
        CHECK_EQ_U64(b->nmetrics, 4);
        if (b->nmetrics == 4) {
            CHECK_STREQ(b->metrics[0].name, "loss");
            CHECK(b->metrics[0].value == 0.0125);
            CHECK(b->metrics[1].value == 0.5);
            CHECK(isnan(b->metrics[2].value));
            CHECK(isinf(b->metrics[3].value) && b->metrics[3].value < 0);
        }
    }
    pipe_step_record_free(b);

    /* The minimal record: done, nothing optional. */
    pipe_step_record m = {.invocation = "a", .step = "s", .run_id = "R", .status = PIPE_STEP_DONE, .attempts = 1};
    CHECK_EQ_INT(pipe_step_record_write(path, &m, false, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_step_record_read(path, &b, err, sizeof err), 0);
    if (b) {
        CHECK_EQ_INT(b->status, PIPE_STEP_DONE);
        CHECK(!b->has_exit_code);
        CHECK_NULL(b->signal);
        CHECK_NULL(b->error);
        CHECK_NULL(b->cache_key);
        CHECK_EQ_U64(b->nparams + b->ninputs + b->noutputs + b->nmetrics, 0);
    }
    pipe_step_record_free(b);
    pipe_step_record_free(r);
    free(path);
    fx_rmtree(dir);
}

static void test_parse_errors(void)
{
    char err[512];
    pipe_step_record *r = (pipe_step_record *)1;
    static const struct {
        const char *text, *names;
    } bad[] = {
        {"status: done\n", "invocation"},
        {"invocation: a\n", "status"},
        {"invocation: a\nstatus: running\n", "status"},
        {"invocation: a\nstatus: done\nexit_code: one\n", "exit_code"},
        {"invocation: a\nstatus: done\nattempts: 1.5\n", "attempts"},
        {"invocation: a\nstatus: done\nduration_s: fast\n", "duration_s"},
        {"invocation: a\nstatus: done\nparams: [1]\n", "params"},
        {"invocation: a\nstatus: done\noutputs: {m: /path}\n", "outputs"},
        {"invocation: a\nstatus: done\ninputs: [x]\n", "inputs"},
        {"invocation: a\nstatus: done\nmetrics: {loss: high}\n", "metrics"},
        {"invocation: [a\n", "step.yaml"},
        {"just text\n", "mapping"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = pipe_step_record_parse(bad[i].text, strlen(bad[i].text), &r, err, sizeof err);
        CHECK_EQ_INT(rc, PIPE_EFORMAT);
        CHECK_NULL(r);
        if (!fx_contains(err, bad[i].names))
            fprintf(stderr, "case %zu: the message `%s` does not name the key\n", i, err);
        CHECK(fx_contains(err, bad[i].names));
    }
    /* Unknown keys are ignored; empty maps are fine; YAML's .nan spelling. */
    const char *ok = "invocation: a\nstatus: cached\nfuture_key: {x: 1}\nparams: {}\ninputs:\noutputs: {}\n"
                     "metrics: {a: .nan, b: .inf, c: 1e3}\n";
    CHECK_EQ_INT(pipe_step_record_parse(ok, strlen(ok), &r, err, sizeof err), 0);
    if (r) {
        CHECK_EQ_INT(r->status, PIPE_STEP_CACHED);
        CHECK_EQ_U64(r->nmetrics, 3);
        CHECK(r->nmetrics == 3 && isnan(r->metrics[0].value) && isinf(r->metrics[1].value) &&
              r->metrics[2].value == 1000.0);
    }
    pipe_step_record_free(r);

    CHECK_EQ_INT(pipe_step_record_read("/nonexistent/step.yaml", &r, err, sizeof err), PIPE_ENOENT);
    CHECK(fx_contains(err, "/nonexistent/step.yaml"));
}

/* A done record cut anywhere (a crash, a full disk, a copy cut short) is
   not done: at every length short of whole it does not parse, and a failed
   one that does still says failed. Once a producer's step.yaml cut to 100
   bytes was accepted as done. */
static void test_cut_short(void)
{
    /* The last done record has no error text: its early lines are plain. */
    pipe_step_status statuses[] = {PIPE_STEP_DONE, PIPE_STEP_CACHED, PIPE_STEP_FAILED, PIPE_STEP_DONE};
    for (size_t k = 0; k < sizeof statuses / sizeof statuses[0]; k++) {
        pipe_step_record *r = full_record(), *b = NULL;
        r->status = statuses[k];
        if (k == 3) {
            free(r->error);
            free(r->signal);
            r->error = r->signal = NULL;
        }
        char *text = NULL, err[512];
        size_t len = 0;
        CHECK_EQ_INT(pipe_step_record_format(r, &text, &len, err, sizeof err), 0);
        CHECK(len > 100);
        size_t passed = 0;
        for (size_t n = 0; n < len; n++) {
            int rc = pipe_step_record_parse(text, n, &b, err, sizeof err);
            if (rc == 0 && (statuses[k] != PIPE_STEP_FAILED || b->status != PIPE_STEP_FAILED)) {
                fprintf(stderr, "cut to %zu bytes, a %s record still reads as %s\n", n,
                        pipe_step_status_name(statuses[k]), pipe_step_status_name(b->status));
                passed++;
            }
            pipe_step_record_free(b);
            b = NULL;
        }
        CHECK_EQ_U64(passed, 0);
        if (statuses[k] != PIPE_STEP_FAILED) {
            CHECK_EQ_INT(pipe_step_record_parse(text, 100, &b, err, sizeof err), PIPE_EFORMAT);
            CHECK_NULL(b);
        }
        CHECK_EQ_INT(pipe_step_record_parse(text, len, &b, err, sizeof err), 0);
        CHECK(b && b->status == statuses[k]);
        pipe_step_record_free(b);
        free(text);
        pipe_step_record_free(r);
    }
    /* The two ways a cut shows, each named. */
    const char *no_end = "invocation: a\nstatus: done\nmetrics: {}", *no_metrics = "invocation: a\nstatus: done\n";
    pipe_step_record *b = NULL;
    char err[512];
    CHECK_EQ_INT(pipe_step_record_parse(no_end, strlen(no_end), &b, err, sizeof err), PIPE_EFORMAT);
    CHECK(fx_contains(err, "says done but is not whole: its last line is cut short"));
    CHECK_EQ_INT(pipe_step_record_parse(no_metrics, strlen(no_metrics), &b, err, sizeof err), PIPE_EFORMAT);
    CHECK(fx_contains(err, "it ends before `metrics`"));
    CHECK_NULL(b);
}

static void test_status_and_numbers(void)
{
    pipe_step_status st;
    CHECK_STREQ(pipe_step_status_name(PIPE_STEP_DONE), "done");
    CHECK_STREQ(pipe_step_status_name(PIPE_STEP_CACHED), "cached");
    CHECK_STREQ(pipe_step_status_name(PIPE_STEP_FAILED), "failed");
    CHECK_STREQ(pipe_step_status_name(PIPE_STEP_INTERRUPTED), "interrupted");
    CHECK_EQ_INT(pipe_step_status_parse("cached", &st), 0);
    CHECK_EQ_INT(st, PIPE_STEP_CACHED);
    CHECK_EQ_INT(pipe_step_status_parse("interrupted", &st), 0);
    CHECK_EQ_INT(st, PIPE_STEP_INTERRUPTED);
    /* Only what finished has usable outputs. */
    CHECK(pipe_step_status_succeeded(PIPE_STEP_DONE) && pipe_step_status_succeeded(PIPE_STEP_CACHED));
    CHECK(!pipe_step_status_succeeded(PIPE_STEP_FAILED) && !pipe_step_status_succeeded(PIPE_STEP_INTERRUPTED));
    CHECK_EQ_INT(pipe_step_status_parse("Done", &st), PIPE_EFORMAT);
    CHECK_EQ_INT(pipe_step_status_parse(NULL, &st), PIPE_EFORMAT);

    char buf[64];
    pipe_format_double(0.0123, buf, sizeof buf);
    CHECK_STREQ(buf, "0.0123");
    pipe_format_double(0.1 + 0.2, buf, sizeof buf);
    CHECK_STREQ(buf, "0.30000000000000004");
    pipe_format_double(1e300, buf, sizeof buf);
    CHECK_STREQ(buf, "1e+300");
    pipe_format_double(-2, buf, sizeof buf);
    CHECK_STREQ(buf, "-2");
    pipe_format_double(NAN, buf, sizeof buf);
    CHECK_STREQ(buf, "nan");
    pipe_format_double(INFINITY, buf, sizeof buf);
    CHECK_STREQ(buf, "inf");
    pipe_format_double(-INFINITY, buf, sizeof buf);
    CHECK_STREQ(buf, "-inf");
    /* Every double reads back exactly. */
    double vals[] = {1.0 / 3, 2.0 / 3, 1e-310, 123456789.123456789, 5e-324};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        pipe_format_double(vals[i], buf, sizeof buf);
        CHECK(strtod(buf, NULL) == vals[i]);
    }
}

int main(void)
{
    test_round_trip();
    test_parse_errors();
    test_cut_short();
    test_status_and_numbers();
    return check_summary();
}
