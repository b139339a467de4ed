/* Checker unit tests: the model sema builds (invocation ids, argument
   bindings, DAG edges, effective options, imports) and its error recovery. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "checked.h"
#include "util/diag.h"
#include "check/program.h"
#include "util/strbuf.h"

static char tmpdir[] = "/tmp/pipec-checker-XXXXXX";

static size_t count_code(checked *c, diag_code code)
{
    size_t n = 0;
    for (size_t i = 0; i < c->d.diags.len; i++)
        n += ((diagnostic *)c->d.diags.items[i])->code == code;
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
    /* main_process_port not given: 0 here (free ports on one machine; the
       model gives 29500 across machines). */
    CHECK_EQ_U64(effective_opt(&a->options, DEC_ACCELERATE, ACC_MAIN_PROCESS_PORT).i, 0);
    CHECK_EQ_U64(effective_opt(&a->options, DEC_ACCELERATE, ACC_RDZV_TIMEOUT).u, 300000);
    CHECK_STREQ(effective_opt(&a->options, DEC_ACCELERATE, ACC_MIXED_PRECISION).s, "no");
    CHECK(!effective_opt(&a->options, DEC_RESOURCES, RES_DISK).set);
    done(&c);

    /* A pipeline's GPU default is what E0305 checks a multi-GPU step against. */
    check_text(&c, "@resources(gpu = 2)\npipeline p() { t() }\n"
                   "@run_with_accelerate(num_processes = 4, multi_gpu = true)\n"
                   "step t() { source = \"s.c\" }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0305), 1);
    done(&c);
    check_text(&c, "@resources(gpu = 4)\npipeline p() { t() }\n"
                   "@run_with_accelerate(num_processes = 4, multi_gpu = true)\n"
                   "step t() { source = \"s.c\" }\n");
    CHECK_EQ_U64(diag_error_count(&c.d), 0);
    done(&c);

    /* A map in force is merged key by key: the pipeline's keys in order,
       the step's value where it gives one, then the step's own keys. */
    check_text(&c, "@docker(environment = {\"OMP_PROC_BIND\": \"close\", \"A\": \"1\"})\n"
                   "pipeline p() { t()\n u() }\n"
                   "@docker(environment = {\"B\": \"3\", \"A\": \"2\"})\n"
                   "step t() { source = \"s.c\" }\n"
                   "step u() { source = \"s.c\" }\n");
    CHECK_EQ_U64(diag_error_count(&c.d), 0);
    size_t n = 0;
    const ast_map_entry **env = effective_map(&c.a, &inv_at(&c, 0, 0)->options, DEC_DOCKER, DOCKER_ENVIRONMENT, &n);
    CHECK_EQ_U64(n, 3);
    if (n == 3) {
        CHECK_STREQ(env[0]->key.text, "OMP_PROC_BIND");
        CHECK_STREQ(env[0]->value->u.s.text, "close");
        CHECK_STREQ(env[1]->key.text, "A");
        CHECK_STREQ(env[1]->value->u.s.text, "2");
        CHECK_STREQ(env[2]->key.text, "B");
    }
    env = effective_map(&c.a, &inv_at(&c, 0, 1)->options, DEC_DOCKER, DOCKER_ENVIRONMENT, &n);
    CHECK_EQ_U64(n, 2);
    if (n == 2)
        CHECK_STREQ(env[1]->value->u.s.text, "1");
    CHECK(effective_map(&c.a, &inv_at(&c, 0, 1)->options, DEC_KUBERNETES, K8S_NODE_SELECTOR, &n) == NULL && n == 0);
    CHECK(option_merges_by_key(DEC_KUBERNETES, K8S_NODE_SELECTOR) && !option_merges_by_key(DEC_DOCKER, DOCKER_REQUIREMENTS));
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
    CHECK_EQ_U64(count_code(&c, DIAG_E0112), 1);
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
    CHECK_EQ_U64(count_code(&c, DIAG_E0010), 1);
    CHECK_EQ_U64(c.d.diags.len, 1);
    done(&c);

    /* An unknown step poisons its targets: later uses are not reported again. */
    check_text(&c, "step use(x: dataset) { source = \"s.c\" }\n"
                   "pipeline p() { d = missing()\n use(x = d) }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0102), 1);
    CHECK_EQ_U64(c.d.diags.len, 1);
    done(&c);

    /* Every error of a file is reported in one run. */
    check_text(&c, "@resources(cpu = 0, memory = \"4G\", gpu = -1, disk = 5)\n"
                   "step s() { source = \"s.c\" entry = \"int\" cache = 1 }\n"
                   "pipeline p() { s(a = 1) }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0207), 2);
    CHECK_EQ_U64(count_code(&c, DIAG_E0205), 1);
    CHECK_EQ_U64(count_code(&c, DIAG_E0201), 3);
    CHECK_EQ_U64(count_code(&c, DIAG_E0103), 1);
    done(&c);
}

static bool has_diag_in(checked *c, diag_code code, const char *file_suffix)
{
    for (size_t i = 0; i < c->d.diags.len; i++) {
        diagnostic *dg = c->d.diags.items[i];
        const char *path = c->src.files[dg->sp.file]->path;
        size_t n = strlen(path), m = strlen(file_suffix);
        if (dg->code == code && n >= m && strcmp(path + n - m, file_suffix) == 0)
            return true;
    }
    return false;
}

static void test_declaration_order(void)
{
    /* Steps are declared in reading order, an import standing for its
       file's steps: the root's own copy is the second declaration. */
    write_text("lib/one.pipe", "step shared() { source = \"../s.c\" }\n");
    checked c;
    check_text(&c, "import \"lib/one.pipe\"\nstep shared() { source = \"s.c\" }\npipeline p() { shared() }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0101), 1);
    CHECK(has_diag_in(&c, DIAG_E0101, "/main.pipe"));
    step_info *st = program_find_step(&c.pg, "shared");
    CHECK(st && strcmp(c.src.files[st->file]->path + strlen(c.src.files[st->file]->path) - 8, "one.pipe") == 0);
    done(&c);

    /* A step declared before the import in the root keeps its name. */
    check_text(&c, "step shared() { source = \"s.c\" }\nimport \"lib/one.pipe\"\npipeline p() { shared() }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0101), 1);
    CHECK(has_diag_in(&c, DIAG_E0101, "/one.pipe"));
    done(&c);
}

static void test_no_cascade(void)
{
    checked c;
    /* E0107 on a pipeline parameter: later uses are not type-checked against
       either meaning. */
    check_text(&c, "step load(path: string) -> d: dataset { source = \"s.c\" }\n"
                   "step use(d: dataset) { source = \"s.c\" }\n"
                   "pipeline p(data: string = \"x\") { data = load(path = data)\n use(d = data) }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0107), 1);
    CHECK_EQ_U64(c.d.diags.len, 1);
    done(&c);

    /* Artifact-typed pipeline parameters and value-typed outputs: E0208
       once, uses silent. */
    check_text(&c, "step count(d: dataset) -> n: int { source = \"s.c\" }\n"
                   "step use(d: dataset, n: int) { source = \"s.c\" }\n"
                   "pipeline p(d: dataset) { n = count(d = d)\n use(d = d, n = n) }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0208), 2);
    CHECK_EQ_U64(c.d.diags.len, 2);
    done(&c);

    /* A typo that suggests a binding or a step marks it used: no W0404/W0405. */
    check_text(&c, "step load() -> d: dataset { source = \"s.c\" }\n"
                   "step use(d: dataset) { source = \"s.c\" }\n"
                   "pipeline p() { dataset = load()\n uses(d = dataset)\n use(d = datset) }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0102), 1);
    CHECK_EQ_U64(count_code(&c, DIAG_E0106), 1);
    CHECK_EQ_U64(c.d.diags.len, 2);
    done(&c);

    /* A name used before it is bound is reported once; its binding is used. */
    check_text(&c, "step load() -> d: dataset { source = \"s.c\" }\n"
                   "step use(d: dataset) { source = \"s.c\" }\n"
                   "pipeline p() { use(d = d)\n d = load() }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0106), 1);
    CHECK_EQ_U64(c.d.diags.len, 1);
    done(&c);

    /* A nested call is E0308 only: its step counts as invoked. */
    check_text(&c, "step load() -> d: dataset { source = \"s.c\" }\n"
                   "step use(d: dataset) { source = \"s.c\" }\n"
                   "pipeline p() { use(d = load()) }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0308), 1);
    CHECK_EQ_U64(c.d.diags.len, 1);
    done(&c);

    /* A step whose body lost its source to a syntax error: no E0113. */
    check_text(&c, "step s() { source = [\"s.c\", x] }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0010), 1);
    CHECK_EQ_U64(c.d.diags.len, 1);
    done(&c);

    /* Steps of an import that failed to load are not reported unknown. */
    check_text(&c, "import \"lib/none.pipe\"\npipeline p() { x = gone() }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0111), 1);
    CHECK_EQ_U64(c.d.diags.len, 1);
    done(&c);

    /* A malformed number is E0004 only; a `$VAR` is E0001 only. */
    check_text(&c, "@resources(memory = 16GB)\nstep s(n: string = 12x) { source = \"s.c\" }\n"
                   "pipeline p() { s(n = $HOME) }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0004), 2);
    CHECK_EQ_U64(count_code(&c, DIAG_E0001), 1);
    CHECK_EQ_U64(c.d.diags.len, 3);
    done(&c);

    /* `:` for `=` is one E0010 and the call is checked as written with `=`. */
    check_text(&c, "step s(n: int) { source = \"s.c\" }\npipeline p() { s(n: \"x\")\n t() }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0010), 1);
    CHECK_EQ_U64(count_code(&c, DIAG_E0201), 1);
    CHECK_EQ_U64(count_code(&c, DIAG_E0102), 1);
    done(&c);
}

static void test_uncertain_options(void)
{
    checked c;
    /* An unknown option or an invalid value: the rules that combine options
       do not guess (no E0305, E0309, E0307, E0401, W0401, W0403). */
    check_text(&c, "@run_with_accelerate(num_process = 4, multi_gpu = true, num_machines = 3)\n@resources(gpu = 4)\n"
                   "step a() { source = \"s.c\" }\n"
                   "@run_with_accelerate(num_processes = 4, multi_gpu = true)\n@resources(gpus = 4)\n"
                   "step b() { source = \"s.c\" }\n"
                   "@resources(gpu = \"2\")\n@skypilot(accelerators = \"H100:2\")\n"
                   "@docker(parent_image = \"ubuntu:22.04\")\n@cleanup_memory\n"
                   "step c() { source = \"s.c\" }\n"
                   "pipeline p() { a()\n b()\n c() }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0109), 2);
    CHECK_EQ_U64(count_code(&c, DIAG_E0201), 1);
    CHECK_EQ_U64(c.d.diags.len, 3);
    done(&c);

    /* The same rules still fire on known values. */
    check_text(&c, "@run_with_accelerate(num_processes = 4, multi_gpu = true)\n@resources(cpu = 2)\n"
                   "step b() { source = \"s.c\" }\npipeline p() { b() }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0305), 1);
    done(&c);
}

static void test_select_pipeline(void)
{
    checked c;
    check_text(&c, "step s() { source = \"s.c\" }\npipeline a() { s() }\npipeline b() { s() }\n");
    CHECK(program_select_pipeline(&c.pg, NULL) == NULL);
    CHECK_EQ_U64(count_code(&c, DIAG_E0114), 1);
    pipeline_info *b = program_select_pipeline(&c.pg, "b");
    CHECK(b != NULL && strcmp(b->name, "b") == 0);
    CHECK(program_select_pipeline(&c.pg, "c") == NULL);
    CHECK_EQ_U64(count_code(&c, DIAG_E0114), 2);
    done(&c);
}

static void test_output_parentheses(void)
{
    checked c;
    check_text(&c, "step one() -> x: t { source = \"s.c\" }\n"
                   "step two() -> (x: t) { source = \"s.c\" }\n"
                   "step three() -> ( x: t, y: t ) { source = \"s.c\" }\n");
    CHECK(!program_find_step(&c.pg, "one")->decl->outputs_parenthesized);
    CHECK(program_find_step(&c.pg, "two")->decl->outputs_parenthesized);
    CHECK(program_find_step(&c.pg, "three")->decl->outputs_parenthesized);
    done(&c);
}

/* Outputs nothing reads: a call without targets and `_` targets make
   invocations whose outputs bind no name; `_` is never a name. */
static void test_discarded_outputs(void)
{
    checked c;
    check_text(&c, "step load() -> d: dataset { source = \"s.c\" }\n"
                   "step split(d: dataset) -> (a: dataset, b: dataset) { source = \"s.c\" }\n"
                   "step use(d: dataset) { source = \"s.c\" }\n"
                   "pipeline p() {\n"
                   "    load()\n"
                   "    d = load()\n"
                   "    (_, b) = split(d = d)\n"
                   "    (_, _) = split(d = b)\n"
                   "    split(d = d)\n"
                   "    use(d = b)\n"
                   "}\n");
    CHECK_EQ_U64(c.d.diags.len, 0);
    invocation *first = inv_at(&c, 0, 0);
    CHECK(first != NULL && first->targets[0] == NULL);
    invocation *split = inv_at(&c, 0, 2);
    CHECK(split != NULL && split->targets[0] == NULL && strcmp(split->targets[1], "b") == 0);
    invocation *use = inv_at(&c, 0, 5);
    CHECK(use != NULL && use->args[0].kind == ARG_ARTIFACT && use->args[0].producer == split &&
          use->args[0].producer_output == 1);
    CHECK_EQ_U64(((pipeline_info *)c.pg.pipelines.items[0])->invocations.len, 6);
    done(&c);

    /* `_` used as an argument: E0106 once, not E0107 for the repeated `_`. */
    check_text(&c, "step split() -> (a: dataset, b: dataset) { source = \"s.c\" }\n"
                   "step use(d: dataset) { source = \"s.c\" }\n"
                   "pipeline p() { (_, _) = split()\n use(d = _)\n use(d = _) }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0106), 1);
    CHECK_EQ_U64(c.d.diags.len, 1);
    done(&c);

    /* Given targets still count: `_` is one of them. */
    check_text(&c, "step split() -> (a: dataset, b: dataset) { source = \"s.c\" }\n"
                   "pipeline p() { (x, _, _) = split()\n (y) = split() }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_E0203), 2);
    CHECK_EQ_U64(c.d.diags.len, 2);
    done(&c);

    /* A named binding nobody reads is still W0404. */
    check_text(&c, "step split() -> (a: dataset, b: dataset) { source = \"s.c\" }\n"
                   "pipeline p() { (x, _) = split() }\n");
    CHECK_EQ_U64(count_code(&c, DIAG_W0404), 1);
    CHECK_EQ_U64(c.d.diags.len, 1);
    done(&c);
}

/* W0407's scan: a definition is `name (...) {` outside comments and
   literals, found however the file spells it, once per file however many
   steps share it. */
static void test_entry_scan(void)
{
    write_text("entries.c", "/* not_comment(void) { } */\n"
                            "// not_line(void) { }\n"
                            "static const char *s = \"not_string(void) {\";\n"
                            "int declared_only(void);\n"
                            "int spaced /* c */ ( int (*cb)(int), const char *p ) /* c */\n{ return 0; }\n"
                            "int nested(int (*f)(int (*)(void))) { return f(0) + inner(1); }\n"
                            "int after_literal \"x\" (void) { }\n"
                            "int kr(a) int a; { return a; }\n"
                            "int unclosed(void\n");
    checked c;
    const char *defined[] = {"spaced", "nested"};
    const char *not_defined[] = {"not_comment", "not_line", "not_string", "declared_only", "inner",
                                 "after_literal", "kr", "unclosed"};
    for (size_t i = 0; i < sizeof defined / sizeof defined[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "step %s() { source = \"entries.c\" }\npipeline p() { %s() }\n", defined[i],
                 defined[i]);
        check_text(&c, text);
        CHECK_EQ_U64(count_code(&c, DIAG_W0407), 0);
        done(&c);
    }
    /* All of them in one pipeline: one scan of the shared file answers every step. */
    strbuf all = STRBUF_INIT;
    for (size_t i = 0; i < sizeof not_defined / sizeof not_defined[0]; i++) {
        char line[128];
        snprintf(line, sizeof line, "step %s() { source = \"entries.c\" }\n", not_defined[i]);
        sb_puts(&all, line);
    }
    sb_puts(&all, "pipeline p() {");
    for (size_t i = 0; i < sizeof not_defined / sizeof not_defined[0]; i++) {
        char line[128];
        snprintf(line, sizeof line, " %s()\n", not_defined[i]);
        sb_puts(&all, line);
    }
    sb_puts(&all, "}\n");
    check_text(&c, sb_cstr(&all));
    CHECK_EQ_U64(count_code(&c, DIAG_W0407), sizeof not_defined / sizeof not_defined[0]);
    done(&c);
    sb_free(&all);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    checked_dir = tmpdir;
    /* Defines the steps' entry functions: W0407 stays out of these checks. */
    write_text("s.c", "int a(void) { return 0; }\nint b(void) { return 0; }\nint c(void) { return 0; }\nint count(void) { return 0; }\nint from_a(void) { return 0; }\nint from_b(void) { return 0; }\nint load(void) { return 0; }\nint merge(void) { return 0; }\nint one(void) { return 0; }\nint s(void) { return 0; }\nint shared(void) { return 0; }\nint split(void) { return 0; }\nint t(void) { return 0; }\nint three(void) { return 0; }\nint train(void) { return 0; }\nint train_2(void) { return 0; }\nint two(void) { return 0; }\nint use(void) { return 0; }\n");
    test_invocation_ids_and_edges();
    test_effective_options();
    test_imports();
    test_recovery();
    test_declaration_order();
    test_no_cascade();
    test_uncertain_options();
    test_select_pipeline();
    test_output_parentheses();
    test_discarded_outputs();
    test_entry_scan();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return check_summary();
}
