/* The settings table (pipe/settings.def) drives both sides; this test walks
   it, so that a row added there is tested without a line added here:
   - every bound of every range: pipec accepts the bound and reports E0207
     at the value one past it, and the runtime accepts and refuses the same
     values in bundle.yaml, naming the key;
   - every option set at once: checked, built into bundle.yaml, parsed back
     equal, and a change to any one field is seen by the comparison;
   - every list and map set on a pipeline and its step: a map merged key by
     key, a list replaced whole;
   - docs/language.md's decorator reference is the table's;
   - every byte of an invocation belongs to a field the table (or the
     invocation's identity) knows, or is padding. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "checked.h"
#include "doc_block.h"
#include "check/program.h"
#include "session/decorator_doc.h"
#include "build/build.h"
#include "model/model_build.h"
#include "pipe/base.h"
#include "pipe/settings.h"
#include "util/diag.h"

#ifndef PIPEC_SOURCE_DIR
#error "PIPEC_SOURCE_DIR must name the repository root"
#endif

static char tmpdir[] = "/tmp/pipec-settings-XXXXXX";


/* The E0207 reports, and whether one is at line 1, column col. */
static size_t e0207(checked *c, unsigned col, bool *at)
{
    size_t n = 0;
    *at = false;
    for (size_t i = 0; i < c->d.diags.len; i++) {
        const diagnostic *dg = c->d.diags.items[i];
        if (dg->code != DIAG_E0207)
            continue;
        n++;
        unsigned line, column;
        source_position(c->src.files[dg->sp.file], dg->sp.start, &line, &column);
        *at = *at || (line == 1 && column == col);
    }
    return n;
}

/* A value of the option's kind as a .pipe file writes it. */
static void written_text(const pipe_option *o, uint64_t v, bool negative, char *buf, size_t size)
{
    if (o->kind == PIPE_KIND_DURATION)
        snprintf(buf, size, "\"%llums\"", (unsigned long long)v);
    else if (o->kind == PIPE_KIND_SIZE)
        snprintf(buf, size, "\"%lluKiB\"", (unsigned long long)(v / 1024));
    else
        snprintf(buf, size, "%s%llu", negative ? "-" : "", (unsigned long long)v);
}

static bool ranged(const pipe_option *o)
{
    return o->kind == PIPE_KIND_INT || o->kind == PIPE_KIND_PORT ||
           ((o->kind == PIPE_KIND_SIZE || o->kind == PIPE_KIND_DURATION) && (o->min > 0 || pipe_option_has_max(o)));
}

/* One option set to a value on the step (where every decorator may go). */
static void check_value(const pipe_decorator_info *d, const pipe_option *o, const char *value, bool expect_error)
{
    char text[1024];
    int prefix = snprintf(text, sizeof text, "@%s(%s = ", d->name, o->name);
    snprintf(text + prefix, sizeof text - (size_t)prefix,
             "%s)\nstep s() {\n    command = [\"true\"]\n}\npipeline p() {\n    s()\n}\n", value);
    checked c;
    check_text(&c, text);
    bool at;
    size_t n = e0207(&c, (unsigned)prefix + 1, &at);
    if ((n != 0) != expect_error || (expect_error && !at))
        fprintf(stderr, "@%s(%s = %s): %zu E0207 (expected %s at column %d)\n", d->name, o->name, value, n,
                expect_error ? "one" : "none", prefix + 1);
    CHECK_EQ_U64(n, expect_error ? 1 : 0);
    if (expect_error)
        CHECK(at);
    done(&c);
}

static void test_bounds_in_pipec(void)
{
    size_t bounds = 0;
    for (int k = 0; k < PIPE_DEC_COUNT; k++) {
        const pipe_decorator_info *d = pipe_decorator_get((pipe_decorator)k);
        for (int i = 0; i < d->noptions; i++) {
            const pipe_option *o = &d->options[i];
            if (!ranged(o))
                continue;
            char value[64];
            written_text(o, o->min, false, value, sizeof value);
            check_value(d, o, value, false);
            written_text(o, o->min == 0 ? 1 : o->min - 1, o->min == 0, value, sizeof value);
            if (o->kind != PIPE_KIND_SIZE && !(o->kind == PIPE_KIND_DURATION && o->min == 0))
                check_value(d, o, value, true); /* a size or duration below 0 cannot be written */
            bounds++;
            if (pipe_option_has_max(o)) {
                written_text(o, o->max, false, value, sizeof value);
                check_value(d, o, value, false);
                written_text(o, o->max + 1, false, value, sizeof value);
                check_value(d, o, value, true);
                bounds++;
            }
        }
    }
    printf("%zu bounds checked in pipec\n", bounds);
    CHECK(bounds >= 8);
}

/* ---- every option at once ---- */

static void write_stderr(void *user, const char *text, size_t len)
{
    (void)user;
    fwrite(text, 1, len, stderr);
}

/* A value for each kind that is valid and, where it can be, not the
   default. `cpu = true` would contradict `multi_gpu = true` (E0304);
   @skypilot(store) is a bucket (E0204 otherwise). */
static void sample(const pipe_option *o, char *buf, size_t size)
{
    switch (o->kind) {
    case PIPE_KIND_NUMBER: snprintf(buf, size, "2.5"); break;
    case PIPE_KIND_INT:
    case PIPE_KIND_PORT: snprintf(buf, size, "%llu", (unsigned long long)o->min + 1); break;
    case PIPE_KIND_SIZE: snprintf(buf, size, "\"3GB\""); break;
    case PIPE_KIND_DURATION: snprintf(buf, size, "\"%llums\"", (unsigned long long)o->min + 1500); break;
    case PIPE_KIND_BOOL:
        snprintf(buf, size, "%s", o == pipe_option_get(PIPE_DEC_ACCELERATE, PIPE_ACC_CPU) ? "false" : "true");
        break;
    case PIPE_KIND_STRING:
        snprintf(buf, size, "\"%svalue-%s\"", o == pipe_option_get(PIPE_DEC_SKYPILOT, PIPE_SKY_STORE) ? "s3://" : "",
                 o->name);
        break;
    case PIPE_KIND_ENUM: snprintf(buf, size, "\"%s\"", o->values[1] ? o->values[1] : o->values[0]); break;
    case PIPE_KIND_GPU_IDS: snprintf(buf, size, "\"0\""); break;
    case PIPE_KIND_ACCELERATORS: snprintf(buf, size, "\"H100:1\""); break;
    case PIPE_KIND_STRING_LIST: snprintf(buf, size, "[\"a-%s\", \"b\"]", o->name); break;
    case PIPE_KIND_PACKAGE_LIST: snprintf(buf, size, "[\"libgomp1\", \"curl\"]"); break;
    case PIPE_KIND_SBATCH_FLAGS: snprintf(buf, size, "[\"--exclusive\", \"--mail-type=END\"]"); break;
    case PIPE_KIND_STRING_MAP: snprintf(buf, size, "{\"pool\": \"a\", \"zone\": \"b\"}"); break;
    case PIPE_KIND_ENV_MAP: snprintf(buf, size, "{\"MODE\": \"fast\", \"LEVEL\": \"2\"}"); break;
    case PIPE_KIND_MAP_LIST:
        /* @kubernetes(volumes) has a shape of its own (check/option_volumes.h). */
        if (o == pipe_option_get(PIPE_DEC_KUBERNETES, PIPE_K8S_VOLUMES))
            snprintf(buf, size, "[{\"name\": \"data\", \"claim\": \"c\", \"path\": \"/data\"}, "
                                "{\"name\": \"s\", \"host_path\": \"/mnt\", \"path\": \"/s\", \"read_only\": true}]");
        /* So has @batch(tmpfs) (check/option_tmpfs.h). */
        else if (o == pipe_option_get(PIPE_DEC_BATCH, PIPE_BATCH_TMPFS))
            snprintf(buf, size, "[{\"path\": \"/scratch\", \"size\": \"1GB\"}, "
                                "{\"path\": \"/t\", \"size\": \"2MB\", \"options\": [\"noexec\", \"mode=1777\"]}]");
        else
            snprintf(buf, size, "[{\"key\": \"gpu\", \"operator\": \"Exists\"}, {\"n\": 2}]");
        break;
    case PIPE_KIND_FILE: snprintf(buf, size, "\"%s/README.md\"", PIPEC_SOURCE_DIR); break;
    case PIPE_KIND_COUNT: break;
    }
}

/* "key: value" as a whole entry of a block or flow mapping in text. */
static const char *find_key(const char *text, const char *entry)
{
    size_t n = strlen(entry);
    for (const char *at = strstr(text, entry); at; at = strstr(at + 1, entry))
        if ((at == text || at[-1] == ' ' || at[-1] == '{') && strchr(",}\n", at[n]) && at[n])
            return at;
    return NULL;
}

static size_t options_total(void)
{
    size_t n = 0;
    for (int k = 0; k < PIPE_DEC_COUNT; k++)
        n += (size_t)pipe_decorator_get((pipe_decorator)k)->noptions;
    return n;
}

/* Changes one field of inv, so that the comparison must see it; undo
   restores it. */
static void mutate(const pipe_option *o, pipe_minvocation *inv, bool undo)
{
    void *field = pipe_option_field(o, inv);
    size_t *count = pipe_option_count(o, inv);
    pipe_value v = pipe_option_load(o, inv);
    int step = undo ? -1 : 1;
    switch (o->kind) {
    case PIPE_KIND_NUMBER: v.num += step; break;
    case PIPE_KIND_INT:
    case PIPE_KIND_PORT: v.i += step; break;
    case PIPE_KIND_SIZE:
    case PIPE_KIND_DURATION: v.u += (uint64_t)step; break;
    case PIPE_KIND_BOOL: v.b = !v.b; break;
    case PIPE_KIND_MAP_LIST: ((pipe_mvalue *)field)->n -= (size_t)step; return;
    default:
        if (count) {
            *count -= (size_t)step;
        } else {
            char *s = *(char **)field;
            s[0] = (char)(s[0] ^ 1); /* xor twice is the same letter again */
        }
        return;
    }
    pipe_option_store(o, inv, v);
}


/* Whether an option of another decorator has o's bundle.yaml key. */
static bool key_shared(const pipe_option *o)
{
    for (int k = 0; k < PIPE_DEC_COUNT; k++) {
        const pipe_decorator_info *d = pipe_decorator_get((pipe_decorator)k);
        for (int i = 0; i < d->noptions; i++)
            if (&d->options[i] != o && strcmp(d->options[i].key, o->key) == 0)
                return true;
    }
    return false;
}

/* The errors of a text with every option set, less those of the rules that
   refuse some of the samples together though each value is valid: one kind
   of accelerator per step (E0210: gpu, trainium and inferentia are all
   above 0) and AWS Batch's platform limits (E0403: "SPOT" with
   num_machines = 2). */
static size_t value_errors(const diag_engine *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->diags.len; i++) {
        const diagnostic *dg = d->diags.items[i];
        n += diag_code_get(dg->code)->severity == DIAG_ERROR && dg->code != DIAG_E0210 && dg->code != DIAG_E0403;
    }
    return n;
}

static void test_every_option_round_trips(void)
{
    char step_decorators[8192] = "", value[256];
    size_t len = 0;
    for (int k = 0; k < PIPE_DEC_COUNT; k++) {
        const pipe_decorator_info *d = pipe_decorator_get((pipe_decorator)k);
        len += (size_t)snprintf(step_decorators + len, sizeof step_decorators - len, "@%s%s", d->name,
                                d->noptions ? "(" : "\n");
        for (int i = 0; i < d->noptions; i++) {
            sample(&d->options[i], value, sizeof value);
            len += (size_t)snprintf(step_decorators + len, sizeof step_decorators - len, "%s%s = %s",
                                    i ? ", " : "", d->options[i].name, value);
        }
        if (d->noptions)
            len += (size_t)snprintf(step_decorators + len, sizeof step_decorators - len, ")\n");
    }
    char text[10000];
    snprintf(text, sizeof text, "%sstep s() {\n    command = [\"true\"]\n}\npipeline p() {\n    s()\n}\n",
             step_decorators);
    checked c;
    check_text(&c, text);
    if (value_errors(&c.d) != 0) {
        fprintf(stderr, "every option at once does not check:\n%s", text);
        diag_flush(&c.d, DIAG_FORMAT_TEXT, write_stderr, NULL);
    }
    CHECK_EQ_U64(value_errors(&c.d), 0);
    if (value_errors(&c.d) != 0 || c.pg.pipelines.len != 1) {
        done(&c);
        return;
    }
    model m;
    model_build(&m, &c.a, &c.pg, c.pg.pipelines.items[0]);
    char dir[600], err[512];
    snprintf(dir, sizeof dir, "%s/bundle", tmpdir);
    build_options bo = {.out_dir = dir, .targets = TARGET_LOCAL};
    CHECK_EQ_INT(bundle_build(&m, &bo, &c.a, err, sizeof err), 0);
    char path[700], *yaml = NULL;
    size_t n = 0;
    snprintf(path, sizeof path, "%s/bundle.yaml", dir);
    CHECK_EQ_INT(pipe_read_file(path, &yaml, &n, err, sizeof err), 0);
    pipe_manifest *parsed = NULL;
    int rc = yaml ? pipe_manifest_parse(yaml, n, &parsed, err, sizeof err) : -1;
    if (rc != 0)
        fprintf(stderr, "the runtime refuses bundle.yaml: %s\n", err);
    CHECK_EQ_INT(rc, 0);
    if (parsed) {
        char diff[512];
        rc = pipe_manifest_compare(&m.manifest, parsed, diff, sizeof diff);
        if (rc != 0)
            fprintf(stderr, "model and bundle.yaml differ: %s\n", diff);
        CHECK_EQ_INT(rc, 0);
        pipe_minvocation *inv = &parsed->invocations[0];
        size_t seen = 0;
        for (int k = 0; k < PIPE_DEC_COUNT; k++) {
            const pipe_decorator_info *d = pipe_decorator_get((pipe_decorator)k);
            CHECK(pipe_decorator_present(d, inv) || d->presence == PIPE_NO_FIELD);
            for (int i = 0; i < d->noptions; i++) {
                const pipe_option *o = &d->options[i];
                CHECK(pipe_option_given(o, inv));
                mutate(o, inv, false);
                rc = pipe_manifest_compare(&m.manifest, parsed, diff, sizeof diff);
                char where[128];
                snprintf(where, sizeof where, "%s%s%s:", d->section ? d->section : "", d->section ? "." : "", o->key);
                if (rc == 0 || !strstr(diff, where))
                    fprintf(stderr, "a change of @%s(%s) is not seen as %s (%s)\n", d->name, o->name, where, diff);
                CHECK(rc != 0 && strstr(diff, where) != NULL);
                mutate(o, inv, true);
                seen++;
            }
        }
        CHECK_EQ_INT(pipe_manifest_compare(&m.manifest, parsed, diff, sizeof diff), 0);
        CHECK_EQ_U64(seen, options_total());
    }
    /* The runtime's ranges are pipec's: each bound in bundle.yaml. */
    size_t bounds = 0;
    for (int k = 0; k < PIPE_DEC_COUNT && yaml; k++) {
        const pipe_decorator_info *d = pipe_decorator_get((pipe_decorator)k);
        for (int i = 0; i < d->noptions; i++) {
            const pipe_option *o = &d->options[i];
            if (!ranged(o) || o->kind == PIPE_KIND_SIZE)
                continue;
            if (!parsed)
                break;
            pipe_value now = pipe_option_load(o, &parsed->invocations[0]);
            char from[128];
            if (o->kind == PIPE_KIND_DURATION)
                snprintf(from, sizeof from, "%s: %llu", o->key, (unsigned long long)now.u);
            else
                snprintf(from, sizeof from, "%s: %lld", o->key, (long long)now.i);
            const char *at = find_key(yaml, from);
            /* Once, unless another decorator has an option of that key
               (@resources(trainium) and @batch(trainium)). */
            CHECK(at != NULL && (key_shared(o) || find_key(at + 1, from) == NULL));
            if (!at)
                continue;
            long long values[4] = {(long long)o->min, (long long)o->min - 1, 0, 0};
            int nvalues = 2;
            if (pipe_option_has_max(o)) {
                values[nvalues++] = (long long)o->max;
                values[nvalues++] = (long long)o->max + 1;
            }
            for (int t = 0; t < nvalues; t++) {
                bool in_range = t % 2 == 0;
                if (o->kind == PIPE_KIND_DURATION && values[t] < 0)
                    continue; /* no number of milliseconds at all */
                char to[128];
                snprintf(to, sizeof to, "%s: %lld", o->key, values[t]);
                size_t head = (size_t)(at - yaml), nf = strlen(from), nt = strlen(to);
                char *edited = malloc(n - nf + nt + 1);
                CHECK(edited != NULL);
                if (!edited)
                    continue;
                memcpy(edited, yaml, head);
                memcpy(edited + head, to, nt);
                memcpy(edited + head + nt, at + nf, n - head - nf + 1);
                pipe_manifest *x = NULL;
                rc = pipe_manifest_parse(edited, strlen(edited), &x, err, sizeof err);
                /* A bound may still break a rule across options (num_machines above
                   num_processes): only the range is asked about here. */
                bool range_error = rc != 0 && strstr(err, o->key) && strstr(err, "out of range");
                bool ok = in_range ? !range_error : range_error;
                if (!ok)
                    fprintf(stderr, "runtime, `%s`: %s (rc %d)\n", to, rc ? err : "accepted", rc);
                CHECK(ok);
                pipe_manifest_free(x);
                free(edited);
            }
            bounds++;
        }
    }
    printf("%zu ranges checked in the runtime\n", bounds);
    CHECK(bounds >= 6);
    pipe_manifest_free(parsed);
    free(yaml);
    done(&c);
}

/* The first item of a list or map literal as sample() writes it (`[a, b]`
   gives `a`, `{"k": "v", ...}` gives `"k": "v"`), into buf. */
static void first_item(const char *text, char *buf, size_t size)
{
    int depth = 0;
    bool quoted = false;
    const char *p = text + 1;
    for (; *p; p++) {
        if (quoted) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                quoted = false;
        } else if (*p == '"') {
            quoted = true;
        } else if (*p == '[' || *p == '{') {
            depth++;
        } else if (*p == ']' || *p == '}') {
            if (depth-- == 0)
                break;
        } else if (*p == ',' && depth == 0) {
            break;
        }
    }
    snprintf(buf, size, "%.*s", (int)(p - text - 1), text + 1);
}

/* A list's or map's length in the invocation. */
static size_t items_in(const pipe_option *o, const pipe_minvocation *inv)
{
    if (o->kind == PIPE_KIND_MAP_LIST)
        return ((const pipe_mvalue *)pipe_option_cfield(o, inv))->n;
    return pipe_option_ccount(o, inv);
}

static bool is_list(const pipe_option *o)
{
    return o->kind == PIPE_KIND_STRING_LIST || o->kind == PIPE_KIND_PACKAGE_LIST ||
           o->kind == PIPE_KIND_SBATCH_FLAGS || o->kind == PIPE_KIND_MAP_LIST;
}

/* A pipeline's decorator is its steps' default (docs/language.md,
   "Decorators"): with every option of every pipeline decorator set on the
   pipeline (sample()) and, on the step, each map given its sample's first
   key with another value plus a key of its own, and each list its sample's
   first item alone: a map holds the pipeline's keys in their order, the
   step's value for the key it gives, then the step's own key; a list holds
   the step's one item. */
static void test_step_over_pipeline(void)
{
    char pipeline_decorators[8192] = "", step_decorators[4096] = "", value[256], first[256];
    size_t len = 0, slen = 0;
    for (int k = 0; k < PIPE_DEC_COUNT; k++) {
        const pipe_decorator_info *d = pipe_decorator_get((pipe_decorator)k);
        if (!d->on_pipeline)
            continue;
        len += (size_t)snprintf(pipeline_decorators + len, sizeof pipeline_decorators - len, "@%s%s", d->name,
                                d->noptions ? "(" : "\n");
        bool any = false;
        for (int i = 0; i < d->noptions; i++) {
            const pipe_option *o = &d->options[i];
            sample(o, value, sizeof value);
            len += (size_t)snprintf(pipeline_decorators + len, sizeof pipeline_decorators - len, "%s%s = %s",
                                    i ? ", " : "", o->name, value);
            if (!is_list(o) && !pipe_kind_is_map(o->kind))
                continue;
            first_item(value, first, sizeof first);
            if (pipe_kind_is_map(o->kind))
                *strchr(first, ':') = '\0'; /* the key */
            if (any)
                slen += (size_t)snprintf(step_decorators + slen, sizeof step_decorators - slen, ", ");
            else
                slen += (size_t)snprintf(step_decorators + slen, sizeof step_decorators - slen, "@%s(", d->name);
            slen += (size_t)snprintf(step_decorators + slen, sizeof step_decorators - slen, "%s = ", o->name);
            if (pipe_kind_is_map(o->kind))
                slen += (size_t)snprintf(step_decorators + slen, sizeof step_decorators - slen,
                                         "{%s: \"step\", \"STEP_OWN\": \"c\"}", first);
            else
                slen += (size_t)snprintf(step_decorators + slen, sizeof step_decorators - slen, "[%s]", first);
            any = true;
        }
        if (d->noptions)
            len += (size_t)snprintf(pipeline_decorators + len, sizeof pipeline_decorators - len, ")\n");
        if (any)
            slen += (size_t)snprintf(step_decorators + slen, sizeof step_decorators - slen, ")\n");
    }
    char text[16384];
    snprintf(text, sizeof text, "%spipeline p() {\n    s()\n}\n%sstep s() {\n    command = [\"true\"]\n}\n",
             pipeline_decorators, step_decorators);
    checked c;
    check_text(&c, text);
    if (value_errors(&c.d) != 0 || c.pg.pipelines.len != 1) {
        fprintf(stderr, "a pipeline and its step with every option do not check:\n%s", text);
        diag_flush(&c.d, DIAG_FORMAT_TEXT, write_stderr, NULL);
        CHECK(false);
        done(&c);
        return;
    }
    model m;
    model_build(&m, &c.a, &c.pg, c.pg.pipelines.items[0]);
    const pipe_minvocation *inv = &m.manifest.invocations[0];
    size_t maps = 0, lists = 0;
    for (int k = 0; k < PIPE_DEC_COUNT; k++) {
        const pipe_decorator_info *d = pipe_decorator_get((pipe_decorator)k);
        for (int i = 0; i < d->noptions && d->on_pipeline; i++) {
            const pipe_option *o = &d->options[i];
            size_t n = items_in(o, inv);
            if (is_list(o)) {
                if (n != 1)
                    fprintf(stderr, "@%s(%s): %zu items, expected the step's one (a list is replaced whole)\n",
                            d->name, o->name, n);
                CHECK_EQ_U64(n, 1);
                lists++;
            } else if (pipe_kind_is_map(o->kind)) {
                const pipe_kv *kv = *(pipe_kv *const *)pipe_option_cfield(o, inv);
                sample(o, value, sizeof value);
                bool ok = n == 3 && strcmp(kv[0].value, "step") == 0 && strcmp(kv[1].value, "step") != 0 &&
                          strcmp(kv[2].key, "STEP_OWN") == 0 && strcmp(kv[2].value, "c") == 0;
                if (!ok)
                    fprintf(stderr, "@%s(%s): %zu keys, expected the pipeline's %s with its first key the step's, "
                            "then STEP_OWN (a map is merged key by key)\n", d->name, o->name, n, value);
                CHECK(ok);
                maps++;
            }
        }
    }
    CHECK(maps >= 2);  /* environment, node_selector */
    CHECK(lists >= 4); /* apt_packages, requirements, extra, tolerations, ... */
    done(&c);
}

/* ---- the invocation's layout ---- */

static void cover(unsigned char *covered, size_t offset, size_t size)
{
    for (size_t i = 0; i < size; i++)
        covered[offset + i]++;
}

static size_t kind_size(pipe_kind k)
{
    switch (k) {
    case PIPE_KIND_NUMBER: return sizeof(double);
    case PIPE_KIND_INT:
    case PIPE_KIND_PORT: return sizeof(int64_t);
    case PIPE_KIND_SIZE:
    case PIPE_KIND_DURATION: return sizeof(uint64_t);
    case PIPE_KIND_BOOL: return sizeof(bool);
    case PIPE_KIND_MAP_LIST: return sizeof(pipe_mvalue);
    case PIPE_KIND_FILE: return sizeof(pipe_mfile);
    default: return sizeof(void *);
    }
}

static void test_every_field_is_known(void)
{
    unsigned char covered[sizeof(pipe_minvocation)] = {0};
    cover(covered, offsetof(pipe_minvocation, id), sizeof(char *));
    cover(covered, offsetof(pipe_minvocation, step), sizeof(int));
    cover(covered, offsetof(pipe_minvocation, args), sizeof(pipe_marg *));
    cover(covered, offsetof(pipe_minvocation, nargs), sizeof(size_t));
    cover(covered, offsetof(pipe_minvocation, needs), sizeof(int *));
    cover(covered, offsetof(pipe_minvocation, nneeds), sizeof(size_t));
    for (int k = 0; k < PIPE_DEC_COUNT; k++) {
        const pipe_decorator_info *d = pipe_decorator_get((pipe_decorator)k);
        if (d->presence != PIPE_NO_FIELD)
            cover(covered, d->presence, sizeof(bool));
        if (d->given != PIPE_NO_FIELD)
            cover(covered, d->given, sizeof(unsigned));
        for (int i = 0; i < d->noptions; i++) {
            const pipe_option *o = &d->options[i];
            cover(covered, o->field, kind_size(o->kind));
            if (o->count != PIPE_NO_FIELD)
                cover(covered, o->count, sizeof(size_t));
        }
    }
    /* What no row covers must be padding: a gap shorter than 8 bytes that
       ends where a field begins at an 8-byte boundary (or at the end). */
    for (size_t i = 0; i < sizeof covered;) {
        CHECK(covered[i] <= 1);
        if (covered[i]) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < sizeof covered && !covered[i])
            i++;
        bool padding = i - start < 8 && i % 8 == 0;
        if (!padding)
            fprintf(stderr, "bytes %zu to %zu of pipe_minvocation belong to no field the settings table knows\n",
                    start, i - 1);
        CHECK(padding);
    }
}

/* The table itself: names and keys unique, defaults that parse and lie in
   range, enum defaults among the values. */
static void test_rows(void)
{
    CHECK_EQ_INT(PIPE_DEC_COUNT, 12);
    for (int k = 0; k < PIPE_DEC_COUNT; k++) {
        const pipe_decorator_info *d = pipe_decorator_get((pipe_decorator)k);
        CHECK(pipe_decorator_named(d->name) == d);
        CHECK(pipe_decorator_in_manifest_order(d->order) == d);
        CHECK(d->noptions <= (int)PIPE_MAX_DECORATOR_OPTIONS);
        CHECK(d->doc && *d->doc);
        for (int i = 0; i < d->noptions; i++) {
            const pipe_option *o = &d->options[i];
            CHECK_EQ_INT(o->index, i);
            CHECK(pipe_option_decorator(o) == d);
            CHECK(o->doc && *o->doc);
            for (int j = 0; j < i; j++) {
                CHECK(strcmp(d->options[j].name, o->name) != 0);
                CHECK(strcmp(d->options[j].key, o->key) != 0);
            }
            if (o->default_text && ranged(o))
                CHECK(pipe_option_in_range(o, pipe_option_initial(o, false)));
            if (o->kind == PIPE_KIND_ENUM) {
                bool found = false;
                for (size_t v = 0; o->values[v]; v++)
                    found = found || strcmp(o->values[v], o->default_text) == 0;
                CHECK(found);
            }
        }
    }
}

/* docs/language.md's decorator reference and docs/runtime.md's table of
   what is in the cache key are the table's. */
static void test_reference_in_docs(void)
{
    check_doc_block(PIPEC_SOURCE_DIR "/docs/language.md", DECORATOR_DOC_BEGIN, decorator_doc_markdown,
                    "docs/language.md's decorator reference is out of date with pipe/settings.def");
    check_doc_block(PIPEC_SOURCE_DIR "/docs/runtime.md", DECORATOR_CACHE_BEGIN, decorator_doc_cache_markdown,
                    "docs/runtime.md's table of the cache key is out of date with pipe/settings.def");
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    checked_dir = tmpdir;
    test_rows();
    test_every_field_is_known();
    test_bounds_in_pipec();
    test_every_option_round_trips();
    test_step_over_pipeline();
    test_reference_in_docs();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return check_summary();
}
