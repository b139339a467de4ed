/* metrics.csv (metrics.c): the writer's header and step indices, names it
   refuses, and the reader, for this format and the older time_s,name,value. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "observe/metrics.h"
#include "step_fixture.h"

static void test_writer(void)
{
    char *dir = fx_tempdir("metrics");
    char *path = pipe_asprintf("%s/metrics.csv", dir), err[512];
    pipe_metrics_writer w;
    CHECK_EQ_INT(pipe_metrics_writer_init(&w, path, pipe_now()), 0);
    CHECK(!pipe_file_exists(path)); /* nothing until the first value */
    CHECK_EQ_INT(pipe_metrics_writer_record(&w, "loss", -1, 2.5, 0.25, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_metrics_writer_record(&w, "loss", -1, 1.5, 0.5, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_metrics_writer_record(&w, "loss", 10, 1.0, 0.75, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_metrics_writer_record(&w, "loss", -1, 0.5, 1, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_metrics_writer_record(&w, "acc", -1, NAN, 1.25, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_metrics_writer_record(&w, "a,b", -1, 1, -1, err, sizeof err), PIPE_EINVAL);
    CHECK(fx_contains(err, "a,b") && fx_contains(err, "comma"));
    CHECK_EQ_INT(pipe_metrics_writer_record(&w, "tab\there", -1, 1, -1, err, sizeof err), PIPE_EINVAL);
    CHECK_EQ_INT(pipe_metrics_writer_record(&w, "", -1, 1, -1, err, sizeof err), PIPE_EINVAL);
    CHECK_EQ_INT(pipe_metrics_writer_record(&w, "two words", -1, 3, 2, err, sizeof err), 0);
    pipe_metrics_writer_close(&w);
    char *text = fx_read(path);
    CHECK_STREQ(text, "name,step,value,time_s\nloss,0,2.5,0.250\nloss,1,1.5,0.500\nloss,10,1,0.750\n"
                      "loss,11,0.5,1.000\nacc,0,nan,1.250\ntwo words,0,3,2.000\n");
    free(text);

    /* A second writer on the same file appends without a second header. */
    CHECK_EQ_INT(pipe_metrics_writer_init(&w, path, pipe_now()), 0);
    CHECK_EQ_INT(pipe_metrics_writer_record(&w, "later", 4, 7, 3, err, sizeof err), 0);
    pipe_metrics_writer_close(&w);
    pipe_metrics m;
    CHECK_EQ_INT(pipe_metrics_read(path, &m, err, sizeof err), 0);
    CHECK_EQ_U64(m.n, 4);
    CHECK_EQ_U64(m.skipped, 0);
    const pipe_metric_series *loss = pipe_metrics_find(&m, "loss");
    CHECK(loss && loss->n == 4 && loss->points[2].step == 10 && loss->points[3].value == 0.5);
    const pipe_metric_series *acc = pipe_metrics_find(&m, "acc");
    CHECK(acc && acc->n == 1 && isnan(acc->points[0].value));
    CHECK(pipe_metrics_find(&m, "later") && pipe_metrics_find(&m, "later")->points[0].step == 4);
    CHECK(pipe_metrics_find(&m, "two words") != NULL);
    pipe_metrics_free(&m);

    /* A file that cannot be created is an error naming it. */
    CHECK_EQ_INT(pipe_metrics_writer_init(&w, "/nonexistent/dir/metrics.csv", 0), 0);
    CHECK_EQ_INT(pipe_metrics_writer_record(&w, "x", -1, 1, -1, err, sizeof err), PIPE_EIO);
    CHECK(fx_contains(err, "/nonexistent/dir/metrics.csv"));
    pipe_metrics_writer_close(&w);
    free(path);
    fx_rmtree(dir);
}

static void test_reader(void)
{
    pipe_metrics m;
    char err[256];
    /* The older format, with and without its header: steps are row counts. */
    CHECK_EQ_INT(pipe_metrics_parse("time_s,name,value\n0.1,loss,3\n0.2,loss,2\n0.3,acc,0.5\n", &m), 0);
    CHECK_EQ_U64(m.n, 2);
    CHECK(m.series[0].n == 2 && m.series[0].points[1].step == 1 && m.series[0].points[1].time_s == 0.2);
    pipe_metrics_free(&m);
    CHECK_EQ_INT(pipe_metrics_parse("0.1,loss,3\n0.2,loss,2\n", &m), 0);
    CHECK(m.n == 1 && m.series[0].n == 2 && m.series[0].points[0].value == 3);
    pipe_metrics_free(&m);
    /* Bad rows are counted and left out; CRLF is fine. */
    CHECK_EQ_INT(pipe_metrics_parse("name,step,value,time_s\r\nloss,0,1,0.1\r\nloss,-1,2,0.2\nloss,x,2,0.2\n"
                                    "loss,1,abc,0.3\nloss,2,3\nloss,3,4,0.4,extra\n,4,1,0.1\nloss,5,0.25,0.5\n",
                                    &m),
                 0);
    CHECK_EQ_U64(m.skipped, 6);
    CHECK(m.n == 1 && m.series[0].n == 2 && m.series[0].points[1].step == 5);
    pipe_metrics_free(&m);
    CHECK_EQ_INT(pipe_metrics_parse("", &m), 0);
    CHECK_EQ_U64(m.n, 0);
    pipe_metrics_free(&m);
    CHECK_EQ_INT(pipe_metrics_read("/nonexistent/metrics.csv", &m, err, sizeof err), PIPE_ENOENT);
}

static void collect(void *arg, const char *line)
{
    char *all = arg;
    strncat(all, line, 2047 - strlen(all));
    strncat(all, "\n", 2047 - strlen(all));
}

/* What is written reads back as written over the whole range: steps up to
   INT64_MAX, a step given twice, +-1e308, subnormal values, a time that
   %.3f would spell in hundreds of digits; a step past INT64_MAX is a
   skipped row, named by its line (never clamped). */
static void test_range(void)
{
    char *dir = fx_tempdir("metrics-range");
    char *path = pipe_asprintf("%s/metrics.csv", dir), err[512];
    pipe_metrics_writer w;
    CHECK_EQ_INT(pipe_metrics_writer_init(&w, path, pipe_now()), 0);
    CHECK_EQ_INT(pipe_metrics_writer_record(&w, "x", INT64_MAX, 1e308, 0.5, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_metrics_writer_record(&w, "x", INT64_MAX, -1e308, 0.5, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_metrics_writer_record(&w, "x", 9007199254740993, 1e-320, 1e300, err, sizeof err), 0);
    CHECK_EQ_INT(pipe_metrics_writer_record(&w, "x", 9007199254740993, 4.9406564584124654e-324, 2, err, sizeof err),
                 0);
    pipe_metrics_writer_close(&w);
    FILE *f = fopen(path, "a");
    fputs("x,99999999999999999999999,1,0.1\nx,1\n", f);
    fclose(f);
    pipe_metrics m;
    CHECK_EQ_INT(pipe_metrics_read(path, &m, err, sizeof err), 0);
    const pipe_metric_series *x = pipe_metrics_find(&m, "x");
    CHECK(x && x->n == 4);
    if (x && x->n == 4) {
        CHECK(x->points[0].step == INT64_MAX && x->points[1].step == INT64_MAX);
        CHECK(x->points[0].value == 1e308 && x->points[1].value == -1e308);
        CHECK(x->points[2].step == 9007199254740993 && x->points[3].step == 9007199254740993);
        CHECK(x->points[2].value == 1e-320 && x->points[3].value == 4.9406564584124654e-324);
        CHECK(x->points[2].time_s == 1e300);
    }
    CHECK_EQ_U64(m.skipped, 2);
    char said[2048] = "";
    pipe_metrics_warn(&m, "M", collect, said);
    CHECK_STREQ(said, "M line 6 skipped (the step is not a whole number from 0 to 9223372036854775807)\n"
                      "M line 7 skipped (expected name,step,value,time_s)\n");
    pipe_metrics_free(&m);

    /* The first five skipped rows by line, then the count of the rest. */
    CHECK_EQ_INT(pipe_metrics_parse("name,step,value,time_s\na\nb\nc\nd\ne\nf\ng\nok,0,1,2\n", &m), 0);
    said[0] = '\0';
    pipe_metrics_warn(&m, "M", collect, said);
    CHECK(fx_contains(said, "M line 2 skipped") && fx_contains(said, "M line 6 skipped") &&
          !fx_contains(said, "M line 7") && fx_contains(said, "M: 2 more lines skipped"));
    pipe_metrics_free(&m);
    free(path);
    fx_rmtree(dir);
}

int main(void)
{
    test_writer();
    test_reader();
    test_range();
    return check_summary();
}
