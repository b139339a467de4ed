/* The JSON reader (format/json_walk.h) and the neuron-monitor report
   reader on it (observe/neuron_monitor.h): what is accepted and what is
   not, the paths given, nothing called back for a malformed text, the
   depth bound, and a mutation fuzz over a recorded report that must never
   crash or read outside the text (run under ASan with -DPIPEC_SANITIZE=ON). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format/json_walk.h"
#include "observe/neuron_monitor.h"

static int valid(const char *s) { return pipe_json_walk(s, strlen(s), NULL, NULL) == 0; }

static void test_grammar(void)
{
    const char *good[] = {"{}", "[]", " 0 ", "-0.5e+10", "\"a\\u00e9\\n\"", "true", "null",
                          "{\"a\": [1, {\"b\": false}], \"c\": \"\"}", "[[[[]]]]", "1E3", "\"\\/\""};
    const char *bad[] = {"",          "{",        "}",       "[1,]",     "{\"a\" 1}", "{\"a\":}", "01",
                         "1.",        ".5",       "-",       "+1",       "tru",       "nul",      "\"abc",
                         "\"\\x\"",   "\"\\u12\"", "[1 2]",  "{} {}",    "{a: 1}",    "\"\t\"",   "{\"a\":1,}",
                         "NaN",       "[\"\\\"]", "1e",      "{\"a\":1]"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (!valid(good[i])) {
            fprintf(stderr, "rejected: %s\n", good[i]);
            CHECK(0);
        }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (valid(bad[i])) {
            fprintf(stderr, "accepted: %s\n", bad[i]);
            CHECK(0);
        }
    /* Depth: PIPE_JSON_MAX_DEPTH nested arrays are fine, one more is not. */
    char deep[2 * PIPE_JSON_MAX_DEPTH + 4];
    memset(deep, '[', PIPE_JSON_MAX_DEPTH);
    memset(deep + PIPE_JSON_MAX_DEPTH, ']', PIPE_JSON_MAX_DEPTH);
    deep[2 * PIPE_JSON_MAX_DEPTH] = '\0';
    CHECK(valid(deep));
    char deeper[2 * PIPE_JSON_MAX_DEPTH + 4];
    memset(deeper, '[', PIPE_JSON_MAX_DEPTH + 1);
    memset(deeper + PIPE_JSON_MAX_DEPTH + 1, ']', PIPE_JSON_MAX_DEPTH + 1);
    deeper[2 * PIPE_JSON_MAX_DEPTH + 2] = '\0';
    CHECK(!valid(deeper));
    /* The length given bounds the text: no terminator needed, none read past. */
    CHECK(pipe_json_walk("[1]xyz", 3, NULL, NULL) == 0);
    CHECK(pipe_json_walk("[1]xyz", 2, NULL, NULL) != 0);
    CHECK(pipe_json_walk(NULL, 0, NULL, NULL) != 0);
}

typedef struct seen {
    char text[512];
    int calls;
} seen;

static void record(void *arg, const pipe_json_step *path, int depth, const pipe_json_value *v)
{
    seen *s = arg;
    size_t used = strlen(s->text);
    for (int i = 0; i < depth; i++)
        used += (size_t)(path[i].key ? snprintf(s->text + used, sizeof s->text - used, "/%.*s", (int)path[i].key_len,
                                                path[i].key)
                                     : snprintf(s->text + used, sizeof s->text - used, "[%zu]", path[i].index));
    used += (size_t)snprintf(s->text + used, sizeof s->text - used, "=%.*s;", (int)v->len, v->text);
    s->calls++;
}

static void test_paths(void)
{
    seen s = {"", 0};
    const char *doc = "{\"a\": [10, {\"b\": -2.5e1}], \"c\": \"x\\\"y\", \"d\": null}";
    CHECK_EQ_INT(pipe_json_walk(doc, strlen(doc), record, &s), 0);
    CHECK_STREQ(s.text, "/a[0]=10;/a[1]/b=-2.5e1;/c=x\\\"y;/d=null;");
    /* Malformed at the very end: no callback at all. */
    seen t = {"", 0};
    const char *cut = "{\"a\": [10, {\"b\": 1}], \"c\": ";
    CHECK(pipe_json_walk(cut, strlen(cut), record, &t) != 0);
    CHECK_EQ_INT(t.calls, 0);
}

static const char report_line[] =
    "{\"neuron_runtime_data\": [{\"pid\": 7, \"report\": {\"neuroncore_counters\": {\"period\": 1.0, "
    "\"neuroncores_in_use\": {\"0\": {\"neuroncore_utilization\": 12.5}, \"1\": {\"neuroncore_utilization\": 0}}}, "
    "\"memory_used\": {\"neuron_runtime_used_bytes\": {\"host\": 5, \"neuron_device\": 3145728, \"usage_breakdown\": "
    "{\"neuroncore_memory_usage\": {\"0\": {\"constants\": 1048576, \"model_code\": 1048576}, \"1\": {\"tensors\": "
    "1048576}}}}}}}, {\"pid\": 8, \"report\": {\"neuroncore_counters\": {\"neuroncores_in_use\": {\"1\": "
    "{\"neuroncore_utilization\": 70}, \"17\": {\"neuroncore_utilization\": 99}, \"x\": {\"neuroncore_utilization\": "
    "5}}}}}], \"neuron_hardware_info\": {\"neuron_device_type\": \"train,ium\\n\", \"neuroncore_per_device_count\": "
    "2}}";

static void test_report(void)
{
    static pipe_neuron_report r, known;
    CHECK_EQ_INT(pipe_neuron_report_parse(report_line, strlen(report_line), &r), 0);
    CHECK_EQ_INT(r.cores_per_device, 2);
    CHECK_STREQ(r.device_type, "trainium"); /* a CSV field: no comma, no newline */
    CHECK_EQ_INT(r.ncores, 18);
    CHECK(r.utilization_pct[0] == 12.5 && r.utilization_pct[1] == 70 && r.utilization_pct[17] == 99);
    CHECK(isnan(r.utilization_pct[2]));
    CHECK(r.memory_bytes[0] == 2097152 && r.memory_bytes[1] == 1048576 && isnan(r.memory_bytes[17]));
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    memset(&known, 0, sizeof known);
    CHECK_EQ_INT((int)pipe_neuron_report_csv(&r, &known, 1.5, f), 3);
    fclose(f);
    CHECK_STREQ(text, "1.500,0,0,12.5,2.0,trainium\n1.500,0,1,70.0,1.0,trainium\n1.500,8,17,99.0,,trainium\n");
    free(text);
    /* A report that does not say the hardware: the last one's is kept. */
    const char *bare = "{\"neuron_runtime_data\": [{\"report\": {\"neuroncore_counters\": {\"neuroncores_in_use\": "
                       "{\"3\": {\"neuroncore_utilization\": 250}}}}}]}";
    CHECK_EQ_INT(pipe_neuron_report_parse(bare, strlen(bare), &r), 0);
    f = open_memstream(&text, &size);
    pipe_neuron_report_csv(&r, &known, 2, f);
    fclose(f);
    CHECK_STREQ(text, "2.000,1,3,100.0,,trainium\n"); /* capped at 100 */
    free(text);
    /* Not a report. */
    CHECK(pipe_neuron_report_parse("[1, 2]", 6, &r) != 0);
    CHECK(pipe_neuron_report_parse("", 0, &r) != 0);
    CHECK(pipe_neuron_report_parse(report_line, strlen(report_line) - 1, &r) != 0);
    CHECK_EQ_INT(r.ncores, 0);
}

/* Random mutations of the report (bytes changed, cut, spliced): each is
   either read or refused, never a crash; the fuzz input lives in a buffer
   of exactly its length so that ASan sees any read past it. */
static void test_fuzz(void)
{
    static pipe_neuron_report r;
    unsigned seed = 12345;
    size_t n = strlen(report_line);
    const char alphabet[] = "{}[]\":,0123456789.eE+-\\u \ttrue";
    int accepted = 0;
    for (int round = 0; round < 20000; round++) {
        char *buf = malloc(n);
        memcpy(buf, report_line, n);
        size_t len = n;
        int edits = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 4;
        for (int e = 0; e < edits; e++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % len;
            switch ((seed >> 4) % 3) {
            case 0:
                buf[at] = alphabet[(seed >> 20) % (sizeof alphabet - 1)];
                break;
            case 1:
                len = at ? at : 1; /* cut */
                break;
            default:
                buf[at] = (char)(seed >> 24); /* any byte */
            }
        }
        char *exact = malloc(len);
        memcpy(exact, buf, len);
        free(buf);
        if (pipe_neuron_report_parse(exact, len, &r) == 0) {
            accepted++;
            CHECK(r.ncores >= 0 && r.ncores <= PIPE_NEURON_MAX_CORES);
        }
        free(exact);
    }
    CHECK(accepted > 0); /* some edits keep it valid (a digit for a digit) */
}

int main(void)
{
    test_grammar();
    test_paths();
    test_report();
    test_fuzz();
    return check_summary();
}
