/* The table of deploy targets (compiler/targets/targets.c) and what reads
 * it: --target parsing, targets_text, the container set, `pipec --help`,
 * the message about an unknown target, the rules the checker gets
 * (session/), the templates each names, and the generator loop (a target
 * selected writes files that `local` alone does not). Walks the table, so
 * that a new row is tested without a new line here. */
#include "cli/cli.h"
#include "gen/bundle.h"
#include "session/session.h"
#include "targets/targets.h"
#include "util/embedded.h"

#include "check.h"
#include "run_pipec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PIPEC_SOURCE_DIR
#error "PIPEC_SOURCE_DIR must name the repository root"
#endif

static unsigned every_row(void)
{
    unsigned all = 0;
    for (size_t i = 0; i < deploy_target_count; i++)
        all |= target_bit(i);
    return all;
}

static void test_rows(void)
{
    CHECK(deploy_target_count >= 2);
    CHECK_STREQ(deploy_targets[0]->name, "local");
    CHECK_EQ_U64(target_bit(0), TARGET_LOCAL);
    for (size_t i = 0; i < deploy_target_count; i++) {
        const deploy_target *t = deploy_targets[i];
        CHECK(t->name && t->name[0] && strcmp(t->name, "all") != 0);
        CHECK(strchr(t->name, ',') == NULL);
        CHECK(t->summary && t->summary[0] && !strchr(t->summary, '\n'));
        CHECK_NOT_NULL(t->generate);
        for (size_t k = 0; k < i; k++)
            CHECK(strcmp(deploy_targets[k]->name, t->name) != 0);
    }
}

static void test_parse(void)
{
    unsigned mask = 0;
    const char *bad = NULL;
    for (size_t i = 0; i < deploy_target_count; i++) {
        CHECK(parse_targets(deploy_targets[i]->name, &mask, &bad));
        CHECK_EQ_U64(mask, TARGET_LOCAL | target_bit(i));
    }
    CHECK(parse_targets("all", &mask, &bad));
    CHECK_EQ_U64(mask, TARGET_ALL);
    CHECK_EQ_U64(mask & every_row(), every_row());
    CHECK(parse_targets("", &mask, &bad));
    CHECK_EQ_U64(mask, TARGET_LOCAL);
    bad = NULL;
    CHECK(!parse_targets("local,nowhere", &mask, &bad));
    CHECK_STREQ(bad, "nowhere");
    CHECK(!parse_targets("local,,local", &mask, &bad));
    char *prefix = strdup(deploy_targets[deploy_target_count - 1]->name);
    prefix[strlen(prefix) - 1] = '\0'; /* a name cut short is no name */
    CHECK(!parse_targets(prefix, &mask, &bad));
    free(prefix);
}

/* Every set of targets with local in it: text -> set -> the same text. */
static void test_text_round_trip(void)
{
    arena a;
    arena_init(&a);
    CHECK_STREQ(targets_text(&a, TARGET_ALL), "all");
    CHECK_STREQ(targets_text(&a, every_row()), "all");
    CHECK_STREQ(targets_text(&a, 0), "local");
    for (unsigned set = 0; set <= every_row(); set++) {
        if (!(set & TARGET_LOCAL))
            continue;
        const char *text = targets_text(&a, set);
        unsigned back = 0;
        const char *bad = NULL;
        CHECK(parse_targets(text, &back, &bad));
        CHECK_EQ_U64(back & every_row(), set);
        CHECK_STREQ(targets_text(&a, back), text);
    }
    arena_free(&a);
}

static void test_containers(void)
{
    bool any = false;
    for (size_t i = 0; i < deploy_target_count; i++) {
        CHECK(targets_run_containers(target_bit(i)) == deploy_targets[i]->runs_containers);
        any = any || deploy_targets[i]->runs_containers;
    }
    CHECK(!targets_run_containers(TARGET_LOCAL));
    CHECK(targets_run_containers(TARGET_ALL) == any);
}

/* The checker gets the rules of every target that has some, in table
   order, under `check`, `build` and the language server alike. */
static void test_rules(void)
{
    for (int containers = 0; containers < 2; containers++) {
        check_options o;
        session_check_options(&o, containers);
        CHECK(o.container_targets == containers);
        CHECK_EQ_U64(o.nrules, deploy_target_count);
        for (size_t i = 0; i < deploy_target_count && i < o.nrules; i++)
            CHECK(o.rules[i] == &deploy_targets[i]->rules);
    }
}

/* Each template is named by one target, and each name a target gives is
   a template pipec carries. */
static void test_templates(void)
{
    for (size_t i = 0; i < deploy_target_count; i++) {
        CHECK_NOT_NULL(deploy_targets[i]->templates);
        for (const char *const *t = deploy_targets[i]->templates; t && *t; t++)
            if (!embedded_find(embedded_templates, *t)) {
                fprintf(stderr, "target %s names template %s, which is not in templates/\n", deploy_targets[i]->name,
                        *t);
                CHECK(false);
            }
    }
    for (const embedded_file *f = embedded_templates; f->path; f++) {
        size_t owners = 0;
        for (size_t i = 0; i < deploy_target_count; i++)
            for (const char *const *t = deploy_targets[i]->templates; t && *t; t++)
                owners += strcmp(*t, f->path) == 0;
        if (owners != 1)
            fprintf(stderr, "templates/%s is named by %zu targets\n", f->path, owners);
        CHECK_EQ_U64(owners, 1);
    }
}

/* The text lists every target, in table order, apart by sep. */
static void check_lists_targets(const char *text, const char *sep)
{
    strbuf list = STRBUF_INIT;
    targets_choices(&list, sep);
    CHECK(strstr(text, sb_cstr(&list)) != NULL);
    const char *at = text;
    for (size_t i = 0; i < deploy_target_count && at; i++) {
        at = strstr(at, deploy_targets[i]->name);
        CHECK_NOT_NULL(at);
    }
    sb_free(&list);
}

static void test_help_and_messages(void)
{
    int status;
    char *help = run_pipec(2, (char *[]){"pipec", "--help", NULL}, &status);
    CHECK_EQ_INT(status, 0);
    CHECK(strstr(help, "LIST is a comma list of local,") != NULL);
    check_lists_targets(help, ",");
    free(help);

    char *msg = run_pipec(5, (char *[]){"pipec", "build", "x.pipe", "--target", "local,nowhere", NULL}, &status);
    CHECK_EQ_INT(status, 2);
    CHECK(strstr(msg, "unknown target in `local,nowhere` (use local, ") != NULL);
    check_lists_targets(msg, ", ");
    free(msg);

    msg = run_pipec(4, (char *[]){"pipec", "build", "x.pipe", "--target", NULL}, &status);
    CHECK_EQ_INT(status, 2);
    CHECK(strstr(msg, "--target needs a list: local,") != NULL);
    check_lists_targets(msg, ",");
    free(msg);
}

/* The files `build -v` names, one "pipec: wrote PATH" line each. */
static char *build_files(const char *out, const char *targets)
{
    int status;
    char *argv[] = {"pipec", "build", PIPEC_SOURCE_DIR "/examples/mnist-like/mnist.pipe", "-v",
                    "-o", (char *)out, "--target", (char *)targets, NULL};
    char *text = run_pipec(8, argv, &status);
    CHECK_EQ_INT(status, 0);
    if (status != 0)
        fprintf(stderr, "pipec build --target %s: %s\n", targets, text);
    return text;
}

/* Each target selected runs its generator: files that local alone does not write. */
static void test_generators(void)
{
    char root[] = "/tmp/pipec-test-targets-XXXXXX";
    if (!mkdtemp(root)) {
        CHECK(false);
        return;
    }
    arena a;
    arena_init(&a);
    char *local = build_files(arena_printf(&a, "%s/local", root), "local");
    CHECK(strstr(local, "/bundle.yaml\n") != NULL);
    size_t local_files = 0;
    for (const char *p = local; (p = strstr(p, "pipec: wrote ")); p++)
        local_files++;
    CHECK(local_files > 0);
    for (size_t i = 1; i < deploy_target_count; i++) {
        const char *name = deploy_targets[i]->name;
        char *with = build_files(arena_printf(&a, "%s/%s", root, name), name);
        size_t files = 0;
        for (const char *p = with; (p = strstr(p, "pipec: wrote ")); p++)
            files++;
        if (files <= local_files)
            fprintf(stderr, "--target %s writes %zu files, local alone %zu\n", name, files, local_files);
        CHECK(files > local_files);
        free(with);
    }
    free(local);
    arena_free(&a);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
}

int main(void)
{
    test_rows();
    test_parse();
    test_text_round_trip();
    test_containers();
    test_rules();
    test_templates();
    test_help_and_messages();
    test_generators();
    return check_summary();
}
