#include "gen/escape.h"
#include "decorators.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/base.h"
#include "pipe/manifest.h"
#include "util/strbuf.h"
#include "util/suggest.h"

static const char *const mixed_precision_values[] = {"no", "fp16", "bf16", "fp8", NULL};
static const char *const gpu_vendor_values[] = {"nvidia", "amd", NULL};

static const option_schema resources_options[] = {
    {"cpu", OPT_NUMBER_POSITIVE, NULL, NULL},
    {"gpu", OPT_INT_MIN0, NULL, "0"},
    {"memory", OPT_SIZE, NULL, NULL},
    {"disk", OPT_SIZE, NULL, NULL},
    {"shm", OPT_SIZE, NULL, NULL},
    {"gpu_type", OPT_STRING, NULL, NULL},
};
static const option_schema docker_options[] = {
    {"parent_image", OPT_STRING, NULL, NULL},
    {"build_image", OPT_STRING, NULL, NULL},
    {"apt_packages", OPT_PACKAGE_LIST, NULL, NULL},
    {"requirements", OPT_STRING_LIST, NULL, NULL},
    {"environment", OPT_STRING_MAP, NULL, NULL},
};
static const option_schema accelerate_options[] = {
    {"num_processes", OPT_INT_MIN1, NULL, "1"},
    {"num_machines", OPT_INT_MIN1, NULL, "1"},
    {"multi_gpu", OPT_BOOL, NULL, "false"},
    {"cpu", OPT_BOOL, NULL, "false"},
    {"mixed_precision", OPT_ENUM, mixed_precision_values, "no"},
    {"main_process_port", OPT_PORT, NULL, "0"}, /* not given: a free port, 29500 across machines (model_build.c) */
    {"gpu_ids", OPT_GPU_IDS, NULL, "all"},
    {"max_restarts", OPT_INT_MIN0, NULL, "0"},
    {"rdzv_timeout", OPT_DURATION, NULL, "300s"},
    /* How long a pipe collective waits for a rank that has not entered it. */
    {"collective_timeout", OPT_DURATION, NULL, "30m"},
};
static const option_schema profile_options[] = {
    {"interval", OPT_DURATION, NULL, "1s"},
};
static const option_schema timeout_options[] = {
    {"limit", OPT_DURATION, NULL, NULL},
};
static const option_schema retry_options[] = {
    {"max", OPT_INT_MIN0, NULL, "1"},
    {"delay", OPT_DURATION, NULL, "0s"},
};
static const option_schema slurm_options[] = {
    {"partition", OPT_STRING, NULL, NULL},
    {"account", OPT_STRING, NULL, NULL},
    {"qos", OPT_STRING, NULL, NULL},
    {"constraint", OPT_STRING, NULL, NULL},
    {"extra", OPT_SBATCH_FLAGS, NULL, NULL},
};
static const option_schema kubernetes_options[] = {
    {"namespace", OPT_STRING, NULL, NULL},
    {"service_account", OPT_STRING, NULL, NULL},
    {"gpu_vendor", OPT_ENUM, gpu_vendor_values, "nvidia"},
    {"node_selector", OPT_STRING_MAP, NULL, NULL},
    {"tolerations", OPT_MAP_LIST, NULL, NULL},
};
static const option_schema skypilot_options[] = {
    {"cloud", OPT_STRING, NULL, NULL},
    {"region", OPT_STRING, NULL, NULL},
    {"use_spot", OPT_BOOL, NULL, "false"},
    {"accelerators", OPT_ACCELERATORS, NULL, NULL},
};

/* Durations with a lower bound (E0207 below it). */
static const struct {
    decorator_id decorator;
    const char *option;
    uint64_t min_ms;
} duration_minimums[] = {
    {DEC_ACCELERATE, "collective_timeout", PIPE_COLLECTIVE_TIMEOUT_MIN_MS},
};

static uint64_t duration_minimum(const decorator_schema *s, const option_schema *o)
{
    for (size_t i = 0; i < sizeof duration_minimums / sizeof duration_minimums[0]; i++)
        if (duration_minimums[i].decorator == s->id && strcmp(duration_minimums[i].option, o->name) == 0)
            return duration_minimums[i].min_ms;
    return 0;
}

#define OPTS(a) a, (int)(sizeof a / sizeof a[0])

static const decorator_schema schemas[DEC_COUNT] = {
    {DEC_RESOURCES, "resources", true, true, false, OPTS(resources_options)},
    {DEC_DOCKER, "docker", true, true, false, OPTS(docker_options)},
    {DEC_ACCELERATE, "run_with_accelerate", true, false, false, OPTS(accelerate_options)},
    {DEC_CLEANUP_MEMORY, "cleanup_memory", true, true, false, NULL, 0},
    {DEC_GPU_PROFILE, "gpu_profile", true, true, false, OPTS(profile_options)},
    {DEC_TIMEOUT, "timeout", true, true, true, OPTS(timeout_options)},
    {DEC_RETRY, "retry", true, true, false, OPTS(retry_options)},
    {DEC_SLURM, "slurm", true, true, false, OPTS(slurm_options)},
    {DEC_KUBERNETES, "kubernetes", true, true, false, OPTS(kubernetes_options)},
    {DEC_SKYPILOT, "skypilot", true, true, false, OPTS(skypilot_options)},
};

const decorator_schema *decorator_lookup(const char *name)
{
    for (int i = 0; i < DEC_COUNT; i++)
        if (strcmp(schemas[i].name, name) == 0)
            return &schemas[i];
    return NULL;
}

const decorator_schema *decorator_by_id(decorator_id id) { return &schemas[id]; }

int option_index(const decorator_schema *s, const char *name)
{
    for (int i = 0; i < s->noptions; i++)
        if (strcmp(s->options[i].name, name) == 0)
            return i;
    return -1;
}

static void list_names(strbuf *sb, const char *const *names, size_t n)
{
    char buf[1024];
    format_name_list(buf, sizeof buf, names, n);
    sb_puts(sb, buf);
}

/* ---- option values ---- */

static const char *kind_expectation(const option_schema *o)
{
    switch (o->kind) {
    case OPT_NUMBER_POSITIVE: return "a number";
    case OPT_INT_MIN0:
    case OPT_INT_MIN1:
    case OPT_PORT: return "an integer";
    case OPT_SIZE: return "a size string such as \"16GB\"";
    case OPT_DURATION: return "a duration string such as \"30s\"";
    case OPT_STRING:
    case OPT_ENUM:
    case OPT_GPU_IDS:
    case OPT_ACCELERATORS: return "a string";
    case OPT_BOOL: return "`true` or `false`";
    case OPT_STRING_LIST:
    case OPT_PACKAGE_LIST:
    case OPT_SBATCH_FLAGS: return "a list of strings";
    case OPT_STRING_MAP: return "a map of strings";
    case OPT_MAP_LIST: return "a list of maps";
    }
    return "a value";
}

/* "\"no\", \"fp16\", \"bf16\" or \"fp8\"" */
static void list_values(strbuf *sb, const char *const *values)
{
    size_t n = 0;
    while (values[n])
        n++;
    for (size_t i = 0; i < n; i++)
        sb_printf(sb, "%s\"%s\"", i == 0 ? "" : i == n - 1 ? " or " : ", ", values[i]);
}

static void wrong_type(diag_engine *d, const decorator_schema *s, const option_schema *o, ast_expr *v)
{
    if (v->poisoned)
        return; /* a lexical error, already reported */
    strbuf expected = STRBUF_INIT;
    if (o->kind == OPT_ENUM) {
        sb_puts(&expected, "one of ");
        list_values(&expected, o->enum_values);
    } else {
        sb_puts(&expected, kind_expectation(o));
    }
    diagnostic *dg;
    if (v->kind == EXPR_IDENT)
        dg = diag_report(d, v->sp, DIAG_E0201, "option `%s` of @%s expects %s, found the name `%s`", o->name, s->name,
                         sb_cstr(&expected), v->u.ident.text);
    else
        dg = diag_report(d, v->sp, DIAG_E0201, "option `%s` of @%s expects %s, found %s", o->name, s->name,
                         sb_cstr(&expected), expr_kind_name(v->kind));
    diag_label(d, dg, "expected %s", sb_cstr(&expected));
    sb_free(&expected);
    bool wants_string = o->kind == OPT_STRING || o->kind == OPT_ENUM || o->kind == OPT_GPU_IDS ||
                        o->kind == OPT_ACCELERATORS || o->kind == OPT_SIZE || o->kind == OPT_DURATION;
    if (v->kind == EXPR_IDENT && wants_string)
        diag_help(d, dg, "write it in quotes: `%s = \"%s\"`", o->name, v->u.ident.text);
    else if (v->kind == EXPR_IDENT)
        diag_help(d, dg, "decorator options take literal values, not names");
    else if (o->kind == OPT_SIZE && (v->kind == EXPR_INT || v->kind == EXPR_FLOAT))
        diag_help(d, dg, "sizes are strings with a unit: `%s = \"16GB\"` or `\"512MiB\"`", o->name);
    else if (o->kind == OPT_DURATION && (v->kind == EXPR_INT || v->kind == EXPR_FLOAT))
        diag_help(d, dg, "durations are strings with a unit: `\"500ms\"`, `\"30s\"`, `\"2h\"`");
    else if (o->kind == OPT_BOOL && v->kind == EXPR_STRING)
        diag_help(d, dg, "write `%s = true` or `%s = false`, without quotes", o->name, o->name);
    else if ((o->kind == OPT_INT_MIN0 || o->kind == OPT_INT_MIN1 || o->kind == OPT_PORT ||
              o->kind == OPT_NUMBER_POSITIVE) && v->kind == EXPR_STRING)
        diag_help(d, dg, "write the number without quotes");
    else if (o->kind == OPT_ACCELERATORS && v->kind == EXPR_INT)
        diag_help(d, dg, "name the accelerator and its count: `accelerators = \"H100:%lld\"`", (long long)v->u.i);
    else if ((o->kind == OPT_STRING_LIST || o->kind == OPT_PACKAGE_LIST || o->kind == OPT_SBATCH_FLAGS) &&
             v->kind == EXPR_STRING)
        diag_help(d, dg, "write a list, even of one item: `%s = [\"%s\"]`", o->name, v->u.s.text);
}

/* ---- "did you mean" for sizes and durations ---- */

/* Reads a number (digits, optional fraction) then a unit word; spaces between
   are skipped. Returns the rest of the text after the unit. */
static const char *read_amount(const char *p, double *value, char *unit, size_t unit_size)
{
    while (*p == ' ')
        p++;
    if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
        return NULL;
    char *end;
    *value = strtod(p, &end);
    if (end == p || *end == 'e' || *end == 'E')
        return NULL;
    p = end;
    while (*p == ' ')
        p++;
    size_t n = 0;
    while (isalpha((unsigned char)*p)) {
        if (n + 1 < unit_size)
            unit[n++] = (char)tolower((unsigned char)*p);
        p++;
    }
    unit[n] = '\0';
    return p;
}

static bool exact(double v, uint64_t *out)
{
    if (!(v >= 0) || v > 1.8e19 || floor(v) != v)
        return false;
    *out = (uint64_t)v;
    return true;
}

/* "16G" -> "16GB", "16 gb" -> "16GB", "1.5TB" -> "1500GB"; false when unsure. */
static bool suggest_size(const char *text, char *buf, size_t size)
{
    static const struct { const char *word; double factor; const char *unit; } units[] = {
        {"k", 1e3, "KB"}, {"kb", 1e3, "KB"}, {"m", 1e6, "MB"}, {"mb", 1e6, "MB"}, {"g", 1e9, "GB"},
        {"gb", 1e9, "GB"}, {"t", 1e12, "TB"}, {"tb", 1e12, "TB"}, {"p", 1e15, "PB"}, {"pb", 1e15, "PB"},
        {"ki", 1024.0, "KiB"}, {"kib", 1024.0, "KiB"}, {"mi", 1048576.0, "MiB"}, {"mib", 1048576.0, "MiB"},
        {"gi", 1073741824.0, "GiB"}, {"gib", 1073741824.0, "GiB"}, {"ti", 1099511627776.0, "TiB"},
        {"tib", 1099511627776.0, "TiB"}, {"pi", 1125899906842624.0, "PiB"}, {"pib", 1125899906842624.0, "PiB"},
    };
    double value;
    char unit[16];
    const char *rest = read_amount(text, &value, unit, sizeof unit);
    if (!rest)
        return false;
    while (*rest == ' ')
        rest++;
    if (*rest)
        return false;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(units[i].word, unit) != 0)
            continue;
        uint64_t whole, bytes;
        if (exact(value, &whole))
            snprintf(buf, size, "%llu%s", (unsigned long long)whole, units[i].unit);
        else if (exact(value * units[i].factor, &bytes) && (bytes % 1000 == 0 || bytes % 1024 == 0))
            pipe_format_size(bytes, buf, size);
        else
            return false;
        return strcmp(buf, text) != 0;
    }
    return false;
}

/* "2 hours" -> "2h", "1h30m" -> "90m", "0.5s" -> "500ms", "300" -> "300s". */
static bool suggest_duration(const char *text, char *buf, size_t size)
{
    static const struct { const char *word; double ms; } units[] = {
        {"ms", 1}, {"msec", 1}, {"msecs", 1}, {"millisecond", 1}, {"milliseconds", 1},
        {"s", 1e3}, {"sec", 1e3}, {"secs", 1e3}, {"second", 1e3}, {"seconds", 1e3},
        {"m", 6e4}, {"min", 6e4}, {"mins", 6e4}, {"minute", 6e4}, {"minutes", 6e4},
        {"h", 3.6e6}, {"hr", 3.6e6}, {"hrs", 3.6e6}, {"hour", 3.6e6}, {"hours", 3.6e6},
        {"d", 8.64e7}, {"day", 8.64e7}, {"days", 8.64e7},
    };
    double total = 0;
    const char *p = text;
    int parts = 0;
    while (*p) {
        double value;
        char unit[16];
        p = read_amount(p, &value, unit, sizeof unit);
        if (!p)
            return false;
        double factor = 0;
        if (unit[0] == '\0' && parts == 0 && *p == '\0')
            factor = 1e3; /* a bare number: seconds, as most schedulers read it */
        for (size_t i = 0; i < sizeof units / sizeof units[0] && !factor; i++)
            if (strcmp(units[i].word, unit) == 0)
                factor = units[i].ms;
        if (!factor)
            return false;
        total += value * factor;
        parts++;
        while (*p == ' ')
            p++;
    }
    uint64_t ms;
    if (!parts || !exact(total, &ms))
        return false;
    pipe_format_duration(ms, buf, size);
    return strcmp(buf, text) != 0;
}

static bool is_string_list(diag_engine *d, const decorator_schema *s, const option_schema *o, ast_expr *v)
{
    if (v->kind != EXPR_LIST) {
        wrong_type(d, s, o, v);
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < v->u.items.len; i++) {
        ast_expr *item = v->u.items.items[i];
        if (item->poisoned) {
            ok = false;
        } else if (item->kind != EXPR_STRING) {
            diagnostic *dg =
                diag_report(d, item->sp, DIAG_E0201, "option `%s` of @%s expects a list of strings, found %s", o->name,
                            s->name, expr_kind_name(item->kind));
            diag_label(d, dg, "expected a string");
            if (item->kind == EXPR_IDENT)
                diag_help(d, dg, "write it in quotes: \"%s\"", item->u.ident.text);
            ok = false;
        }
    }
    return ok;
}

static bool has_control_chars(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

/* Debian package names (with an optional =version): also keeps anything
   shell- or Dockerfile-special out of generated images. */
static bool valid_package(const char *s)
{
    if (!isalnum((unsigned char)s[0]))
        return false;
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("+-.=:~", *c))
            return false;
    return true;
}

static bool valid_gpu_ids(const char *s)
{
    if (strcmp(s, "all") == 0)
        return true;
    bool digit = false;
    for (const char *c = s; *c; c++) {
        if (isdigit((unsigned char)*c))
            digit = true;
        else if (*c == ',' && digit)
            digit = false;
        else
            return false;
    }
    return digit;
}

static bool parse_accelerators(const char *s, uint64_t *count, size_t *name_len)
{
    const char *colon = strchr(s, ':');
    size_t n = colon ? (size_t)(colon - s) : strlen(s);
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
            return false;
    *name_len = n;
    *count = 1;
    if (colon) {
        const char *c = colon + 1;
        if (!*c)
            return false;
        uint64_t v = 0;
        for (; *c; c++) {
            if (!isdigit((unsigned char)*c) || v > 1000000)
                return false;
            v = v * 10 + (uint64_t)(*c - '0');
        }
        if (v == 0)
            return false;
        *count = v;
    }
    return true;
}

static void out_of_range(diag_engine *d, const decorator_schema *s, const option_schema *o, ast_expr *v,
                         const char *range)
{
    diagnostic *dg = diag_report(d, v->sp, DIAG_E0207, "option `%s` of @%s must be %s", o->name, s->name, range);
    diag_label(d, dg, "out of range");
}

/* Parses one option value into out; reports what is wrong with it. */
static void parse_option(arena *a, diag_engine *d, const decorator_schema *s, const option_schema *o, ast_expr *v,
                         opt_value *out)
{
    out->expr = v;
    out->valid = false;
    if (v->poisoned)
        return; /* a lexical error, already reported */
    switch (o->kind) {
    case OPT_NUMBER_POSITIVE:
        if (v->kind != EXPR_INT && v->kind != EXPR_FLOAT)
            return wrong_type(d, s, o, v);
        out->num = v->kind == EXPR_INT ? (double)v->u.i : v->u.f;
        if (!(out->num > 0))
            return out_of_range(d, s, o, v, "greater than 0");
        break;
    case OPT_INT_MIN0:
    case OPT_INT_MIN1:
    case OPT_PORT: {
        if (v->kind != EXPR_INT)
            return wrong_type(d, s, o, v);
        out->i = v->u.i;
        if (o->kind == OPT_INT_MIN0 && out->i < 0)
            return out_of_range(d, s, o, v, "0 or more");
        if (o->kind == OPT_INT_MIN1 && out->i < 1)
            return out_of_range(d, s, o, v, "1 or more");
        /* The port above it is pipe's rendezvous: at most 65534. */
        if (o->kind == OPT_PORT && (out->i < 0 || out->i > 65534))
            return out_of_range(d, s, o, v, "a port number from 0 to 65534 (the port above it is pipe's rendezvous)");
        break;
    }
    case OPT_SIZE: {
        if (v->kind != EXPR_STRING)
            return wrong_type(d, s, o, v);
        pipe_unit_status st = pipe_parse_size(v->u.s.text, v->u.s.len, 0, &out->u);
        if (st == PIPE_UNIT_OVERFLOW)
            return out_of_range(d, s, o, v, "a size below 16EiB");
        if (st != PIPE_UNIT_OK) {
            diagnostic *dg = diag_report(d, v->sp, DIAG_E0205, "malformed size \"%s\" for option `%s` of @%s",
                                         v->u.s.text, o->name, s->name);
            diag_label(d, dg, "not a size");
            char better[64];
            if (suggest_size(v->u.s.text, better, sizeof better))
                diag_help(d, dg, "did you mean \"%s\"? a size is an integer followed at once by one of KB MB GB TB "
                                 "PB (powers of 1000) or KiB MiB GiB TiB PiB (powers of 1024)",
                          better);
            else
                diag_help(d, dg, "write an integer followed at once by one of KB MB GB TB PB (powers of 1000) or "
                                 "KiB MiB GiB TiB PiB (powers of 1024), e.g. \"16GB\" or \"512MiB\"");
            return;
        }
        break;
    }
    case OPT_DURATION: {
        if (v->kind != EXPR_STRING)
            return wrong_type(d, s, o, v);
        pipe_unit_status st = pipe_parse_duration(v->u.s.text, v->u.s.len, &out->u);
        if (st == PIPE_UNIT_OVERFLOW)
            return out_of_range(d, s, o, v, "a shorter duration");
        if (st == PIPE_UNIT_OK && out->u < duration_minimum(s, o)) {
            char least[64], range[80];
            pipe_format_duration(duration_minimum(s, o), least, sizeof least);
            snprintf(range, sizeof range, "at least \"%s\"", least);
            diagnostic *dg = diag_report(d, v->sp, DIAG_E0207, "option `%s` of @%s must be %s", o->name, s->name,
                                         range);
            diag_label(d, dg, "too short");
            diag_help(d, dg, "ranks reach a collective a moment apart even when all is well; write `%s = \"%s\"` "
                             "or longer",
                      o->name, least);
            return;
        }
        if (st != PIPE_UNIT_OK) {
            diagnostic *dg = diag_report(d, v->sp, DIAG_E0206, "malformed duration \"%s\" for option `%s` of @%s",
                                         v->u.s.text, o->name, s->name);
            diag_label(d, dg, "not a duration");
            char better[64];
            if (suggest_duration(v->u.s.text, better, sizeof better))
                diag_help(d, dg, "did you mean \"%s\"? a duration is an integer followed at once by one of ms s m "
                                 "h d",
                          better);
            else
                diag_help(d, dg, "write an integer followed at once by one of ms s m h d, e.g. \"500ms\" or "
                                 "\"2h\"");
            return;
        }
        break;
    }
    case OPT_STRING:
        if (v->kind != EXPR_STRING)
            return wrong_type(d, s, o, v);
        if (has_control_chars(v->u.s.text)) {
            diagnostic *dg = diag_report(d, v->sp, DIAG_E0201, "option `%s` of @%s must not contain control characters",
                                         o->name, s->name);
            diag_label(d, dg, "contains a newline or another control character");
            return;
        }
        out->s = v->u.s.text;
        break;
    case OPT_BOOL:
        if (v->kind != EXPR_BOOL)
            return wrong_type(d, s, o, v);
        out->b = v->u.b;
        break;
    case OPT_ENUM: {
        if (v->kind != EXPR_STRING)
            return wrong_type(d, s, o, v);
        size_t n = 0;
        bool found = false;
        for (; o->enum_values[n]; n++)
            found = found || strcmp(o->enum_values[n], v->u.s.text) == 0;
        if (!found) {
            strbuf sb = STRBUF_INIT;
            for (size_t i = 0; i < n; i++) {
                if (i)
                    sb_puts(&sb, i == n - 1 ? " or " : ", ");
                sb_printf(&sb, "\"%s\"", o->enum_values[i]);
            }
            diagnostic *dg = diag_report(d, v->sp, DIAG_E0204, "\"%s\" is not a valid value for option `%s` of @%s",
                                         v->u.s.text, o->name, s->name);
            diag_label(d, dg, "not one of the allowed values");
            const char *close = suggest_closest(v->u.s.text, o->enum_values, n);
            if (close)
                diag_help(d, dg, "did you mean \"%s\"? the allowed values are %s", close, sb_cstr(&sb));
            else
                diag_help(d, dg, "the allowed values are %s", sb_cstr(&sb));
            sb_free(&sb);
            return;
        }
        out->s = v->u.s.text;
        break;
    }
    case OPT_GPU_IDS:
        if (v->kind != EXPR_STRING)
            return wrong_type(d, s, o, v);
        if (!valid_gpu_ids(v->u.s.text)) {
            diagnostic *dg = diag_report(d, v->sp, DIAG_E0201, "option `gpu_ids` of @%s must be \"all\" or GPU indices "
                                         "separated by commas", s->name);
            diag_label(d, dg, "not a GPU list");
            diag_help(d, dg, "write `gpu_ids = \"all\"` or `gpu_ids = \"0,1\"`");
            return;
        }
        out->s = v->u.s.text;
        break;
    case OPT_ACCELERATORS: {
        if (v->kind != EXPR_STRING)
            return wrong_type(d, s, o, v);
        size_t name_len;
        if (!parse_accelerators(v->u.s.text, &out->u, &name_len)) {
            diagnostic *dg = diag_report(d, v->sp, DIAG_E0201, "option `accelerators` of @%s must be \"NAME\" or "
                                         "\"NAME:COUNT\"", s->name);
            diag_label(d, dg, "not an accelerator spec");
            diag_help(d, dg, "write for example `accelerators = \"H100:8\"`");
            return;
        }
        out->s = arena_strndup(a, v->u.s.text, name_len);
        break;
    }
    case OPT_STRING_LIST:
        if (!is_string_list(d, s, o, v))
            return;
        for (size_t i = 0; i < v->u.items.len; i++) {
            ast_expr *item = v->u.items.items[i];
            if (has_control_chars(item->u.s.text)) {
                diagnostic *dg = diag_report(d, item->sp, DIAG_E0201,
                                             "entries of `%s` must not contain control characters", o->name);
                diag_label(d, dg, "contains a newline or another control character");
                return;
            }
        }
        break;
    case OPT_PACKAGE_LIST:
        if (!is_string_list(d, s, o, v))
            return;
        for (size_t i = 0; i < v->u.items.len; i++) {
            ast_expr *item = v->u.items.items[i];
            if (!valid_package(item->u.s.text)) {
                diagnostic *dg = diag_report(d, item->sp, DIAG_E0201, "\"%s\" is not a Debian package name",
                                             item->u.s.text);
                diag_label(d, dg, "not a package name");
                diag_help(d, dg, "package names use letters, digits and `+-.`, optionally `=VERSION`");
                return;
            }
        }
        break;
    case OPT_SBATCH_FLAGS:
        if (!is_string_list(d, s, o, v))
            return;
        for (size_t i = 0; i < v->u.items.len; i++) {
            ast_expr *item = v->u.items.items[i];
            const char *t = item->u.s.text;
            if (strncmp(t, "--", 2) != 0 || !isalpha((unsigned char)t[2]) || has_control_chars(t)) {
                diagnostic *dg = diag_report(d, item->sp, DIAG_E0201, "\"%s\" is not an sbatch option", t);
                diag_label(d, dg, "expected `--name` or `--name=value`");
                diag_help(d, dg, "write options as in an `#SBATCH` line, e.g. \"--exclusive\" or \"--mail-type=END\"");
                return;
            }
        }
        break;
    case OPT_STRING_MAP:
        if (v->kind != EXPR_MAP)
            return wrong_type(d, s, o, v);
        for (size_t i = 0; i < v->u.items.len; i++) {
            ast_map_entry *e = v->u.items.items[i];
            if (e->value->poisoned)
                return;
            if (e->value->kind != EXPR_STRING) {
                diagnostic *dg = diag_report(d, e->value->sp, DIAG_E0201, "values of `%s` must be strings, found %s",
                                             o->name, expr_kind_name(e->value->kind));
                diag_label(d, dg, "expected a string");
                return;
            }
            if (o == &docker_options[DOCKER_ENVIRONMENT] && !esc_env_name_ok(e->key.text)) {
                diagnostic *dg = diag_report(d, e->key.sp, DIAG_E0201,
                                             "\"%s\" is not a valid environment variable name", e->key.text);
                diag_label(d, dg, "not a variable name");
                diag_help(d, dg, "names use letters, digits and `_` and do not start with a digit");
                return;
            }
            for (size_t k = 0; k < i; k++) {
                ast_map_entry *prev = v->u.items.items[k];
                if (strcmp(prev->key.text, e->key.text) == 0) {
                    diagnostic *dg = diag_report(d, e->key.sp, DIAG_E0105, "key \"%s\" given twice", e->key.text);
                    diag_label(d, dg, "second occurrence");
                    diag_note(d, dg, prev->key.sp, "first given here");
                    diag_help(d, dg, "remove one of them");
                    return;
                }
            }
        }
        break;
    case OPT_MAP_LIST:
        if (v->kind != EXPR_LIST)
            return wrong_type(d, s, o, v);
        for (size_t i = 0; i < v->u.items.len; i++) {
            ast_expr *item = v->u.items.items[i];
            if (item->poisoned)
                return;
            if (item->kind != EXPR_MAP) {
                diagnostic *dg =
                    diag_report(d, item->sp, DIAG_E0201, "option `%s` of @%s expects a list of maps, found %s", o->name,
                                s->name, expr_kind_name(item->kind));
                diag_label(d, dg, "expected a map");
                return;
            }
        }
        break;
    }
    out->valid = true;
}

static void unknown_option(diag_engine *d, const decorator_schema *s, ast_arg *arg)
{
    diagnostic *dg = diag_report(d, arg->name.sp, DIAG_E0109, "@%s has no option `%s`", s->name, arg->name.text);
    diag_label(d, dg, "unknown option");
    const char *names[DECORATOR_MAX_OPTIONS];
    for (int i = 0; i < s->noptions; i++)
        names[i] = s->options[i].name;
    const char *close = suggest_closest_or_prefix(arg->name.text, names, (size_t)s->noptions);
    strbuf sb = STRBUF_INIT;
    list_names(&sb, names, (size_t)s->noptions);
    if (s->noptions == 0)
        diag_help(d, dg, "@%s takes no options: write `@%s`", s->name, s->name);
    else if (close)
        diag_help(d, dg, "did you mean `%s`? the options of @%s are %s", close, s->name, sb_cstr(&sb));
    else
        diag_help(d, dg, "the options of @%s are %s", s->name, sb_cstr(&sb));
    sb_free(&sb);
}

static void check_one(arena *a, diag_engine *d, ast_decorator *dec, const decorator_schema *s, decorator_inst *inst)
{
    bool seen_keyword = false, reported_positional = false;
    for (size_t i = 0; i < dec->args.len; i++) {
        ast_arg *arg = dec->args.items[i];
        int idx;
        span name_sp;
        if (!arg->name.text) {
            if (!s->positional) {
                inst->uncertain = true;
                if (!reported_positional) {
                    diagnostic *dg = diag_report(d, arg->value->sp, DIAG_E0117, "@%s takes no positional arguments",
                                                 s->name);
                    diag_label(d, dg, "positional argument");
                    const source_file *f = d->sources->files[arg->value->sp.file];
                    uint32_t len = arg->value->sp.end - arg->value->sp.start;
                    if (s->noptions > 0 && len <= 40)
                        diag_help(d, dg, "name the option, e.g. `@%s(%s = %.*s)`", s->name, s->options[0].name,
                                  (int)len, f->text + arg->value->sp.start);
                    else if (s->noptions > 0)
                        diag_help(d, dg, "name the option, e.g. `@%s(%s = ...)`", s->name, s->options[0].name);
                    else
                        diag_help(d, dg, "@%s takes no options: write `@%s`", s->name, s->name);
                    reported_positional = true;
                }
                continue;
            }
            if (seen_keyword) {
                diagnostic *dg =
                    diag_report(d, arg->value->sp, DIAG_E0118, "positional argument after a keyword argument");
                diag_label(d, dg, "positional argument");
                diag_help(d, dg, "put the positional value first, or name it");
                continue;
            }
            idx = 0;
            name_sp = arg->value->sp;
        } else {
            seen_keyword = true;
            idx = option_index(s, arg->name.text);
            if (idx < 0) {
                unknown_option(d, s, arg);
                inst->uncertain = true;
                continue;
            }
            name_sp = arg->name.sp;
        }
        opt_value *ov = &inst->opts[idx];
        if (ov->set) {
            diagnostic *dg = diag_report(d, name_sp, DIAG_E0105, "option `%s` of @%s given twice", s->options[idx].name,
                                         s->name);
            diag_label(d, dg, "second occurrence");
            diag_note(d, dg, ov->name_sp, "first given here");
            diag_help(d, dg, "remove one of them");
            continue;
        }
        ov->set = true;
        ov->name_sp = name_sp;
        ov->arg_sp = arg->sp;
        parse_option(a, d, s, &s->options[idx], arg->value, ov);
    }
    if (s->id == DEC_TIMEOUT && !inst->opts[TIMEOUT_LIMIT].set && !reported_positional && !inst->uncertain) {
        diagnostic *dg = diag_report(d, dec->name.sp, DIAG_E0104, "@timeout needs a duration");
        diag_label(d, dg, "no limit given");
        diag_help(d, dg, "write `@timeout(\"2h\")` or `@timeout(limit = \"30m\")`");
    }
}

/* A lexical or syntax error was reported inside the decorator. */
static bool decorator_damaged(const diag_engine *d, const ast_decorator *dec)
{
    for (size_t i = 0; i < d->diags.len; i++) {
        const diagnostic *dg = d->diags.items[i];
        if (dg->sp.file != dec->sp.file || dg->sp.start < dec->sp.start || dg->sp.start >= dec->sp.end)
            continue;
        if (diag_code_is_syntax(dg->code))
            return true;
    }
    return false;
}

/* A syntax error earlier on the line of sp (or at it). */
static bool syntax_error_before(const diag_engine *d, span sp)
{
    const char *text = d->sources->files[sp.file]->text;
    uint32_t line = sp.start;
    while (line > 0 && text[line - 1] != '\n')
        line--;
    for (size_t i = 0; i < d->diags.len; i++) {
        const diagnostic *dg = d->diags.items[i];
        if (dg->sp.file == sp.file && dg->sp.start >= line && dg->sp.start <= sp.start &&
            dg->code == DIAG_E0010)
            return true;
    }
    return false;
}

void decorators_check(arena *a, diag_engine *d, const ptr_vec *decorators, bool on_pipeline, decorator_set *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < decorators->len; i++) {
        ast_decorator *dec = decorators->items[i];
        const decorator_schema *s = decorator_lookup(dec->name.text);
        if (!s) {
            const char *names[DEC_COUNT];
            char at_names[DEC_COUNT][32];
            for (int k = 0; k < DEC_COUNT; k++) {
                names[k] = schemas[k].name;
                snprintf(at_names[k], sizeof at_names[k], "@%s", schemas[k].name);
            }
            if (syntax_error_before(d, dec->name.sp))
                continue; /* `s@kypilot`: the parser stumbled here already */
            diagnostic *dg = diag_report(d, dec->name.sp, DIAG_E0108, "unknown decorator `@%s`", dec->name.text);
            diag_label(d, dg, "not a decorator");
            const char *close = suggest_closest_or_prefix(dec->name.text, names, DEC_COUNT);
            if (close) {
                diag_help(d, dg, "did you mean `@%s`?", close);
                out->misspelled[decorator_lookup(close)->id] = true;
            } else {
                const char *list[DEC_COUNT];
                for (int k = 0; k < DEC_COUNT; k++)
                    list[k] = at_names[k];
                strbuf sb = STRBUF_INIT;
                list_names(&sb, list, DEC_COUNT);
                diag_help(d, dg, "the decorators are %s", sb_cstr(&sb));
                sb_free(&sb);
            }
            continue;
        }
        if (on_pipeline ? !s->on_pipeline : !s->on_step) {
            diagnostic *dg = diag_report(d, dec->name.sp, DIAG_E0115, "@%s is not allowed on a %s", s->name,
                                         on_pipeline ? "pipeline" : "step");
            diag_label(d, dg, "not allowed here");
            if (s->id == DEC_ACCELERATE)
                diag_help(d, dg, "put @run_with_accelerate on the step that trains, not on the pipeline");
            continue;
        }
        if (out->by_id[s->id]) {
            diag_code code = s->id == DEC_ACCELERATE ? DIAG_E0302 : DIAG_E0105;
            diagnostic *dg = s->id == DEC_ACCELERATE
                                 ? diag_report(d, dec->name.sp, code, "step wrapped twice with @run_with_accelerate")
                                 : diag_report(d, dec->name.sp, code, "decorator @%s given twice", s->name);
            diag_label(d, dg, "second @%s", s->name);
            diag_note(d, dg, out->by_id[s->id]->decl->name.sp, "first @%s here", s->name);
            diag_help(d, dg, s->id == DEC_ACCELERATE ? "remove one of them: a step is launched once, with one set of "
                                                       "options"
                                                     : "merge the options into one @%s", s->name);
            continue;
        }
        decorator_inst *inst = arena_alloc(a, sizeof *inst);
        inst->schema = s;
        inst->decl = dec;
        inst->on_pipeline = on_pipeline;
        /* Options lost to a syntax error inside the parentheses. */
        inst->uncertain = decorator_damaged(d, dec);
        check_one(a, d, dec, s, inst);
        out->by_id[s->id] = inst;
    }
}

/* ---- defaults and merging ---- */

opt_value option_default(decorator_id dec, int opt)
{
    const option_schema *o = &schemas[dec].options[opt];
    opt_value v = {0};
    v.valid = true;
    const char *t = o->default_text;
    if (!t)
        return v;
    switch (o->kind) {
    case OPT_INT_MIN0:
    case OPT_INT_MIN1:
    case OPT_PORT: v.i = strtoll(t, NULL, 10); break;
    case OPT_BOOL: v.b = strcmp(t, "true") == 0; break;
    case OPT_DURATION: pipe_parse_duration(t, strlen(t), &v.u); break;
    case OPT_SIZE: pipe_parse_size(t, strlen(t), 0, &v.u); break;
    default: v.s = t; break;
    }
    return v;
}

const decorator_inst *effective_decorator(const effective_options *e, decorator_id dec)
{
    if (e->step && e->step->by_id[dec])
        return e->step->by_id[dec];
    if (e->pipeline && e->pipeline->by_id[dec])
        return e->pipeline->by_id[dec];
    return NULL;
}

static const opt_value *explicit_value(const decorator_set *set, decorator_id dec, int opt)
{
    if (!set || !set->by_id[dec])
        return NULL;
    const opt_value *v = &set->by_id[dec]->opts[opt];
    return v->set && v->valid ? v : NULL;
}

bool option_uncertain(const decorator_inst *inst, int opt)
{
    if (!inst)
        return false;
    const opt_value *v = &inst->opts[opt];
    return v->set ? !v->valid : inst->uncertain;
}

bool effective_uncertain(const effective_options *e, decorator_id dec, int opt)
{
    const decorator_set *sets[2] = {e->step, e->pipeline};
    for (int i = 0; i < 2; i++) {
        const decorator_inst *inst = sets[i] ? sets[i]->by_id[dec] : NULL;
        if (!inst && sets[i] && sets[i]->misspelled[dec])
            return true; /* `@docekr(...)` may have set it */
        if (!inst)
            continue;
        if (option_uncertain(inst, opt))
            return true;
        if (inst->opts[opt].set)
            return false; /* this one is in force */
    }
    return false;
}

opt_value effective_opt(const effective_options *e, decorator_id dec, int opt)
{
    const opt_value *v = explicit_value(e->step, dec, opt);
    if (!v)
        v = explicit_value(e->pipeline, dec, opt);
    return v ? *v : option_default(dec, opt);
}
