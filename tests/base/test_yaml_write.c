/* The YAML writer pipec and the runtime share (runtime/base/src/
   yaml_write.c): a runtime record into a buffer, pipec's documents into a
   sink, and the failures each side reports. */
#include "check.h"
#include "pipe/error.h"
#include "pipe/yaml_write.h"

#include <stdlib.h>
#include <string.h>

static char out[1024];
static size_t used;

static bool append(void *arg, const char *data, size_t n)
{
    CHECK(arg == out);
    if (used + n >= sizeof out)
        return false;
    memcpy(out + used, data, n);
    used += n;
    out[used] = '\0';
    return true;
}

static bool refuse(void *arg, const char *data, size_t n)
{
    (void)arg, (void)data, (void)n;
    return false;
}

static void test_record(void)
{
    pipe_yw w;
    CHECK_EQ_INT(pipe_yw_begin(&w), 0);
    pipe_yw_map_begin(&w, false);
    pipe_yw_key_plain(&w, "status", "done");
    pipe_yw_key_quoted(&w, "value", "1e3");
    pipe_yw_key_plain(&w, "empty", NULL);
    pipe_yw_plain(&w, "outputs");
    pipe_yw_map_begin(&w, true);
    pipe_yw_key_plain(&w, "model", "a: b");
    pipe_yw_map_end(&w);
    pipe_yw_map_end(&w);
    char *text = NULL, err[128] = "";
    size_t len = 0;
    CHECK_EQ_INT(pipe_yw_finish(&w, &text, &len, err, sizeof err), 0);
    CHECK_STREQ(text, "status: done\nvalue: \"1e3\"\nempty:\noutputs: {model: 'a: b'}\n");
    CHECK_EQ_INT(len, text ? strlen(text) : 0);
    free(text);
}

static void test_documents(void)
{
    pipe_yw w;
    used = 0;
    CHECK_EQ_INT(pipe_yw_open(&w, append, out), 0);
    for (int doc = 0; doc < 2; doc++) {
        pipe_yw_doc_begin(&w, doc > 0);
        pipe_yw_map_begin(&w, false);
        pipe_yw_key_string(&w, "name", doc ? "on" : "train-1");
        pipe_yw_key_int(&w, "min", -9223372036854775807LL - 1);
        pipe_yw_key_uint(&w, "max", 18446744073709551615ULL);
        pipe_yw_key_int(&w, "zero", 0);
        pipe_yw_plain(&w, "args");
        pipe_yw_seq_begin(&w, true);
        pipe_yw_string(&w, "--lr=0.1");
        pipe_yw_string(&w, "caf\xc3\xa9");
        pipe_yw_scalar(&w, "two\nlines", YAML_LITERAL_SCALAR_STYLE);
        pipe_yw_seq_end(&w);
        pipe_yw_map_end(&w);
        pipe_yw_doc_end(&w);
    }
    CHECK_EQ_INT(pipe_yw_close(&w), 0);
    CHECK_STREQ(out, "name: train-1\nmin: -9223372036854775808\nmax: 18446744073709551615\nzero: 0\n"
                     "args: [\"--lr=0.1\", \"caf\xc3\xa9\", \"two\\nlines\"]\n"
                     "---\nname: \"on\"\nmin: -9223372036854775808\nmax: 18446744073709551615\nzero: 0\n"
                     "args: [\"--lr=0.1\", \"caf\xc3\xa9\", \"two\\nlines\"]\n");
}

static void test_plain_ok(void)
{
    static const char *const plain[] = {"train", "a-b_c.d/e", "Yesterday", "nullable", "x1"};
    static const char *const quoted[] = {"", "1", "-x", "a b", "yes", "No", "ON", "off", "TRUE", "false", "Null",
                                         "y", "N", "a:b", "caf\xc3\xa9"};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        CHECK(pipe_yaml_plain_ok(plain[i]));
    for (size_t i = 0; i < sizeof quoted / sizeof quoted[0]; i++)
        CHECK(!pipe_yaml_plain_ok(quoted[i]));
}

static void test_failures(void)
{
    /* The sink fails: libyaml's "write error"; the runtime's message. */
    pipe_yw w;
    CHECK_EQ_INT(pipe_yw_open(&w, refuse, NULL), 0);
    pipe_yw_doc_begin(&w, false);
    pipe_yw_plain(&w, "x");
    pipe_yw_doc_end(&w);
    CHECK_EQ_INT(pipe_yw_close(&w), PIPE_EINVAL);
    CHECK_STREQ(w.problem, "write error");

    /* An unbalanced stream: libyaml refuses the event. */
    CHECK_EQ_INT(pipe_yw_begin(&w), 0);
    pipe_yw_map_end(&w);
    pipe_yw_plain(&w, "after the failure, nothing");
    char *text = NULL, err[128] = "";
    CHECK_EQ_INT(pipe_yw_finish(&w, &text, NULL, err, sizeof err), PIPE_EINVAL);
    CHECK(text == NULL);
    CHECK(strncmp(err, "cannot render YAML: ", 20) == 0 && strlen(err) > 20);

    /* Text that is not UTF-8 makes no event. */
    CHECK_EQ_INT(pipe_yw_begin(&w), 0);
    pipe_yw_plain(&w, "\xff");
    CHECK_EQ_INT(pipe_yw_finish(&w, &text, NULL, err, sizeof err), PIPE_ENOMEM);
    CHECK_STREQ(err, "cannot render YAML: out of memory");

    /* Abandoned half way: everything is freed (the sanitizer build checks). */
    CHECK_EQ_INT(pipe_yw_begin(&w), 0);
    pipe_yw_map_begin(&w, false);
    pipe_yw_key_plain(&w, "a", "b");
    pipe_yw_abandon(&w);
}

int main(void)
{
    test_record();
    test_documents();
    test_plain_ok();
    test_failures();
    return check_summary();
}
