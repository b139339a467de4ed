/* `pipec fmt` (compiler/session/fmt.c, docs/fmt.md): canonical output for a set of
   inputs, idempotence, and that nothing is lost: every comment keeps its
   text and the tree of the output equals the tree of the input.

   Also runs every .pipe file under examples/ and tests/ (files with syntax
   errors are skipped) and the data-driven cases tests/fmt/NAME.pipe with
   NAME.expected. UPDATE_GOLDEN=1 rewrites the .expected files.

   The repository root is argv[1], else $PIPEC_SOURCE_DIR, else found from
   __FILE__. */
#include "session/fmt.h"

#include "check.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util/arena.h"
#include "util/diag.h"
#include "front/parse.h"
#include "util/strbuf.h"

/* ---- formatting a string ---- */

typedef struct parsed {
    source_set sources;
    arena arena;
    diag_engine diag;
    ast_file *file;
} parsed;

static void parse_text(parsed *ps, const char *text, size_t len)
{
    source_set_init(&ps->sources);
    arena_init(&ps->arena);
    diag_init(&ps->diag, &ps->arena, &ps->sources);
    int idx = source_add(&ps->sources, "test.pipe", text, len);
    ps->file = parse_file(&ps->arena, &ps->diag, &ps->sources, (uint32_t)idx);
}

static void parsed_free(parsed *ps)
{
    arena_free(&ps->arena);
    source_set_free(&ps->sources);
}

/* The canonical text (malloc'd) or NULL when fmt refuses the input. */
static char *fmt_len(const char *text, size_t len)
{
    parsed ps;
    parse_text(&ps, text, len);
    strbuf out = STRBUF_INIT;
    bool ok = format_file(ps.file, ps.sources.files[0], &out);
    parsed_free(&ps);
    if (!ok) {
        CHECK(out.len == 0);
        sb_free(&out);
        return NULL;
    }
    char *s = xstrdup(sb_cstr(&out));
    sb_free(&out);
    return s;
}

static char *fmt(const char *text) { return fmt_len(text, strlen(text)); }

/* ---- what must survive: comments and the tree ---- */

static void dump_expr(strbuf *sb, const source_file *src, const ast_expr *e);

static void dump_args(strbuf *sb, const source_file *src, const ptr_vec *args)
{
    sb_putc(sb, '(');
    for (size_t i = 0; i < args->len; i++) {
        const ast_arg *a = args->items[i];
        if (a->name.text)
            sb_printf(sb, "%s=", a->name.text);
        dump_expr(sb, src, a->value);
        sb_putc(sb, ',');
    }
    sb_putc(sb, ')');
}

static void dump_call(strbuf *sb, const source_file *src, const ast_call *c)
{
    sb_puts(sb, c->callee.text);
    for (size_t g = 0; g < c->groups.len; g++)
        dump_args(sb, src, c->groups.items[g]);
}

/* Recursive, so the callers keep the nesting shallow. */
static void dump_expr(strbuf *sb, const source_file *src, const ast_expr *e)
{
    switch (e->kind) {
    case EXPR_INT:
    case EXPR_FLOAT:
        sb_printf(sb, "N%.*s", (int)(e->sp.end - e->sp.start), src->text + e->sp.start);
        break;
    case EXPR_STRING:
        sb_printf(sb, "S%zu:", e->u.s.len);
        sb_putn(sb, e->u.s.text, e->u.s.len);
        break;
    case EXPR_BOOL:
        sb_puts(sb, e->u.b ? "T" : "F");
        break;
    case EXPR_IDENT:
        sb_printf(sb, "I%s", e->u.ident.text);
        break;
    case EXPR_LIST:
        sb_putc(sb, '[');
        for (size_t i = 0; i < e->u.items.len; i++) {
            dump_expr(sb, src, e->u.items.items[i]);
            sb_putc(sb, ',');
        }
        sb_putc(sb, ']');
        break;
    case EXPR_MAP:
        sb_putc(sb, '{');
        for (size_t i = 0; i < e->u.items.len; i++) {
            const ast_map_entry *m = e->u.items.items[i];
            sb_printf(sb, "K%s:", m->key.text);
            dump_expr(sb, src, m->value);
            sb_putc(sb, ',');
        }
        sb_putc(sb, '}');
        break;
    case EXPR_CALL:
        dump_call(sb, src, e->u.call);
        break;
    }
}

static void dump_params(strbuf *sb, const source_file *src, const ptr_vec *params)
{
    sb_putc(sb, '(');
    for (size_t i = 0; i < params->len; i++) {
        const ast_param *pa = params->items[i];
        sb_printf(sb, "%s:%s", pa->name.text, pa->type.text);
        if (pa->default_value) {
            sb_putc(sb, '=');
            dump_expr(sb, src, pa->default_value);
        }
        sb_putc(sb, ',');
    }
    sb_putc(sb, ')');
}

static void dump_decorators(strbuf *sb, const source_file *src, const ptr_vec *decs)
{
    for (size_t i = 0; i < decs->len; i++) {
        const ast_decorator *d = decs->items[i];
        sb_printf(sb, "@%s", d->name.text);
        if (d->has_parens)
            dump_args(sb, src, &d->args);
        sb_putc(sb, '\n');
    }
}

/* The tree as text, spans left out; imports first, as fmt orders them. */
static void dump_file(strbuf *sb, const source_file *src, const ast_file *f)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < f->items.len; i++) {
            const ast_item *it = f->items.items[i];
            if ((it->kind == ITEM_IMPORT) != (pass == 0))
                continue;
            if (it->kind == ITEM_IMPORT) {
                sb_printf(sb, "import %s\n", it->u.import->path.text);
            } else if (it->kind == ITEM_STEP) {
                const ast_step *s = it->u.step;
                dump_decorators(sb, src, &s->decorators);
                sb_printf(sb, "step %s", s->name.text);
                dump_params(sb, src, &s->params);
                for (size_t k = 0; k < s->outputs.len; k++) {
                    const ast_output *o = s->outputs.items[k];
                    sb_printf(sb, "->%s:%s", o->name.text, o->type.text);
                }
                sb_putc(sb, '\n');
                for (size_t k = 0; k < s->fields.len; k++) {
                    const ast_field *fd = s->fields.items[k];
                    sb_printf(sb, "  %s=", fd->name.text);
                    dump_expr(sb, src, fd->value);
                    sb_putc(sb, '\n');
                }
            } else {
                const ast_pipeline *pl = it->u.pipeline;
                dump_decorators(sb, src, &pl->decorators);
                sb_printf(sb, "pipeline %s", pl->name.text);
                dump_params(sb, src, &pl->params);
                sb_putc(sb, '\n');
                for (size_t k = 0; k < pl->statements.len; k++) {
                    const ast_statement *st = pl->statements.items[k];
                    sb_puts(sb, "  ");
                    for (size_t t = 0; t < st->targets.len; t++)
                        sb_printf(sb, "%s,", ((const ast_name *)st->targets.items[t])->text);
                    sb_putc(sb, '=');
                    dump_call(sb, src, st->call);
                    sb_putc(sb, '\n');
                }
            }
        }
    }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Comment texts, trailing whitespace trimmed, one per line, sorted: moving
   imports to the top moves their comments along. */
static void dump_comments(strbuf *sb, const source_file *src, const ast_file *f)
{
    size_t n = f->comments.len;
    char **texts = xmalloc((n ? n : 1) * sizeof *texts);
    for (size_t i = 0; i < n; i++) {
        const ast_comment *c = f->comments.items[i];
        uint32_t end = c->sp.end;
        while (end > c->sp.start && strchr(" \t\r\v\f", src->text[end - 1]) && src->text[end - 1] != '\0')
            end--;
        texts[i] = xmalloc(end - c->sp.start + 1);
        memcpy(texts[i], src->text + c->sp.start, end - c->sp.start);
        texts[i][end - c->sp.start] = '\0';
    }
    if (n > 1)
        qsort(texts, n, sizeof *texts, cmp_str);
    for (size_t i = 0; i < n; i++) {
        sb_puts(sb, texts[i]);
        sb_putc(sb, '\n');
        free(texts[i]);
    }
    free(texts);
}

static void dump_text(strbuf *tree, strbuf *comments, const char *text, size_t len)
{
    parsed ps;
    parse_text(&ps, text, len);
    dump_file(tree, ps.sources.files[0], ps.file);
    dump_comments(comments, ps.sources.files[0], ps.file);
    parsed_free(&ps);
}

static bool same_bytes(const strbuf *a, const strbuf *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static bool has_long_nesting(const char *text, size_t len)
{
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '[' || text[i] == '{' || text[i] == '(')
            depth++;
        else if (text[i] == ']' || text[i] == '}' || text[i] == ')')
            depth--;
        if (depth > 200)
            return true;
    }
    return false;
}

/* For one input that fmt accepts: idempotent, same tree, same comments, no
   trailing spaces, a newline at the end, no line with a tab. */
static void check_properties(const char *what, const char *text, size_t len)
{
    char *once = fmt_len(text, len);
    if (!once) {
        fprintf(stderr, "%s: fmt refused the file\n", what);
        CHECK(once != NULL);
        return;
    }
    char *twice = fmt(once);
    int idem = twice && strcmp(once, twice) == 0;
    if (!idem)
        fprintf(stderr, "%s: not idempotent\n--- once ---\n%s--- twice ---\n%s", what, once,
                twice ? twice : "(refused)\n");
    CHECK(idem);

    size_t n = strlen(once);
    CHECK(n == 0 || once[n - 1] == '\n');
    int clean_lines = 1;
    for (size_t i = 0; i < n; i++)
        if (once[i] == '\n' && i > 0 && once[i - 1] == ' ')
            clean_lines = 0;
    if (!clean_lines)
        fprintf(stderr, "%s: trailing space in the output\n", what);
    CHECK(clean_lines);

    if (!has_long_nesting(text, len)) {
        strbuf t1 = STRBUF_INIT, c1 = STRBUF_INIT, t2 = STRBUF_INIT, c2 = STRBUF_INIT;
        dump_text(&t1, &c1, text, len);
        dump_text(&t2, &c2, once, n);
        if (!same_bytes(&t1, &t2))
            fprintf(stderr, "%s: the tree changed\n--- before ---\n%s--- after ---\n%s", what, sb_cstr(&t1),
                    sb_cstr(&t2));
        CHECK(same_bytes(&t1, &t2));
        if (!same_bytes(&c1, &c2))
            fprintf(stderr, "%s: comments changed\n--- before ---\n%s--- after ---\n%s", what, sb_cstr(&c1),
                    sb_cstr(&c2));
        CHECK(same_bytes(&c1, &c2));
        sb_free(&t1);
        sb_free(&c1);
        sb_free(&t2);
        sb_free(&c2);
    }
    free(once);
    free(twice);
}

/* ---- canonical output ---- */

typedef struct fmt_case {
    const char *name;
    const char *in;
    const char *out;
} fmt_case;

static const fmt_case cases[] = {
    {"empty file", "", ""},
    {"whitespace only", "  \n\n\t\n", ""},
    {"comments only", "# one\n\n\n# two   \n#three", "# one\n\n# two\n#three\n"},
    {"messy spacing",
     "step   a(x:int,y : float=0.5)->out:model{source=\"a.c\"   entry =\"main\"}",
     "step a(x: int, y: float = 0.5) -> out: model {\n"
     "    source = \"a.c\"\n"
     "    entry = \"main\"\n"
     "}\n"},
    {"several outputs are parenthesized, one is not",
     "step a() -> (x: t, y: u) { source = \"a.c\" }\nstep b() -> (x: t) { source = \"b.c\" }\n",
     "step a() -> (x: t, y: u) {\n    source = \"a.c\"\n}\n\n"
     "step b() -> x: t {\n    source = \"b.c\"\n}\n"},
    {"empty bodies", "step a(){}\npipeline p(){\n\n}\n", "step a() {}\n\npipeline p() {}\n"},
    {"decorators one per line",
     "@resources(cpu=2,memory=\"4GB\") @cleanup_memory @timeout(\"2h\")@retry()\n"
     "step a() { source = \"a.c\" }",
     "@resources(cpu = 2, memory = \"4GB\")\n"
     "@cleanup_memory\n"
     "@timeout(\"2h\")\n"
     "@retry()\n"
     "step a() {\n    source = \"a.c\"\n}\n"},
    {"pipeline statements",
     "pipeline p(n: int = 5) { ds = load(path = \"x\")\n(a,b)=split(data=ds,ratio=0.8)   evaluate(a, b)\n"
     "(c) = f()\n}",
     "pipeline p(n: int = 5) {\n"
     "    ds = load(path = \"x\")\n"
     "    (a, b) = split(data = ds, ratio = 0.8)\n"
     "    evaluate(a, b)\n"
     "    c = f()\n"
     "}\n"},
    {"chained and nested calls kept",
     "pipeline p() {\n  m = run_with_accelerate(train)(data = d)\n  g(x = h(y = 1))\n  k()()(z = 1)\n}\n",
     "pipeline p() {\n"
     "    m = run_with_accelerate(train)(data = d)\n"
     "    g(x = h(y = 1))\n"
     "    k()()(z = 1)\n"
     "}\n"},
    {"values",
     "step a(f: float = 1e-3, g: float = 2.5E+4, h: int = -7) {\n"
     "  source = [ \"a.c\" , \"b.cu\", ]\n  environment = { \"A\" : \"1\",\"B\":\"2\" }\n"
     "  cache = false\n  x = []\n  y = {}\n  z = [[1, 2], {\"k\": [true]}]\n}\n",
     "step a(f: float = 1e-3, g: float = 2.5E+4, h: int = -7) {\n"
     "    source = [\"a.c\", \"b.cu\"]\n"
     "    environment = {\"A\": \"1\", \"B\": \"2\"}\n"
     "    cache = false\n"
     "    x = []\n"
     "    y = {}\n"
     "    z = [[1, 2], {\"k\": [true]}]\n"
     "}\n"},
    {"strings re-escaped",
     "import \"a\\\\b.pipe\"\nstep a() { description = \"say \\\"hi\\\"\\n\\ttab é\" }\n",
     "import \"a\\\\b.pipe\"\n\n"
     "step a() {\n    description = \"say \\\"hi\\\"\\n\\ttab é\"\n}\n"},
    {"imports grouped at the top",
     "import \"a.pipe\"\n\n\nimport \"b.pipe\"\nstep s() { source = \"s.c\" }\n"
     "# about c\nimport \"c.pipe\" # trailing c\nstep t() { source = \"t.c\" }\n",
     "import \"a.pipe\"\n"
     "import \"b.pipe\"\n"
     "# about c\n"
     "import \"c.pipe\" # trailing c\n\n"
     "step s() {\n    source = \"s.c\"\n}\n\n"
     "step t() {\n    source = \"t.c\"\n}\n"},
    {"file header stays on top when imports move",
     "# header line 1\n# header line 2\n\n# about s\nstep s() { source = \"s.c\" }\nimport \"x.pipe\"\n",
     "# header line 1\n# header line 2\n\n"
     "import \"x.pipe\"\n\n"
     "# about s\n"
     "step s() {\n    source = \"s.c\"\n}\n"},
    {"one blank line between items",
     "step a() { source = \"a.c\" }\n\n\n\nstep b() { source = \"b.c\" }\nstep c() { source = \"c.c\" }\n",
     "step a() {\n    source = \"a.c\"\n}\n\n"
     "step b() {\n    source = \"b.c\"\n}\n\n"
     "step c() {\n    source = \"c.c\"\n}\n"},
    {"blank lines in bodies: at most one, none at the edges",
     "step a() {\n\n\n  source = \"a.c\"\n\n\n\n  entry = \"m\"\n  cache = true\n\n}\n",
     "step a() {\n    source = \"a.c\"\n\n    entry = \"m\"\n    cache = true\n}\n"},
    {"comments in every position",
     "# file header\n"
     "\n"
     "import \"lib.pipe\"   # trailing on import\n"
     "\n"
     "# before the step\n"
     "@resources(cpu = 2) # trailing on a decorator\n"
     "# between decorators\n"
     "@retry(max = 1)\n"
     "step train(data: dataset) -> model: model { # after the brace\n"
     "    # before a field\n"
     "    source = \"t.c\"   # trailing on a field\n"
     "\n"
     "    # after a blank line\n"
     "    entry = \"train_main\"\n"
     "    # before the closing brace\n"
     "} # after the closing brace\n"
     "\n"
     "pipeline p() {\n"
     "    # first statement\n"
     "    ds = load(path = \"x\") # trailing on a statement\n"
     "    m = train(data = ds,   # inside arguments\n"
     "              epochs = 3)\n"
     "}\n"
     "# footer\n",
     "# file header\n"
     "\n"
     "import \"lib.pipe\" # trailing on import\n"
     "\n"
     "# before the step\n"
     "@resources(cpu = 2) # trailing on a decorator\n"
     "# between decorators\n"
     "@retry(max = 1)\n"
     "step train(data: dataset) -> model: model { # after the brace\n"
     "    # before a field\n"
     "    source = \"t.c\" # trailing on a field\n"
     "\n"
     "    # after a blank line\n"
     "    entry = \"train_main\"\n"
     "    # before the closing brace\n"
     "} # after the closing brace\n"
     "\n"
     "pipeline p() {\n"
     "    # first statement\n"
     "    ds = load(path = \"x\") # trailing on a statement\n"
     "    m = train(\n"
     "        data = ds, # inside arguments\n"
     "        epochs = 3,\n"
     "    )\n"
     "}\n"
     "# footer\n"},
    {"comments inside lists, maps and parameters",
     "step a(x: int, # first param\n  y: int) {\n"
     "  source = [\"a.c\", # the main file\n    # own line in a list\n    \"b.c\"]\n"
     "  environment = {\n    \"A\": \"1\"\n    # before the brace of a map\n  }\n"
     "  tags = [ # after the bracket\n  ]\n}\n",
     "step a(\n"
     "    x: int, # first param\n"
     "    y: int,\n"
     ") {\n"
     "    source = [\n"
     "        \"a.c\", # the main file\n"
     "        # own line in a list\n"
     "        \"b.c\",\n"
     "    ]\n"
     "    environment = {\n"
     "        \"A\": \"1\",\n"
     "        # before the brace of a map\n"
     "    }\n"
     "    tags = [ # after the bracket\n"
     "    ]\n"
     "}\n"},
    {"comments inside targets, outputs and decorator arguments",
     "@docker(parent_image = \"x\", # the image\n)\n"
     "step a() -> (b: t, # first output\n c: u) { source = \"a.c\" }\n"
     "pipeline p() {\n  (x, # first target\n   y) = a()\n}\n",
     "@docker(\n"
     "    parent_image = \"x\", # the image\n"
     ")\n"
     "step a() -> (\n"
     "    b: t, # first output\n"
     "    c: u,\n"
     ") {\n"
     "    source = \"a.c\"\n"
     "}\n\n"
     "pipeline p() {\n"
     "    (\n"
     "        x, # first target\n"
     "        y,\n"
     "    ) = a()\n"
     "}\n"},
    {"comments in odd places move to a line end",
     "step # after the keyword\n a() {\n source = # after the equals sign\n \"a.c\"\n}\n",
     "step a() { # after the keyword\n"
     "    source = \"a.c\" # after the equals sign\n"
     "}\n"},
    {"comment text kept byte for byte, trailing space trimmed",
     "step a() {\n\tsource = \"a.c\"\t#  tab\there  \t\n#no space\n}\n",
     "step a() {\n    source = \"a.c\" #  tab\there\n    #no space\n}\n"},
    {"CRLF line endings",
     "# c\r\nstep a() {\r\n  source = \"a.c\" # t\r\n}\r\n",
     "# c\nstep a() {\n    source = \"a.c\" # t\n}\n"},
    {"long list is broken, one element per line",
     "step a() {\n  source = [\"src/aaaaaaaaaaaaaaaa.c\", \"src/bbbbbbbbbbbbbbbbbbbb.c\", \"src/cccccccccccccccccc.c\", "
     "\"src/d.c\"]\n}\n",
     "step a() {\n"
     "    source = [\n"
     "        \"src/aaaaaaaaaaaaaaaa.c\",\n"
     "        \"src/bbbbbbbbbbbbbbbbbbbb.c\",\n"
     "        \"src/cccccccccccccccccc.c\",\n"
     "        \"src/d.c\",\n"
     "    ]\n"
     "}\n"},
    {"long decorator: outer list breaks, inner ones stay flat",
     "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\",\n"
     "        apt_packages = [\"libgomp1\"],\n"
     "        environment = {\"NCCL_DEBUG\": \"WARN\"})\n"
     "pipeline training(epochs: int = 5, lr: float = 0.05, data_path: string = \"data/train.csv\") {\n"
     "    evaluate(model = model)\n}\n",
     "@docker(\n"
     "    parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\",\n"
     "    apt_packages = [\"libgomp1\"],\n"
     "    environment = {\"NCCL_DEBUG\": \"WARN\"},\n"
     ")\n"
     "pipeline training(epochs: int = 5, lr: float = 0.05, data_path: string = \"data/train.csv\") {\n"
     "    evaluate(model = model)\n"
     "}\n"},
    {"long parameter list and outputs",
     "step a(aaaaaaaaaaaa: int, bbbbbbbbbbbbbbbb: float = 0.5, cccccccccccccccc: string = \"x\") -> "
     "(dddddddddd: t, eeeeeeeeeeee: u) { source = \"a.c\" }\n",
     "step a(aaaaaaaaaaaa: int, bbbbbbbbbbbbbbbb: float = 0.5, cccccccccccccccc: string = \"x\") -> (\n"
     "    dddddddddd: t,\n"
     "    eeeeeeeeeeee: u,\n"
     ") {\n"
     "    source = \"a.c\"\n"
     "}\n"},
    {"long statement: targets stay, arguments break",
     "pipeline p() {\n"
     "  (train_set, test_set) = split(data = the_dataset_with_a_longer_name, ratio = 0.8, seed = 1234567)\n"
     "}\n",
     "pipeline p() {\n"
     "    (train_set, test_set) = split(\n"
     "        data = the_dataset_with_a_longer_name,\n"
     "        ratio = 0.8,\n"
     "        seed = 1234567,\n"
     "    )\n"
     "}\n"},
    {"nested break: the inner list breaks only when its own line is too long",
     "step a() {\n  environment = {\"AAAAAAAAAAAAAAAAAAAAAAAA\": \"1111111111111111111111111111\", "
     "\"B\": [\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\", "
     "\"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\"]}\n}\n",
     "step a() {\n"
     "    environment = {\n"
     "        \"AAAAAAAAAAAAAAAAAAAAAAAA\": \"1111111111111111111111111111\",\n"
     "        \"B\": [\n"
     "            \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\",\n"
     "            \"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\",\n"
     "        ],\n"
     "    }\n"
     "}\n"},
    {"broken chained call keeps `)(` on one line",
     "pipeline p() {\n  m = run_with_accelerate(train, # the step\n  )(data = d)\n}\n",
     "pipeline p() {\n"
     "    m = run_with_accelerate(\n"
     "        train, # the step\n"
     "    )(data = d)\n"
     "}\n"},
    {"the language spec example",
     "# training.pipe\n"
     "import \"steps/data.pipe\"            # brings load_data and split into scope\n"
     "\n"
     "@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\",\n"
     "        apt_packages = [\"libgomp1\"],\n"
     "        environment = {\"NCCL_DEBUG\": \"WARN\"})\n"
     "@resources(cpu = 2, memory = \"4GB\")           # default for every step\n"
     "pipeline training(epochs: int = 5, lr: float = 0.05, data_path: string = \"data/train.csv\") {\n"
     "    ds = load_data(path = data_path)\n"
     "    (train_set, test_set) = split(data = ds, ratio = 0.8)\n"
     "    model = train(data = train_set, epochs = epochs, lr = lr)\n"
     "    evaluate(model = model, data = test_set)\n"
     "}\n"
     "\n"
     "@resources(cpu = 8, gpu = 2, memory = \"16GB\", gpu_type = \"H100\")\n"
     "@run_with_accelerate(num_processes = 2, multi_gpu = true, mixed_precision = \"bf16\")\n"
     "@cleanup_memory\n"
     "step train(data: dataset, epochs: int = 10, lr: float = 0.01) -> model: model {\n"
     "    source = [\"src/train.cu\", \"src/model.c\"]\n"
     "    entry  = \"train_main\"\n"
     "}\n",
     "# training.pipe\n"
     "import \"steps/data.pipe\" # brings load_data and split into scope\n"
     "\n"
     "@docker(\n"
     "    parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\",\n"
     "    apt_packages = [\"libgomp1\"],\n"
     "    environment = {\"NCCL_DEBUG\": \"WARN\"},\n"
     ")\n"
     "@resources(cpu = 2, memory = \"4GB\") # default for every step\n"
     "pipeline training(epochs: int = 5, lr: float = 0.05, data_path: string = \"data/train.csv\") {\n"
     "    ds = load_data(path = data_path)\n"
     "    (train_set, test_set) = split(data = ds, ratio = 0.8)\n"
     "    model = train(data = train_set, epochs = epochs, lr = lr)\n"
     "    evaluate(model = model, data = test_set)\n"
     "}\n"
     "\n"
     "@resources(cpu = 8, gpu = 2, memory = \"16GB\", gpu_type = \"H100\")\n"
     "@run_with_accelerate(num_processes = 2, multi_gpu = true, mixed_precision = \"bf16\")\n"
     "@cleanup_memory\n"
     "step train(data: dataset, epochs: int = 10, lr: float = 0.01) -> model: model {\n"
     "    source = [\"src/train.cu\", \"src/model.c\"]\n"
     "    entry = \"train_main\"\n"
     "}\n"},
};

static void test_cases(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const fmt_case *c = &cases[i];
        char *got = fmt(c->in);
        if (!got || strcmp(got, c->out) != 0)
            fprintf(stderr, "case \"%s\":\n--- expected ---\n%s--- got ---\n%s", c->name, c->out,
                    got ? got : "(refused)\n");
        CHECK(got && strcmp(got, c->out) == 0);
        free(got);
        check_properties(c->name, c->in, strlen(c->in));
        check_properties(c->name, c->out, strlen(c->out));
    }
}

/* ---- the 100-column rule at its edge ---- */

static void test_width_edge(void)
{
    /* `    source = [` is 14 columns, `]` 1: the strings fill the rest. */
    for (int extra = 0; extra <= 1; extra++) {
        strbuf in = STRBUF_INIT;
        sb_puts(&in, "step a() {\n    source = [\"");
        size_t body = 100 - 14 - 2 - 2 - 2 - 1 + (size_t)extra; /* the quotes, ", ", "" and ] */
        for (size_t k = 0; k < body; k++)
            sb_putc(&in, 'x');
        sb_puts(&in, "\", \"\"]\n}\n");
        char *got = fmt(sb_cstr(&in));
        CHECK(got != NULL);
        if (got) {
            const char *line = strstr(got, "    source");
            size_t w = strcspn(line, "\n");
            if (extra == 0) {
                CHECK_EQ_U64(w, 100);
                CHECK(strcmp(got, sb_cstr(&in)) == 0);
            } else {
                CHECK(strstr(got, "source = [\n") != NULL);
            }
        }
        free(got);
        sb_free(&in);
    }
    /* Columns count code points, not bytes: 97 `é` still fit. */
    strbuf in = STRBUF_INIT;
    sb_puts(&in, "step a() {\n    source = [\"");
    for (int k = 0; k < 100 - 14 - 1 - 2; k++)
        sb_puts(&in, "\xc3\xa9");
    sb_puts(&in, "\"]\n}\n");
    char *got = fmt(sb_cstr(&in));
    CHECK(got && strcmp(got, sb_cstr(&in)) == 0);
    free(got);
    sb_free(&in);
}

/* ---- refusals ---- */

static void test_refusals(void)
{
    static const char *const bad[] = {
        "step a( { source = \"a.c\" }\n",           /* syntax error */
        "step a() { source = \"a.c\"; }\n",         /* stray character */
        "step a() { x = - 1 }\n",                   /* lone minus */
        "step a() { source = \"a.c }\n",            /* unterminated string */
        "step a() { source = \"a\\q.c\" }\n",       /* unknown escape */
        "step a() { source = \"a\x01.c\" }\n",      /* control character */
        "step a() { source = \"a\xff.c\" }\n",      /* invalid UTF-8 */
        "step a() { source = \"a.c\" } \xc3\xa9\n", /* character outside a string */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        parsed ps;
        parse_text(&ps, bad[i], strlen(bad[i]));
        strbuf out = STRBUF_INIT;
        sb_puts(&out, "keep");
        bool ok = format_file(ps.file, ps.sources.files[0], &out);
        if (ok)
            fprintf(stderr, "fmt accepted bad input %zu: %s", i, bad[i]);
        CHECK(!ok);
        CHECK(strcmp(sb_cstr(&out), "keep") == 0);
        sb_free(&out);
        parsed_free(&ps);
    }
    /* A NUL byte is a stray character too. */
    static const char nul[] = "step a() { source = \"a.c\" }\n\0\n";
    CHECK(fmt_len(nul, sizeof nul - 1) == NULL);
    /* Appending: what was in the buffer stays. */
    parsed ps;
    parse_text(&ps, "import \"a\"", 10);
    strbuf out = STRBUF_INIT;
    sb_puts(&out, "x\n");
    CHECK(format_file(ps.file, ps.sources.files[0], &out));
    CHECK_STREQ(sb_cstr(&out), "x\nimport \"a\"\n");
    sb_free(&out);
    parsed_free(&ps);
}

/* ---- random programs ---- */

/* Valid programs from the grammar with random spacing, line breaks and
   comments between tokens: fmt must accept each one and keep its tree and
   comments, and its output must be a fixed point. */
typedef struct gen {
    strbuf sb;
    uint64_t state;
    int comments;
} gen;

static unsigned rnd(gen *g, unsigned n)
{
    g->state ^= g->state << 13;
    g->state ^= g->state >> 7;
    g->state ^= g->state << 17;
    return (unsigned)(g->state % n);
}

static void sep(gen *g, bool need_newline)
{
    switch (rnd(g, need_newline ? 3 : 8) + (need_newline ? 5 : 0)) {
    case 0: case 1: case 2: case 3: sb_putc(&g->sb, ' '); break;
    case 4: sb_puts(&g->sb, rnd(g, 2) ? "\t" : "   "); break;
    case 5: sb_puts(&g->sb, "\n  "); break;
    case 6: sb_printf(&g->sb, "  # c%d %s\n", g->comments++, rnd(g, 2) ? "x" : "long comment text here"); break;
    default: sb_printf(&g->sb, rnd(g, 2) ? "\n\n# c%d\n" : "\n    #c%d\n\n", g->comments++); break;
    }
}

static void tok(gen *g, const char *t)
{
    sep(g, false);
    sb_puts(&g->sb, t);
}

static const char *const names[] = {"a", "data", "epochs", "learning_rate_for_the_optimizer", "x1", "model"};
static const char *const strings[] = {
    "\"\"", "\"a.c\"", "\"say \\\"hi\\\"\"", "\"tab\\there\\n\"", "\"\xc3\xa9t\xc3\xa9\"", "\"back\\\\slash\"",
    "\"nvidia/cuda:12.4.1-runtime-ubuntu22.04\"", "\"a rather long string value that takes up some room\"",
};
static const char *const numbers[] = {"0", "-1", "42", "0.5", "-0.25", "1e-3", "2.5E+4", "123456789"};

static const char *pick_name(gen *g) { return names[rnd(g, sizeof names / sizeof names[0])]; }

static void gen_value(gen *g, int depth);

static void gen_list_tail(gen *g, int n)
{
    if (n > 0 && rnd(g, 3) == 0)
        tok(g, ",");
}

static void gen_value(gen *g, int depth)
{
    unsigned k = rnd(g, depth > 3 ? 4 : 7);
    if (k == 0) {
        tok(g, strings[rnd(g, sizeof strings / sizeof strings[0])]);
    } else if (k == 1) {
        tok(g, numbers[rnd(g, sizeof numbers / sizeof numbers[0])]);
    } else if (k == 2) {
        tok(g, rnd(g, 2) ? "true" : "false");
    } else if (k == 3) {
        tok(g, strings[rnd(g, 3)]);
    } else if (k <= 5) {
        tok(g, "[");
        int n = (int)rnd(g, 5);
        for (int i = 0; i < n; i++) {
            if (i)
                tok(g, ",");
            gen_value(g, depth + 1);
        }
        gen_list_tail(g, n);
        tok(g, "]");
    } else {
        tok(g, "{");
        int n = (int)rnd(g, 4);
        for (int i = 0; i < n; i++) {
            if (i)
                tok(g, ",");
            tok(g, strings[rnd(g, sizeof strings / sizeof strings[0])]);
            tok(g, ":");
            gen_value(g, depth + 1);
        }
        gen_list_tail(g, n);
        tok(g, "}");
    }
}

static void gen_call(gen *g, int depth);

static void gen_args(gen *g, int depth, bool chained)
{
    if (chained)
        sb_puts(&g->sb, rnd(g, 2) ? " (" : "("); /* a chained group starts on the same line */
    else
        tok(g, "(");
    int n = (int)rnd(g, 5);
    for (int i = 0; i < n; i++) {
        if (i)
            tok(g, ",");
        if (rnd(g, 4)) {
            tok(g, pick_name(g));
            tok(g, "=");
        }
        unsigned k = rnd(g, depth > 1 ? 2 : 3);
        if (k == 0)
            gen_value(g, depth + 1);
        else if (k == 1)
            tok(g, pick_name(g));
        else
            gen_call(g, depth + 1);
    }
    gen_list_tail(g, n);
    tok(g, ")");
}

static void gen_call(gen *g, int depth)
{
    tok(g, pick_name(g));
    gen_args(g, depth, false);
    while (rnd(g, 6) == 0)
        gen_args(g, depth, true);
}

static void gen_params(gen *g)
{
    tok(g, "(");
    int n = (int)rnd(g, 5);
    for (int i = 0; i < n; i++) {
        if (i)
            tok(g, ",");
        tok(g, pick_name(g));
        tok(g, ":");
        tok(g, rnd(g, 2) ? "int" : "dataset");
        if (rnd(g, 2)) {
            tok(g, "=");
            gen_value(g, 1);
        }
    }
    gen_list_tail(g, n);
    tok(g, ")");
}

static void gen_decorators(gen *g)
{
    int n = (int)rnd(g, 4);
    for (int i = 0; i < n; i++) {
        sep(g, true);
        sb_putc(&g->sb, '@');
        tok(g, rnd(g, 2) ? "resources" : "docker");
        if (rnd(g, 3)) {
            tok(g, "(");
            int k = (int)rnd(g, 4);
            for (int j = 0; j < k; j++) {
                if (j)
                    tok(g, ",");
                tok(g, pick_name(g));
                tok(g, "=");
                gen_value(g, 1);
            }
            gen_list_tail(g, k);
            tok(g, ")");
        }
    }
}

static void gen_item(gen *g)
{
    unsigned k = rnd(g, 5);
    sep(g, true);
    if (k == 0) {
        tok(g, "import");
        tok(g, strings[rnd(g, sizeof strings / sizeof strings[0])]);
    } else if (k <= 2) {
        gen_decorators(g);
        tok(g, "step");
        tok(g, pick_name(g));
        gen_params(g);
        unsigned o = rnd(g, 3);
        if (o == 1) {
            tok(g, "->");
            tok(g, pick_name(g));
            tok(g, ":");
            tok(g, "model");
        } else if (o == 2) {
            tok(g, "->");
            tok(g, "(");
            int n = 1 + (int)rnd(g, 3);
            for (int i = 0; i < n; i++) {
                if (i)
                    tok(g, ",");
                tok(g, pick_name(g));
                tok(g, ":");
                tok(g, "artifact_type");
            }
            gen_list_tail(g, n);
            tok(g, ")");
        }
        tok(g, "{");
        int n = (int)rnd(g, 4);
        for (int i = 0; i < n; i++) {
            tok(g, pick_name(g));
            tok(g, "=");
            gen_value(g, 0);
        }
        tok(g, "}");
    } else {
        gen_decorators(g);
        tok(g, "pipeline");
        tok(g, pick_name(g));
        gen_params(g);
        tok(g, "{");
        int n = (int)rnd(g, 5);
        for (int i = 0; i < n; i++) {
            sep(g, true);
            unsigned t = rnd(g, 3);
            if (t == 1) {
                sb_puts(&g->sb, pick_name(g));
                tok(g, "=");
            } else if (t == 2) {
                sb_putc(&g->sb, '(');
                int m = 1 + (int)rnd(g, 3);
                for (int j = 0; j < m; j++) {
                    if (j)
                        tok(g, ",");
                    tok(g, pick_name(g));
                }
                gen_list_tail(g, m);
                tok(g, ")");
                tok(g, "=");
            }
            gen_call(g, 0);
        }
        sep(g, true);
        sb_putc(&g->sb, '}');
    }
}

static void test_random_programs(void)
{
    size_t refused = 0;
    int count = getenv("FMT_RANDOM_COUNT") ? atoi(getenv("FMT_RANDOM_COUNT")) : 400;
    for (int i = 0; i < count; i++) {
        gen g = {STRBUF_INIT, 0x9E3779B97F4A7C15ULL ^ (uint64_t)(i + 1) * 0x100000001B3ULL, 0};
        for (int w = 0; w < 8; w++)
            rnd(&g, 2);
        int n = 1 + (int)rnd(&g, 5);
        for (int k = 0; k < n; k++)
            gen_item(&g);
        if (rnd(&g, 2))
            sep(&g, true);
        char name[32];
        snprintf(name, sizeof name, "random program %d", i);
        const char *dump = getenv("FMT_DUMP_DIR"); /* for debugging a failure */
        if (dump && *dump) {
            char path[512];
            snprintf(path, sizeof path, "%s/random_%d.pipe", dump, i);
            FILE *fp = fopen(path, "wb");
            if (fp) {
                fwrite(g.sb.data, 1, g.sb.len, fp);
                fclose(fp);
            }
        }
        char *once = fmt_len(g.sb.data, g.sb.len);
        if (!once) {
            refused++;
            fprintf(stderr, "%s refused:\n%s\n", name, g.sb.data);
        } else {
            check_properties(name, g.sb.data, g.sb.len);
        }
        free(once);
        sb_free(&g.sb);
    }
    CHECK_EQ_U64(refused, 0);
}

/* ---- scale ---- */

static double seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_deep_nesting(void)
{
    /* As deep as the parser's stack allows: fmt neither recurses per level
       nor indents past a fixed depth. */
    for (int depth = 500; depth <= 8000; depth *= 4) {
        strbuf in = STRBUF_INIT;
        sb_puts(&in, "step a() {\n    x = ");
        for (int k = 0; k < depth; k++)
            sb_putc(&in, '[');
        sb_puts(&in, "1 # deep\n");
        for (int k = 0; k < depth; k++)
            sb_putc(&in, ']');
        sb_puts(&in, "\n}\n");
        parsed ps;
        parse_text(&ps, in.data, in.len);
        if (ps.file->syntax_errors == 0) {
            strbuf out = STRBUF_INIT;
            CHECK(format_file(ps.file, ps.sources.files[0], &out));
            CHECK(out.len < in.len * 200);
            check_properties("deep nesting", in.data, in.len);
            sb_free(&out);
        }
        parsed_free(&ps);
        sb_free(&in);
    }
}

static void test_many_steps(void)
{
    enum { STEPS = 100000 };
    strbuf in = STRBUF_INIT;
    sb_puts(&in, "# many steps\n");
    for (int k = 0; k < STEPS; k++)
        sb_printf(&in, "@resources(cpu=%d) # r\nstep s%d(x:int=1)->o:t{source=[\"s%d.c\"] # f\n}\n", k % 8 + 1, k, k);
    sb_puts(&in, "pipeline p() {\n");
    for (int k = 0; k < STEPS; k++)
        sb_printf(&in, "  o%d = s%d(x = %d)\n", k, k, k);
    sb_puts(&in, "}\n");
    double t0 = seconds();
    char *once = fmt_len(in.data, in.len);
    double t1 = seconds();
    CHECK(once != NULL);
    if (once) {
        char *twice = fmt(once);
        CHECK(twice && strcmp(once, twice) == 0);
        free(twice);
        CHECK(strstr(once, "@resources(cpu = 1) # r\nstep s0(x: int = 1) -> o: t {\n    source = [\"s0.c\"] # f\n}\n") !=
              NULL);
    }
    printf("parse + fmt of %d steps and %d statements (%zu bytes): %.2f s\n", STEPS, STEPS, in.len, t1 - t0);
    free(once);
    sb_free(&in);
}

/* ---- files in the repository ---- */

static char *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    strbuf sb = STRBUF_INIT;
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        sb_putn(&sb, buf, n);
    fclose(fp);
    *len = sb.len;
    sb_cstr(&sb);
    return sb.data;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* All files under dir whose name ends with suffix, sorted. */
static void collect(const char *dir, const char *suffix, char ***list, size_t *n, size_t *cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        strbuf path = STRBUF_INIT;
        sb_printf(&path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path.data, &st) == 0 && S_ISDIR(st.st_mode)) {
            collect(path.data, suffix, list, n, cap);
            sb_free(&path);
        } else if (ends_with(e->d_name, suffix)) {
            if (*n == *cap) {
                *cap = *cap ? *cap * 2 : 64;
                *list = xrealloc(*list, *cap * sizeof **list);
            }
            (*list)[(*n)++] = path.data;
        } else {
            sb_free(&path);
        }
    }
    closedir(d);
    if (*n > 1)
        qsort(*list, *n, sizeof **list, cmp_str);
}

static void test_repository_files(const char *root)
{
    static const char *const dirs[] = {"examples", "tests"};
    size_t checked = 0, skipped = 0;
    for (size_t i = 0; i < 2; i++) {
        char **list = NULL;
        size_t n = 0, cap = 0;
        strbuf dir = STRBUF_INIT;
        sb_printf(&dir, "%s/%s", root, dirs[i]);
        collect(dir.data, ".pipe", &list, &n, &cap);
        for (size_t k = 0; k < n; k++) {
            size_t len;
            char *text = read_file(list[k], &len);
            if (!text)
                continue;
            char *once = fmt_len(text, len);
            if (once) {
                check_properties(list[k], text, len);
                checked++;
            } else {
                skipped++; /* syntax or lexical errors: fmt must refuse it */
            }
            free(once);
            free(text);
            free(list[k]);
        }
        free(list);
        sb_free(&dir);
    }
    printf("repository .pipe files: %zu formatted and checked, %zu refused (errors)\n", checked, skipped);
}

/* tests/fmt/NAME.pipe must format to NAME.expected. */
static void test_golden(const char *root)
{
    char **list = NULL;
    size_t n = 0, cap = 0;
    strbuf dir = STRBUF_INIT;
    sb_printf(&dir, "%s/tests/fmt", root);
    collect(dir.data, ".pipe", &list, &n, &cap);
    bool update = getenv("UPDATE_GOLDEN") && strcmp(getenv("UPDATE_GOLDEN"), "1") == 0;
    for (size_t k = 0; k < n; k++) {
        size_t len, elen;
        char *text = read_file(list[k], &len);
        strbuf exp_path = STRBUF_INIT;
        sb_putn(&exp_path, list[k], strlen(list[k]) - strlen(".pipe"));
        sb_puts(&exp_path, ".expected");
        char *got = text ? fmt_len(text, len) : NULL;
        if (update && got) {
            FILE *fp = fopen(exp_path.data, "wb");
            CHECK(fp != NULL);
            if (fp) {
                fputs(got, fp);
                fclose(fp);
            }
        }
        char *expected = read_file(exp_path.data, &elen);
        int ok = got && expected && strcmp(got, expected) == 0;
        if (!ok)
            fprintf(stderr, "%s:\n--- expected (%s) ---\n%s--- got ---\n%s", list[k], exp_path.data,
                    expected ? expected : "(missing)\n", got ? got : "(refused)\n");
        CHECK(ok);
        if (expected)
            check_properties(exp_path.data, expected, elen);
        free(expected);
        free(got);
        free(text);
        sb_free(&exp_path);
        free(list[k]);
    }
    printf("tests/fmt cases: %zu\n", n);
    free(list);
    sb_free(&dir);
}

static char *repo_root(int argc, char **argv)
{
    if (argc > 1)
        return xstrdup(argv[1]);
    const char *env = getenv("PIPEC_SOURCE_DIR");
    if (env && *env)
        return xstrdup(env);
    const char *file = __FILE__;
    const char *tail = strstr(file, "tests/unit/test_fmt.c");
    if (!tail || tail == file)
        return xstrdup(".");
    size_t n = (size_t)(tail - file);
    char *root = xmalloc(n + 1);
    memcpy(root, file, n);
    root[n] = '\0';
    if (n > 1 && root[n - 1] == '/')
        root[n - 1] = '\0';
    return root;
}

int main(int argc, char **argv)
{
    char *root = repo_root(argc, argv);
    test_cases();
    test_width_edge();
    test_refusals();
    test_random_programs();
    test_deep_nesting();
    test_many_steps();
    test_golden(root);
    test_repository_files(root);
    free(root);
    return check_summary();
}
