/* params.c: typed validation of parameter values and their canonical text. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format/params.h"

static void expect_canon(pipe_type t, const char *in, const char *out)
{
    char *got = pipe_value_canonical(t, in);
    CHECK_STREQ(got, out);
    if (out == NULL && got)
        fprintf(stderr, "  (input `%s`)\n", in);
    free(got);
}

static void test_canonical(void)
{
    expect_canon(PIPE_TYPE_INT, "42", "42");
    expect_canon(PIPE_TYPE_INT, "-7", "-7");
    expect_canon(PIPE_TYPE_INT, "+7", "7");
    expect_canon(PIPE_TYPE_INT, "007", "7");
    expect_canon(PIPE_TYPE_INT, "-0", "0");
    expect_canon(PIPE_TYPE_INT, "9223372036854775807", "9223372036854775807");
    expect_canon(PIPE_TYPE_INT, "-9223372036854775808", "-9223372036854775808");
    expect_canon(PIPE_TYPE_INT, "9223372036854775808", NULL);
    expect_canon(PIPE_TYPE_INT, "", NULL);
    expect_canon(PIPE_TYPE_INT, "-", NULL);
    expect_canon(PIPE_TYPE_INT, " 1", NULL);
    expect_canon(PIPE_TYPE_INT, "1 ", NULL);
    expect_canon(PIPE_TYPE_INT, "1.0", NULL);
    expect_canon(PIPE_TYPE_INT, "0x10", NULL);
    expect_canon(PIPE_TYPE_INT, "1e3", NULL);
    expect_canon(PIPE_TYPE_INT, "abc", NULL);

    expect_canon(PIPE_TYPE_FLOAT, "0.05", "0.05");
    expect_canon(PIPE_TYPE_FLOAT, "0.050", "0.05");
    expect_canon(PIPE_TYPE_FLOAT, "5e-2", "0.05");
    expect_canon(PIPE_TYPE_FLOAT, "1e3", "1000");
    expect_canon(PIPE_TYPE_FLOAT, "1", "1");
    expect_canon(PIPE_TYPE_FLOAT, "-2.5", "-2.5");
    expect_canon(PIPE_TYPE_FLOAT, "0.1", "0.1");
    expect_canon(PIPE_TYPE_FLOAT, "0.30000000000000004", "0.30000000000000004");
    expect_canon(PIPE_TYPE_FLOAT, "1e300", "1e+300");
    expect_canon(PIPE_TYPE_FLOAT, "1.5e10", "15000000000");
    expect_canon(PIPE_TYPE_FLOAT, "1e15", "1000000000000000");
    expect_canon(PIPE_TYPE_FLOAT, "1e16", "1e+16");
    expect_canon(PIPE_TYPE_FLOAT, "1.25e-7", "1.25e-07");
    expect_canon(PIPE_TYPE_FLOAT, "0.0001", "0.0001");
    expect_canon(PIPE_TYPE_FLOAT, "-0", "-0");
    expect_canon(PIPE_TYPE_FLOAT, "0x10", "16");
    expect_canon(PIPE_TYPE_FLOAT, "1e400", NULL);
    expect_canon(PIPE_TYPE_FLOAT, "1e-400", NULL); /* underflows to 0: out of range, not 0 */
    expect_canon(PIPE_TYPE_FLOAT, "-1e-400", NULL);
    expect_canon(PIPE_TYPE_FLOAT, "0e-400", "0");  /* a zero is a zero */
    expect_canon(PIPE_TYPE_FLOAT, "1e-310", "1e-310"); /* subnormal: the nearest double */
    expect_canon(PIPE_TYPE_FLOAT, "inf", NULL);
    expect_canon(PIPE_TYPE_FLOAT, "-infinity", NULL);
    expect_canon(PIPE_TYPE_FLOAT, "nan", NULL);
    expect_canon(PIPE_TYPE_FLOAT, "", NULL);
    expect_canon(PIPE_TYPE_FLOAT, " 1", NULL);
    expect_canon(PIPE_TYPE_FLOAT, "1 ", NULL);
    expect_canon(PIPE_TYPE_FLOAT, "1.5x", NULL);
    expect_canon(PIPE_TYPE_FLOAT, "fast", NULL);

    expect_canon(PIPE_TYPE_BOOL, "true", "true");
    expect_canon(PIPE_TYPE_BOOL, "false", "false");
    expect_canon(PIPE_TYPE_BOOL, "True", NULL);
    expect_canon(PIPE_TYPE_BOOL, "1", NULL);
    expect_canon(PIPE_TYPE_BOOL, "yes", NULL);

    expect_canon(PIPE_TYPE_STRING, "", "");
    expect_canon(PIPE_TYPE_STRING, "a b: \"c\"\n", "a b: \"c\"\n");
    expect_canon(PIPE_TYPE_ARTIFACT, "x", NULL);
    CHECK_NULL(pipe_value_canonical(PIPE_TYPE_STRING, NULL));

    /* Shortest round trip: every canonical float reads back exactly. */
    double samples[] = {0.1, 1.0 / 3.0, 2.0 / 3.0, 1e-310, DBL_MAX, DBL_MIN, 123456789.123456789, -0.0};
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        char in[64];
        snprintf(in, sizeof in, "%.17g", samples[i]);
        char *c = pipe_value_canonical(PIPE_TYPE_FLOAT, in);
        CHECK(c != NULL && strtod(c, NULL) == samples[i]);
        free(c);
    }
}

static pipe_manifest *make_manifest(void)
{
    static const char text[] = "manifest_version: 2\n"
                               "pipeline: p\n"
                               "params:\n"
                               "  - {name: epochs, type: int, default: \"5\"}\n"
                               "  - {name: lr, type: float, default: \"0.05\"}\n"
                               "  - {name: fail, type: bool, default: \"false\"}\n"
                               "  - {name: tag, type: string}\n"
                               "steps:\n"
                               "  - {name: s, entry: s_main, code_digest: x}\n"
                               "invocations:\n"
                               "  - {id: s, step: s}\n";
    char err[256];
    pipe_manifest *m = NULL;
    if (pipe_manifest_parse(text, strlen(text), &m, err, sizeof err) != 0)
        fprintf(stderr, "manifest: %s\n", err);
    return m;
}

static void test_values(void)
{
    pipe_manifest *m = make_manifest();
    CHECK_NOT_NULL(m);
    if (!m)
        return;
    pipe_param_values v;
    char err[512];
    CHECK_EQ_INT(pipe_params_init(m, &v), 0);
    CHECK_EQ_U64(v.n, 4);
    CHECK_STREQ(v.values[0], "5");
    CHECK_STREQ(v.values[1], "0.05");
    CHECK_STREQ(v.values[2], "false");
    CHECK_NULL(v.values[3]);

    CHECK_EQ_INT(pipe_params_check_complete(m, &v, err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "`tag`") != NULL);

    CHECK_EQ_INT(pipe_params_assign(m, &v, "epochs=12", err, sizeof err), 0);
    CHECK_STREQ(v.values[0], "12");
    CHECK_EQ_INT(pipe_params_assign(m, &v, "lr=1e-1", err, sizeof err), 0);
    CHECK_STREQ(v.values[1], "0.1");
    CHECK_EQ_INT(pipe_params_assign(m, &v, "tag=a=b", err, sizeof err), 0);
    CHECK_STREQ(v.values[3], "a=b");
    CHECK_EQ_INT(pipe_params_assign(m, &v, "tag=", err, sizeof err), 0);
    CHECK_STREQ(v.values[3], "");
    CHECK_EQ_INT(pipe_params_check_complete(m, &v, err, sizeof err), 0);

    CHECK_EQ_INT(pipe_params_assign(m, &v, "nope=1", err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "`nope`") && strstr(err, "epochs, lr, fail, tag"));
    CHECK_EQ_INT(pipe_params_assign(m, &v, "epochs=ten", err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "`epochs`") && strstr(err, "ten") && strstr(err, "int"));
    CHECK_STREQ(v.values[0], "12"); /* unchanged */
    CHECK_EQ_INT(pipe_params_assign(m, &v, "fail=yes", err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "`fail`") != NULL);
    CHECK_EQ_INT(pipe_params_assign(m, &v, "lr=nan", err, sizeof err), PIPE_EUSAGE);
    CHECK_EQ_INT(pipe_params_assign(m, &v, "epochs", err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "NAME=VALUE") != NULL);
    CHECK_EQ_INT(pipe_params_assign(m, &v, "=5", err, sizeof err), PIPE_EUSAGE);
    CHECK_EQ_INT(pipe_params_set(m, &v, "fail", "true", err, sizeof err), 0);
    CHECK_STREQ(v.values[2], "true");

    /* A misspelt name gets a suggestion (close, or the one it prefixes). */
    CHECK_EQ_INT(pipe_params_assign(m, &v, "epoch=3", err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "did you mean `epochs`?") != NULL);
    CHECK_EQ_INT(pipe_params_assign(m, &v, "LR=3", err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "did you mean `lr`?") != NULL);
    CHECK_EQ_INT(pipe_params_assign(m, &v, "zzzz=3", err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "did you mean") == NULL && strstr(err, "epochs, lr, fail, tag"));

    /* Out of range is said so, and the value is kept. */
    CHECK_EQ_INT(pipe_params_assign(m, &v, "lr=1e-400", err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "`lr`") && strstr(err, "out of range"));
    CHECK_EQ_INT(pipe_params_assign(m, &v, "lr=1e400", err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "out of range") != NULL);
    CHECK_EQ_INT(pipe_params_assign(m, &v, "epochs=99999999999999999999", err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "`epochs`") && strstr(err, "out of range"));
    CHECK_EQ_INT(pipe_params_assign(m, &v, "lr=inf", err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "is not a float") != NULL);
    CHECK_STREQ(v.values[1], "0.1");

    /* A name given twice on one command line is an error naming both. */
    const char *twice[] = {"epochs=3", "lr=0.5", "epochs=4"};
    CHECK_EQ_INT(pipe_params_assign_all(m, &v, twice, 3, err, sizeof err), PIPE_EUSAGE);
    CHECK(strstr(err, "`epochs` is given twice") && strstr(err, "epochs=3") && strstr(err, "epochs=4"));
    const char *once[] = {"epochs=3", "lr=0.5", "epochsx=4"};
    CHECK_EQ_INT(pipe_params_assign_all(m, &v, once, 2, err, sizeof err), 0);
    CHECK_STREQ(v.values[0], "3");

    pipe_params_free(&v);
    CHECK_EQ_U64(v.n, 0);
    pipe_params_free(&v); /* twice is harmless */
    pipe_manifest_free(m);
}

int main(void)
{
    test_canonical();
    test_values();
    return check_summary();
}
