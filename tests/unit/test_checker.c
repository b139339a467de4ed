/* Checker unit tests: the model sema builds (invocation ids, argument
   bindings, DAG edges, effective options, imports) and its error recovery. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "diag.h"
#include "program.h"

typedef struct checked {
    arena a;
    source_set src;
    diag_engine d;
    program pg;
} checked;

static char tmpdir[] = "/tmp/pipec-checker-XXXXXX";

static void write_text(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void check_text(checked *c, const char *text)
{
    write_text("main.pipe", text);
    arena_init(&c->a);
    source_set_init(&c->src);
    diag_init(&c->d, &c->a, &c->src);
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/main.pipe", tmpdir);
    bool ok = program_load(&c->pg, &c->a, &c->d, &c->src, path, NULL, err, sizeof err);
    CHECK(ok);
}

static void done(checked *c)
{
    program_free(&c->pg);
    source_set_free(&c->src);
    arena_free(&c->a);
}

static size_t count_code(checked *c, const char *code)
{
    size_t n = 0;
    for (size_t i = 0; i < c->d.diags.len; i++)
        n += strcmp(((diagnostic *)c->d.diags.items[i])->code, code) == 0;
    return n;
}

static invocation *inv_at(checked *c, size_t pl, size_t i)
{
    pipeline_info *p = c->pg.pipelines.items[pl];
    return i < p->invocations.len ? p->invocations.items[i] : NULL;
}

static void test_invocation_ids_and_edges(void)
{
    checked c;
    check_text(&c, "step load() -> d: dataset { source = \"s.c\" }\n"
                   "step train(data: dataset, lr: float = 0.1) -> m: model { source = \"s.c\" }\n"
                   "step train_2() { source = \"s.c\" }\n"
                   "step merge(a: model, b: model, c: model) { source = \"s.c\" }\n"
                   "pipeline p(rate: float = 0.5) {\n"
                   "    d = load()\n"
                   "    m1 = train(data = d)\n"
                   "    m2 = train(d, rate)\n"
                   "    train_2()\n"
                   "    m3 = train(data = d, lr = 3)\n"
                   "    merge(a = m1, b = m2, c = m3)\n"
                   "}\n");
    CHECK_EQ_U64(diag_error_count(&c.d), 0);
    CHECK_EQ_U64(c.pg.pipelines.len, 1);
    const char *ids[] = {"load", "train", "train_3", "train_2", "train_4", "merge"};
    for (size_t i = 0; i < 6; i++) {
        invocation *inv = inv_at(&c, 0, i);
        CHECK(inv != NULL);
        if (inv)
            CHECK_STREQ(inv->id, ids[i]);
    }
    invocation *t1 = inv_at(&c, 0, 1), *t2 = inv_at(&c, 0, 2), *t3 = inv_at(&c, 0, 4), *m = inv_at(&c, 0, 5);
    /* Defaults, pipeline parameters (positional), literals. */
    CHECK_EQ_INT(t1->args[1].kind, ARG_DEFAULT);
    CHECK(t1->args[1].value->u.f == 0.1);
    CHECK_EQ_INT(t2->args[0].kind, ARG_ARTIFACT);
    CHECK_EQ_INT(t2->args[1].kind, ARG_PIPELINE_PARAM);
    CHECK_STREQ(t2->args[1].ref, "rate");
    CHECK_EQ_INT(t3->args[1].kind, ARG_LITERAL); /* an int literal where a float is expected */
    CHECK_EQ_U64(m->deps.len, 3);
    CHECK(m->deps.items[0] == t1 && m->deps.items[1] == t2 && m->deps.items[2] == t3);
    CHECK_EQ_U64(t1->deps.len, 1);
    CHECK_STREQ(t1->targets[0], "m1");
    done(&c);
}

static void test_effective_options(void)
{
    checked c;
    check_text(&c, "@resources(cpu = 2, memory = \"4GB\", gpu = 0)\n"
                   "@retry(max = 3)\n"
                   "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")\n"
                   "pipeline p() { a() \n b() }\n"
                   "@resources(gpu = 1, shm = \"1GiB\")\n"
                   "step a() { source = \"s.c\" }\n"
                   "@retry(delay = \"5s\")\n"
                   "step b() { source = \"s.c\" }\n");
    CHECK_EQ_U64(diag_error_count(&c.d), 0);
    invocation *a = inv_at(&c, 0, 0), *b = inv_at(&c, 0, 1);
    /* Merged option by option: the step's own wins, the pipeline fills in. */
    CHECK(effective_opt(&a->options, DEC_RESOURCES, RES_CPU).num == 2);
    CHECK_EQ_U64(effective_opt(&a->options, DEC_RESOURCES, RES_GPU).i, 1);
    CHECK_EQ_U64(effective_opt(&a->options, DEC_RESOURCES, RES_MEMORY).u, 4000000000ull);
    CHECK_EQ_U64(effective_opt(&a->options, DEC_RESOURCES, RES_SHM).u, 1073741824ull);
    CHECK_EQ_U64(effective_opt(&b->options, DEC_RESOURCES, RES_GPU).i, 0);
    CHECK_EQ_U64(effective_opt(&b->options, DEC_RETRY, RETRY_MAX).i, 3);
    CHECK_EQ_U64(effective_opt(&b->options, DEC_RETRY, RETRY_DELAY).u, 5000);
    CHECK_EQ_U64(effective_opt(&a->options, DEC_RETRY, RETRY_DELAY).u, 0);
    CHECK_STREQ(effective_opt(&b->options, DEC_DOCKER, DOCKER_PARENT_IMAGE).s,
                "nvidia/cuda:12.4.1-runtime-ubuntu22.04");
    /* Defaults from the table when nobody sets an option. */
    CHECK_EQ_U64(effective_opt(&a->options, DEC_ACCELERATE, ACC_MAIN_PROCESS_PORT).i, 29500);
    CHECK_EQ_U64(effective_opt(&a->options, DEC_ACCELERATE, ACC_RDZV_TIMEOUT).u, 300000);
    CHECK_STREQ(effective_opt(&a->options, DEC_ACCELERATE, ACC_MIXED_PRECISION).s, "no");
    CHECK(!effective_opt(&a->options, DEC_RESOURCES, RES_DISK).set);
    done(&c);

    /* A pipeline's GPU default is what E0305 checks a multi-GPU step against. */
    check_text(&c, "@resources(gpu = 2)\npipeline p() { t() }\n"
                   "@run_with_accelerate(num_processes = 4, multi_gpu = true)\n"
                   "step t() { source = \"s.c\" }\n");
    CHECK_EQ_U64(count_code(&c, "E0305"), 1);
    done(&c);
    check_text(&c, "@resources(gpu = 4)\npipeline p() { t() }\n"
                   "@run_with_accelerate(num_processes = 4, multi_gpu = true)\n"
                   "step t() { source = \"s.c\" }\n");
    CHECK_EQ_U64(diag_error_count(&c.d), 0);
    done(&c);
}

static void test_imports(void)
{
    mkdir(strcat(strcpy((char[512]){0}, tmpdir), "/lib"), 0777);
    write_text("lib/a.pipe", "import \"b.pipe\"\nstep from_a() -> x: t { source = \"../s.c\" }\n"
                             "pipeline ignored() { nothing_here() }\n");
    write_text("lib/b.pipe", "step from_b(x: t) { source = \"../s.c\" }\n");
    checked c;
    check_text(&c, "import \"lib/a.pipe\"\npipeline p() { x = from_a()\n from_b(x = x) }\n");
    CHECK_EQ_U64(diag_error_count(&c.d), 0);
    CHECK_EQ_U64(c.pg.files.len, 3);
    CHECK(program_find_step(&c.pg, "from_b") != NULL);
    CHECK_EQ_U64(c.pg.pipelines.len, 1); /* pipelines of imported files are ignored */
    done(&c);

    write_text("lib/b.pipe", "import \"../main.pipe\"\nstep from_b(x: t) { source = \"../s.c\" }\n");
    check_text(&c, "import \"lib/a.pipe\"\npipeline p() { x = from_a()\n from_b(x = x) }\n");
    CHECK_EQ_U64(count_code(&c, "E0112"), 1);
    CHECK_EQ_U64(diag_error_count(&c.d), 1);
    done(&c);
}

static void test_recovery(void)
{
    checked c;
    /* A syntax error in one step loses that step; no cascade of E0102/E0106/W0405. */
    check_text(&c, "step a() -> d: dataset { source = \"s.c\" }\n"
                   "step b(x: dataset { source = \"s.c\" }\n"
                   "pipeline p() { d = a()\n b(x = d)\n c(y = zz) }\n");
    CHECK_EQ_U64(count_code(&c, "E0010"), 1);
    CHECK_EQ_U64(c.d.diags.len, 1);
    done(&c);

    /* An unknown step poisons its targets: later uses are not reported again. */
    check_text(&c, "step use(x: dataset) { source = \"s.c\" }\n"
                   "pipeline p() { d = missing()\n use(x = d) }\n");
    CHECK_EQ_U64(count_code(&c, "E0102"), 1);
    CHECK_EQ_U64(c.d.diags.len, 1);
    done(&c);

    /* Every error of a file is reported in one run. */
    check_text(&c, "@resources(cpu = 0, memory = \"4G\", gpu = -1, disk = 5)\n"
                   "step s() { source = \"s.c\" entry = \"int\" cache = 1 }\n"
                   "pipeline p() { s(a = 1) }\n");
    CHECK_EQ_U64(count_code(&c, "E0207"), 2);
    CHECK_EQ_U64(count_code(&c, "E0205"), 1);
    CHECK_EQ_U64(count_code(&c, "E0201"), 3);
    CHECK_EQ_U64(count_code(&c, "E0103"), 1);
    done(&c);
}

static void test_select_pipeline(void)
{
    checked c;
    check_text(&c, "step s() { source = \"s.c\" }\npipeline a() { s() }\npipeline b() { s() }\n");
    CHECK(program_select_pipeline(&c.pg, NULL) == NULL);
    CHECK_EQ_U64(count_code(&c, "E0114"), 1);
    pipeline_info *b = program_select_pipeline(&c.pg, "b");
    CHECK(b != NULL && strcmp(b->name, "b") == 0);
    CHECK(program_select_pipeline(&c.pg, "c") == NULL);
    CHECK_EQ_U64(count_code(&c, "E0114"), 2);
    done(&c);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    write_text("s.c", "int s;\n");
    test_invocation_ids_and_edges();
    test_effective_options();
    test_imports();
    test_recovery();
    test_select_pipeline();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return check_summary();
}
