/* "Did you mean" support (compiler/util/suggest.c: the diagnostics' threshold on
 * top of pipe_closest_name, tested with the edit distance in tests/base) and
 * the explanations (compiler/util/diag_codes.def, compiler/explain/). */
#include "util/diag_codes.h"
#include "util/embedded.h"
#include "cli/explain.h"
#include "util/suggest.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Every code of the diagnostics table in the spec (section 6), in order. */
static const char *const spec_codes[] = {
    "E0001", "E0002", "E0003", "E0004", "E0010",
    "E0101", "E0102", "E0103", "E0104", "E0105", "E0106", "E0107", "E0108", "E0109",
    "E0110", "E0111", "E0112", "E0113", "E0114", "E0115", "E0116", "E0117", "E0118", "E0119", "E0120", "E0121",
    "E0201", "E0202", "E0203", "E0204", "E0205", "E0206", "E0207", "E0208", "E0209", "E0210", "E0211",
    "E0301", "E0302", "E0303", "E0304", "E0305", "E0306", "E0307", "E0308", "E0309",
    "E0310",
    "E0401", "E0402", "E0403",
    "W0401", "W0402", "W0403", "W0404", "W0405", "W0406", "W0407", "W0408", "W0409", "W0410", "W0411",
    "W0412",
};

static void test_suggest_closest(void)
{
    const char *const steps[] = {"load", "train", "evaluate"};
    CHECK_STREQ(suggest_closest("trian", steps, 3), "train");
    CHECK_STREQ(suggest_closest("evalute", steps, 3), "evaluate");
    CHECK_STREQ(suggest_closest("laod", steps, 3), "load");
    CHECK_NULL(suggest_closest("predict", steps, 3));
    CHECK_STREQ(suggest_closest("train", steps, 3), "train"); /* exact */

    const char *const opts[] = {"cpu", "gpu", "memory", "disk", "shm", "gpu_type"};
    CHECK_STREQ(suggest_closest("gpus", opts, COUNT(opts)), "gpu");
    CHECK_STREQ(suggest_closest("memroy", opts, COUNT(opts)), "memory");
    CHECK_STREQ(suggest_closest("gpu_typ", opts, COUNT(opts)), "gpu_type");
    /* gpu_count: 9 chars, threshold 3, but "gpu" is 6 away */
    CHECK_NULL(suggest_closest("gpu_count", opts, COUNT(opts)));
    CHECK_NULL(suggest_closest("xyz", opts, COUNT(opts)));

    /* threshold is max(1, len / 3) */
    const char *const six[] = {"abcxyz"};
    CHECK_NULL(suggest_closest("abcdef", six, 1));          /* 3 > 2 */
    const char *const six2[] = {"abcdxy"};
    CHECK_STREQ(suggest_closest("abcdef", six2, 1), "abcdxy"); /* 2 <= 2 */
    const char *const two[] = {"ba", "xy"};
    CHECK_STREQ(suggest_closest("ab", two, 2), "ba");        /* threshold 1 */
    CHECK_NULL(suggest_closest("ab", two + 1, 1));
    const char *const one[] = {"b"};
    CHECK_STREQ(suggest_closest("a", one, 1), "b");          /* min threshold 1 */

    /* case-insensitive equality beats a closer edit distance */
    const char *const cg[] = {"gpu", "cpu"};
    CHECK_STREQ(suggest_closest("CPU", cg, 2), "cpu");
    CHECK_STREQ(suggest_closest("Cpu", cg, 2), "cpu");
    const char *const res[] = {"resource", "Resources"};
    CHECK_STREQ(suggest_closest("RESOURCES", res, 2), "Resources");
    /* ... and among case-insensitive matches, the exact one wins */
    const char *const both[] = {"CPU", "cpu"};
    CHECK_STREQ(suggest_closest("cpu", both, 2), "cpu");

    /* ties go to the first in array order */
    const char *const ties[] = {"bat", "hat", "cat"};
    CHECK_STREQ(suggest_closest("mat", ties, 3), "bat");
    const char *const ties2[] = {"hat", "bat"};
    CHECK_STREQ(suggest_closest("mat", ties2, 2), "hat");

    /* nothing to suggest from or to */
    CHECK_NULL(suggest_closest("train", steps, 0));
    CHECK_NULL(suggest_closest("", steps, 3));
    const char *const holes[] = {NULL, "train", NULL};
    CHECK_STREQ(suggest_closest("trian", holes, 3), "train");
}

static void check_list(const char *const *names, size_t n, const char *expected)
{
    char buf[256];
    int len = format_name_list(buf, sizeof buf, names, n);
    CHECK_STREQ(buf, expected);
    CHECK_EQ_INT(len, (int)strlen(expected));
}

static void test_format_name_list(void)
{
    const char *const names[] = {"a", "b", "c", "d"};
    check_list(names, 0, "none");
    check_list(names, 1, "`a`");
    check_list(names, 2, "`a` and `b`");
    check_list(names, 3, "`a`, `b` and `c`");
    check_list(names, 4, "`a`, `b`, `c` and `d`");

    const char *const opts[] = {"data", "epochs", "lr"};
    check_list(opts, 3, "`data`, `epochs` and `lr`");

    /* truncation: full length returned, buffer cut and terminated */
    char buf[16];
    memset(buf, 'x', sizeof buf);
    CHECK_EQ_INT(format_name_list(buf, 5, names, 2), 11);
    CHECK_STREQ(buf, "`a` ");
    CHECK(buf[5] == 'x'); /* nothing past size touched */
    CHECK_EQ_INT(format_name_list(buf, 12, names, 2), 11); /* exact fit */
    CHECK_STREQ(buf, "`a` and `b`");
    CHECK_EQ_INT(format_name_list(buf, 11, names, 2), 11); /* one short */
    CHECK_STREQ(buf, "`a` and `b");
    CHECK_EQ_INT(format_name_list(buf, 1, names, 3), 16);
    CHECK_STREQ(buf, "");
    CHECK_EQ_INT(format_name_list(NULL, 0, names, 3), 16);
    CHECK_EQ_INT(format_name_list(buf, 3, names, 0), 4);
    CHECK_STREQ(buf, "no");
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        if (*s == '\n')
            n++;
    return n;
}

/* Reads a whole stream into a NUL-terminated heap buffer. */
static char *slurp(FILE *f)
{
    if (fseek(f, 0, SEEK_END) != 0)
        return NULL;
    long size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0)
        return NULL;
    char *buf = malloc((size_t)size + 1);
    if (!buf)
        return NULL;
    size_t got = fread(buf, 1, (size_t)size, f);
    buf[got] = '\0';
    return buf;
}

static void test_explain_table(void)
{
    CHECK_EQ_U64(explain_count(), COUNT(spec_codes));
    for (size_t i = 0; i < COUNT(spec_codes); i++) {
        const char *code = spec_codes[i];
        const explain_entry *e = explain_lookup(code);
        if (!e) {
            fprintf(stderr, "no explanation for %s\n", code);
            CHECK_NOT_NULL(e);
            continue;
        }
        CHECK_STREQ(e->code, code);
        if (!e->wrong[0] || !e->right[0])
            fprintf(stderr, "compiler/explain/%s.md is missing, or lacks its Wrong: or Right: example\n", code);
        CHECK(explain_at(i) == e); /* table order is spec order */
        CHECK(e->title && e->title[0] && !strchr(e->title, '\n'));
        CHECK(e->title && e->title[strlen(e->title) - 1] != '.');
        CHECK(e->position && e->position[0]);
        CHECK(e->text && strlen(e->text) > 200);
        CHECK(e->wrong && e->wrong[0]);
        CHECK(e->right && e->right[0]);
        if (e->wrong && e->right) {
            if (strcmp(e->wrong, e->right) == 0)
                fprintf(stderr, "%s: right and wrong examples are the same\n", code);
            CHECK(strcmp(e->wrong, e->right) != 0);
            /* short, complete snippets that end in a newline */
            CHECK(count_lines(e->wrong) >= 3 && count_lines(e->wrong) <= 12);
            CHECK(count_lines(e->right) >= 3 && count_lines(e->right) <= 12);
            CHECK(e->wrong[0] && e->wrong[strlen(e->wrong) - 1] == '\n');
            CHECK(e->right[0] && e->right[strlen(e->right) - 1] == '\n');
        }

        /* lower case works too */
        char lower[16];
        snprintf(lower, sizeof lower, "%s", code);
        lower[0] = (char)(lower[0] - 'A' + 'a');
        CHECK(explain_lookup(lower) == e);
    }
    CHECK_NULL(explain_at(explain_count()));
    CHECK_NULL(explain_lookup("E9999"));
    CHECK_NULL(explain_lookup("E030"));
    CHECK_NULL(explain_lookup("E03033"));
    CHECK_NULL(explain_lookup(""));
    CHECK_NULL(explain_lookup("W0303"));
    CHECK_NULL(explain_lookup(NULL));
}

/* The table and the explanation files agree: every file in compiler/explain/
   belongs to a code, and a code's severity matches its letter. */
static void test_code_table(void)
{
    for (const embedded_file *f = embedded_explain; f->path; f++) {
        char code[16];
        size_t n = strlen(f->path);
        CHECK(n > 3 && strcmp(f->path + n - 3, ".md") == 0);
        snprintf(code, sizeof code, "%.*s", (int)(n > 3 ? n - 3 : n), f->path);
        diag_code c;
        if (!diag_code_lookup(code, &c))
            fprintf(stderr, "compiler/explain/%s belongs to no code of diag_codes.def\n", f->path);
        CHECK(diag_code_lookup(code, &c) && strcmp(diag_code_name(c), code) == 0);
    }
    for (int i = 0; i < DIAG_CODE_COUNT; i++) {
        const diag_code_info *info = diag_code_get((diag_code)i);
        CHECK(info->name[0] == 'E' || info->name[0] == 'W');
        CHECK((info->name[0] == 'W') == (info->severity == DIAG_WARNING));
        diag_code c;
        CHECK(diag_code_lookup(info->name, &c) && c == (diag_code)i);
        if (i > 0) /* code order: E before W, by number */
            CHECK(strcmp(diag_code_get((diag_code)(i - 1))->name, info->name) < 0);
    }
    CHECK(diag_code_is_syntax(DIAG_E0001) && diag_code_is_syntax(DIAG_E0004) && diag_code_is_syntax(DIAG_E0010));
    CHECK(!diag_code_is_syntax(DIAG_E0101) && !diag_code_is_syntax(DIAG_W0401));
}

static void test_explain_print(void)
{
    FILE *f = tmpfile();
    CHECK_NOT_NULL(f);
    if (!f)
        return;
    explain_print(explain_lookup("E0303"), f);
    explain_print(explain_lookup("w0401"), f);
    char *out = slurp(f);
    fclose(f);
    CHECK_NOT_NULL(out);
    if (!out)
        return;
    CHECK(strstr(out, "error[E0303]: positional argument in a call to an accelerated step\n") == out);
    CHECK(strstr(out, "warning[W0401]: ") != NULL);
    CHECK(strstr(out, "\nWrong:\n") != NULL);
    CHECK(strstr(out, "\nRight:\n") != NULL);
    CHECK(strstr(out, "\n    pipeline training() {\n") != NULL); /* indented */
    /* wrapped at 78 columns */
    size_t col = 0, widest = 0;
    for (const char *p = out; *p; p++) {
        col = *p == '\n' ? 0 : col + 1;
        if (col > widest && strncmp(p - col + 1, "    ", 4) != 0)
            widest = col;
    }
    CHECK(widest <= 78);
    free(out);
}

/* The Markdown reference mentions every code; when the build passes
 * PIPEC_SOURCE_DIR, docs/diagnostics.md must be exactly what
 * explain_write_markdown produces (regenerate it with
 * `pipec explain --markdown > docs/diagnostics.md`). */
static void test_explain_markdown(void)
{
    FILE *f = tmpfile();
    CHECK_NOT_NULL(f);
    if (!f)
        return;
    explain_write_markdown(f);
    char *md = slurp(f);
    fclose(f);
    CHECK_NOT_NULL(md);
    if (!md)
        return;
    for (size_t i = 0; i < COUNT(spec_codes); i++) {
        char heading[32];
        snprintf(heading, sizeof heading, "\n## %s\n", spec_codes[i]);
        CHECK(strstr(md, heading) != NULL);
    }
#ifdef PIPEC_SOURCE_DIR
    FILE *doc = fopen(PIPEC_SOURCE_DIR "/docs/diagnostics.md", "rb");
    CHECK_NOT_NULL(doc);
    if (doc) {
        char *committed = slurp(doc);
        fclose(doc);
        int same = committed && strcmp(committed, md) == 0;
        if (!same)
            fprintf(stderr, "docs/diagnostics.md is out of date with compiler/explain/ (run `pipec explain --markdown`)\n");
        CHECK(same);
        free(committed);
    }
#endif
    free(md);
}

int main(void)
{
    test_suggest_closest();
    test_format_name_list();
    test_explain_table();
    test_code_table();
    test_explain_print();
    test_explain_markdown();
    return check_summary();
}
