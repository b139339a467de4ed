/* Option values (option_values.h): one validator per kind of the settings
   table (pipe/settings.h), each reading the value as written, storing it in
   an opt_value and reporting what is wrong with it: the wrong type (E0201),
   a value outside an enumeration (E0204), a malformed size or duration
   (E0205, E0206, with a "did you mean"), a number outside the table's range
   (E0207), a file that does not exist (E0116); then the option's own
   check, which the settings table names (a pip option among @docker's
   requirements, E0209, option_docker.c; a GPU model, gpu_type_values.c;
   ...). */
#include "option_values.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/escape.h"
#include "gpu_type_values.h"
#include "neuron_values.h"
#include "option_docker.h"
#include "option_map.h"
#include "option_tmpfs.h"
#include "option_volumes.h"
#include "pipe/base.h"
#include "sema_util.h"
#include "util/strbuf.h"
#include "util/suggest.h"

/* What a validator works on. */
typedef struct option_ctx {
    arena *a;
    diag_engine *d;
    const decorator_schema *s;
    const option_schema *o;
    ast_expr *v;
    opt_value *out;
} option_ctx;

/* A value the .pipe file writes in quotes: a size, a duration, a string, a
   path. */
static bool written_as_string(const option_schema *o)
{
    return pipe_option_text_quoted(o) && pipe_option_ctype(o) != PIPE_CTYPE_STRINGS &&
           !pipe_kind_is_map(o->kind) && pipe_option_ctype(o) != PIPE_CTYPE_MVALUE;
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

/* Reports a value of the wrong type; false, for the validators to return. */
static bool wrong_type(const option_ctx *c)
{
    const option_schema *o = c->o;
    ast_expr *v = c->v;
    diag_engine *d = c->d;
    if (v->poisoned)
        return false; /* a lexical error, already reported */
    strbuf expected = STRBUF_INIT;
    if (o->values) {
        sb_puts(&expected, "one of ");
        list_values(&expected, o->values);
    } else {
        sb_puts(&expected, pipe_kind_get(o->kind)->expects);
    }
    diagnostic *dg;
    if (v->kind == EXPR_IDENT)
        dg = diag_report(d, v->sp, DIAG_E0201, "option `%s` of @%s expects %s, found the name `%s`", o->name,
                         c->s->name, sb_cstr(&expected), v->u.ident.text);
    else
        dg = diag_report(d, v->sp, DIAG_E0201, "option `%s` of @%s expects %s, found %s", o->name, c->s->name,
                         sb_cstr(&expected), expr_kind_name(v->kind));
    diag_label(d, dg, "expected %s", sb_cstr(&expected));
    sb_free(&expected);
    pipe_text t = pipe_kind_get(o->kind)->text;
    bool number = t == PIPE_TEXT_INT || t == PIPE_TEXT_NUMBER;
    if (v->kind == EXPR_IDENT && written_as_string(o))
        diag_help(d, dg, "write it in quotes: `%s = \"%s\"`", o->name, v->u.ident.text);
    else if (v->kind == EXPR_IDENT)
        diag_help(d, dg, "decorator options take literal values, not names");
    else if (t == PIPE_TEXT_SIZE && (v->kind == EXPR_INT || v->kind == EXPR_FLOAT))
        diag_help(d, dg, "sizes are strings with a unit: `%s = \"16GB\"` or `\"512MiB\"`", o->name);
    else if (t == PIPE_TEXT_DURATION && (v->kind == EXPR_INT || v->kind == EXPR_FLOAT))
        diag_help(d, dg, "durations are strings with a unit: `\"500ms\"`, `\"30s\"`, `\"2h\"`");
    else if (t == PIPE_TEXT_BOOL && v->kind == EXPR_STRING)
        diag_help(d, dg, "write `%s = true` or `%s = false`, without quotes", o->name, o->name);
    else if (number && v->kind == EXPR_STRING)
        diag_help(d, dg, "write the number without quotes");
    else if (o->kind == PIPE_KIND_ACCELERATORS && v->kind == EXPR_INT)
        diag_help(d, dg, "name the accelerator and its count: `accelerators = \"H100:%lld\"`", (long long)v->u.i);
    else if (pipe_option_ctype(o) == PIPE_CTYPE_STRINGS && v->kind == EXPR_STRING)
        diag_help(d, dg, "write a list, even of one item: `%s = [\"%s\"]`", o->name, v->u.s.text);
    return false;
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

/* ---- what values may hold ---- */

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

/* ---- out of range (E0207) ---- */

/* Reports E0207; false, for the validators to return. */
static bool out_of_range(const option_ctx *c, const char *range, const char *label, const char *help)
{
    diagnostic *dg = diag_report(c->d, c->v->sp, DIAG_E0207, "option `%s` of @%s must be %s", c->o->name,
                                 c->s->name, range);
    diag_label(c->d, dg, "%s", label);
    if (help)
        diag_help(c->d, dg, "%s", help);
    return false;
}

/* An integer outside [min, max]: "1 or more", "4096 or less", with the
   table's reason for the bound. */
static bool int_in_range(const option_ctx *c)
{
    const option_schema *o = c->o;
    pipe_value v = {.i = c->out->i};
    if (pipe_option_in_range(o, v))
        return true;
    char range[160];
    bool port = o->kind == PIPE_KIND_PORT;
    if (port)
        snprintf(range, sizeof range, "a port number from %llu to %llu (%s)", (unsigned long long)o->min,
                 (unsigned long long)o->max, o->help ? o->help : "");
    else if (v.i < 0 || (uint64_t)v.i < o->min)
        snprintf(range, sizeof range, "%llu or more", (unsigned long long)o->min);
    else
        snprintf(range, sizeof range, "%llu or less", (unsigned long long)o->max);
    bool above = v.i >= 0 && (uint64_t)v.i > o->max;
    return out_of_range(c, range, "out of range", above && !port ? o->help : NULL);
}

/* A size or duration outside [min, max]: at least or at most a bound,
   written as the language writes it, with the table's reason. */
static bool unit_in_range(const option_ctx *c)
{
    const option_schema *o = c->o;
    pipe_value v = {.u = c->out->u};
    if (pipe_option_in_range(o, v))
        return true;
    bool below = v.u < o->min, duration = pipe_kind_get(o->kind)->text == PIPE_TEXT_DURATION;
    char bound[64], range[96], help[320];
    pipe_option_text(o, (pipe_value){.u = below ? o->min : o->max}, bound, sizeof bound);
    snprintf(range, sizeof range, "%s \"%s\"", below ? "at least" : "at most", bound);
    snprintf(help, sizeof help, "%s%swrite `%s = \"%s\"` or %s", o->help ? o->help : "", o->help ? "; " : "",
             o->name, bound, below ? (duration ? "longer" : "larger") : (duration ? "shorter" : "smaller"));
    const char *label = below ? (duration ? "too short" : "too small") : (duration ? "too long" : "too large");
    return out_of_range(c, range, label, help);
}

/* ---- one validator per kind ---- */

static bool kind_check_number(option_ctx *c)
{
    ast_expr *v = c->v;
    if (v->kind != EXPR_INT && v->kind != EXPR_FLOAT)
        return wrong_type(c);
    c->out->num = v->kind == EXPR_INT ? (double)v->u.i : v->u.f;
    if (!(c->out->num > 0))
        return out_of_range(c, "greater than 0", "out of range", NULL);
    return true;
}

static bool kind_check_int(option_ctx *c)
{
    if (c->v->kind != EXPR_INT)
        return wrong_type(c);
    c->out->i = c->v->u.i;
    return int_in_range(c);
}

static bool kind_check_size(option_ctx *c)
{
    ast_expr *v = c->v;
    if (v->kind != EXPR_STRING)
        return wrong_type(c);
    pipe_unit_status st = pipe_parse_size(v->u.s.text, v->u.s.len, 0, &c->out->u);
    if (st == PIPE_UNIT_OVERFLOW)
        return out_of_range(c, "a size below 16EiB", "out of range", NULL);
    if (st != PIPE_UNIT_OK) {
        diagnostic *dg = diag_report(c->d, v->sp, DIAG_E0205, "malformed size \"%s\" for option `%s` of @%s",
                                     v->u.s.text, c->o->name, c->s->name);
        diag_label(c->d, dg, "not a size");
        char better[64];
        if (suggest_size(v->u.s.text, better, sizeof better))
            diag_help(c->d, dg, "did you mean \"%s\"? a size is an integer followed at once by one of KB MB GB TB "
                                "PB (powers of 1000) or KiB MiB GiB TiB PiB (powers of 1024)",
                      better);
        else
            diag_help(c->d, dg, "write an integer followed at once by one of KB MB GB TB PB (powers of 1000) or "
                                "KiB MiB GiB TiB PiB (powers of 1024), e.g. \"16GB\" or \"512MiB\"");
        return false;
    }
    return unit_in_range(c);
}

static bool kind_check_duration(option_ctx *c)
{
    ast_expr *v = c->v;
    if (v->kind != EXPR_STRING)
        return wrong_type(c);
    pipe_unit_status st = pipe_parse_duration(v->u.s.text, v->u.s.len, &c->out->u);
    if (st == PIPE_UNIT_OVERFLOW)
        return out_of_range(c, "a shorter duration", "out of range", NULL);
    if (st != PIPE_UNIT_OK) {
        diagnostic *dg = diag_report(c->d, v->sp, DIAG_E0206, "malformed duration \"%s\" for option `%s` of @%s",
                                     v->u.s.text, c->o->name, c->s->name);
        diag_label(c->d, dg, "not a duration");
        char better[64];
        if (suggest_duration(v->u.s.text, better, sizeof better))
            diag_help(c->d, dg, "did you mean \"%s\"? a duration is an integer followed at once by one of ms s m "
                                "h d",
                      better);
        else
            diag_help(c->d, dg, "write an integer followed at once by one of ms s m h d, e.g. \"500ms\" or "
                                "\"2h\"");
        return false;
    }
    return unit_in_range(c);
}

static bool kind_check_bool(option_ctx *c)
{
    if (c->v->kind != EXPR_BOOL)
        return wrong_type(c);
    c->out->b = c->v->u.b;
    return true;
}

static bool kind_check_string(option_ctx *c)
{
    ast_expr *v = c->v;
    if (v->kind != EXPR_STRING)
        return wrong_type(c);
    if (option_has_control_chars(v->u.s.text)) {
        diagnostic *dg = diag_report(c->d, v->sp, DIAG_E0201, "option `%s` of @%s must not contain control characters",
                                     c->o->name, c->s->name);
        diag_label(c->d, dg, "contains a newline or another control character");
        return false;
    }
    c->out->s = v->u.s.text;
    return true;
}

static bool kind_check_enum(option_ctx *c)
{
    ast_expr *v = c->v;
    const char *const *values = c->o->values;
    if (v->kind != EXPR_STRING)
        return wrong_type(c);
    size_t n = 0;
    bool found = false;
    for (; values[n]; n++)
        found = found || strcmp(values[n], v->u.s.text) == 0;
    if (!found) {
        strbuf sb = STRBUF_INIT;
        list_values(&sb, values);
        diagnostic *dg = diag_report(c->d, v->sp, DIAG_E0204, "\"%s\" is not a valid value for option `%s` of @%s",
                                     v->u.s.text, c->o->name, c->s->name);
        diag_label(c->d, dg, "not one of the allowed values");
        const char *close = suggest_closest(v->u.s.text, values, n);
        if (close) {
            diag_help(c->d, dg, "did you mean \"%s\"? the allowed values are %s", close, sb_cstr(&sb));
            diag_fix(c->d, dg, "\"%s\"", close); /* the table's values need no escape */
        } else {
            diag_help(c->d, dg, "the allowed values are %s", sb_cstr(&sb));
        }
        sb_free(&sb);
        return false;
    }
    c->out->s = v->u.s.text;
    return true;
}

static bool kind_check_gpu_ids(option_ctx *c)
{
    ast_expr *v = c->v;
    if (v->kind != EXPR_STRING)
        return wrong_type(c);
    if (!valid_gpu_ids(v->u.s.text)) {
        diagnostic *dg = diag_report(c->d, v->sp, DIAG_E0201, "option `gpu_ids` of @%s must be \"all\" or GPU indices "
                                     "separated by commas", c->s->name);
        diag_label(c->d, dg, "not a GPU list");
        diag_help(c->d, dg, "write `gpu_ids = \"all\"` or `gpu_ids = \"0,1\"`");
        return false;
    }
    c->out->s = v->u.s.text;
    return true;
}

/* The accelerator's name in s, its count in u. */
static bool kind_check_accelerators(option_ctx *c)
{
    ast_expr *v = c->v;
    if (v->kind != EXPR_STRING)
        return wrong_type(c);
    size_t name_len;
    if (!parse_accelerators(v->u.s.text, &c->out->u, &name_len)) {
        diagnostic *dg = diag_report(c->d, v->sp, DIAG_E0201, "option `accelerators` of @%s must be \"NAME\" or "
                                     "\"NAME:COUNT\"", c->s->name);
        diag_label(c->d, dg, "not an accelerator spec");
        diag_help(c->d, dg, "write for example `accelerators = \"H100:8\"`");
        return false;
    }
    c->out->s = arena_strndup(c->a, v->u.s.text, name_len);
    return true;
}

/* A list whose items are all strings; reports the first that is not. */
static bool check_string_items(option_ctx *c)
{
    ast_expr *v = c->v;
    if (v->kind != EXPR_LIST)
        return wrong_type(c);
    bool ok = true;
    for (size_t i = 0; i < v->u.items.len; i++) {
        ast_expr *item = v->u.items.items[i];
        if (item->poisoned) {
            ok = false;
        } else if (item->kind != EXPR_STRING) {
            diagnostic *dg = diag_report(c->d, item->sp, DIAG_E0201,
                                         "option `%s` of @%s expects a list of strings, found %s", c->o->name,
                                         c->s->name, expr_kind_name(item->kind));
            diag_label(c->d, dg, "expected a string");
            if (item->kind == EXPR_IDENT)
                diag_help(c->d, dg, "write it in quotes: \"%s\"", item->u.ident.text);
            ok = false;
        }
    }
    return ok;
}

static bool kind_check_string_list(option_ctx *c)
{
    if (!check_string_items(c))
        return false;
    for (size_t i = 0; i < c->v->u.items.len; i++) {
        ast_expr *item = c->v->u.items.items[i];
        if (option_has_control_chars(item->u.s.text)) {
            diagnostic *dg = diag_report(c->d, item->sp, DIAG_E0201,
                                         "entries of `%s` must not contain control characters", c->o->name);
            diag_label(c->d, dg, "contains a newline or another control character");
            return false;
        }
    }
    return true;
}

static bool kind_check_package_list(option_ctx *c)
{
    if (!check_string_items(c))
        return false;
    for (size_t i = 0; i < c->v->u.items.len; i++) {
        ast_expr *item = c->v->u.items.items[i];
        if (!valid_package(item->u.s.text)) {
            diagnostic *dg = diag_report(c->d, item->sp, DIAG_E0201, "\"%s\" is not a Debian package name",
                                         item->u.s.text);
            diag_label(c->d, dg, "not a package name");
            diag_help(c->d, dg, "package names use letters, digits and `+-.`, optionally `=VERSION`");
            return false;
        }
    }
    return true;
}

static bool kind_check_sbatch_flags(option_ctx *c)
{
    if (!check_string_items(c))
        return false;
    for (size_t i = 0; i < c->v->u.items.len; i++) {
        ast_expr *item = c->v->u.items.items[i];
        const char *t = item->u.s.text;
        if (strncmp(t, "--", 2) != 0 || !isalpha((unsigned char)t[2]) || option_has_control_chars(t)) {
            diagnostic *dg = diag_report(c->d, item->sp, DIAG_E0201, "\"%s\" is not an sbatch option", t);
            diag_label(c->d, dg, "expected `--name` or `--name=value`");
            diag_help(c->d, dg, "write options as in an `#SBATCH` line, e.g. \"--exclusive\" or \"--mail-type=END\"");
            return false;
        }
    }
    return true;
}

/* A map of strings; ENV_MAP keys are environment variable names. */
static bool kind_check_string_map(option_ctx *c)
{
    ast_expr *v = c->v;
    if (v->kind != EXPR_MAP)
        return wrong_type(c);
    for (size_t i = 0; i < v->u.items.len; i++) {
        ast_map_entry *e = v->u.items.items[i];
        if (e->value->poisoned)
            return false;
        if (e->value->kind != EXPR_STRING) {
            diagnostic *dg = diag_report(c->d, e->value->sp, DIAG_E0201, "values of `%s` must be strings, found %s",
                                         c->o->name, expr_kind_name(e->value->kind));
            diag_label(c->d, dg, "expected a string");
            return false;
        }
        if (pipe_option_ctype(c->o) == PIPE_CTYPE_ENV && !esc_env_name_ok(e->key.text)) {
            diagnostic *dg = diag_report(c->d, e->key.sp, DIAG_E0201,
                                         "\"%s\" is not a valid environment variable name", e->key.text);
            diag_label(c->d, dg, "not a variable name");
            diag_help(c->d, dg, "names use letters, digits and `_` and do not start with a digit");
            return false;
        }
        for (size_t k = 0; k < i; k++) {
            ast_map_entry *prev = v->u.items.items[k];
            if (strcmp(prev->key.text, e->key.text) == 0) {
                diag_given_twice(c->d, e->key.sp, prev->key.sp, NULL, "key \"%s\" given twice", e->key.text);
                return false;
            }
        }
    }
    return true;
}

static bool kind_check_map_list(option_ctx *c)
{
    ast_expr *v = c->v;
    if (v->kind != EXPR_LIST)
        return wrong_type(c);
    for (size_t i = 0; i < v->u.items.len; i++) {
        ast_expr *item = v->u.items.items[i];
        if (item->poisoned)
            return false;
        if (item->kind != EXPR_MAP) {
            diagnostic *dg = diag_report(c->d, item->sp, DIAG_E0201,
                                         "option `%s` of @%s expects a list of maps, found %s", c->o->name, c->s->name,
                                         expr_kind_name(item->kind));
            diag_label(c->d, dg, "expected a map");
            return false;
        }
    }
    return true;
}

/* The largest file an option may name: a requirements file is a few KB. */
#define OPTION_FILE_MAX ((size_t)16 << 20)

/* A path relative to the .pipe file that holds it: the file is read now,
   so that a missing one is reported here and the bundle copies exactly the
   bytes whose digest it records. */
static bool kind_check_file(option_ctx *c)
{
    ast_expr *v = c->v;
    if (v->kind != EXPR_STRING)
        return wrong_type(c);
    const char *path = v->u.s.text;
    if (*path == '\0' || option_has_control_chars(path)) {
        diagnostic *dg = diag_report(c->d, v->sp, DIAG_E0201, "option `%s` of @%s must be a file name", c->o->name,
                                     c->s->name);
        diag_label(c->d, dg, *path ? "contains a newline or another control character" : "empty");
        return false;
    }
    const char *dir = sema_dirname(c->a, c->d->sources->files[v->sp.file]->path);
    const char *resolved = sema_join_path(c->a, dir, path);
    struct stat st;
    bool is_file = stat(resolved, &st) == 0 && S_ISREG(st.st_mode);
    char *data = NULL, err[256] = "";
    size_t len = 0;
    if (!is_file || pipe_read_file_max(resolved, OPTION_FILE_MAX, &data, &len, err, sizeof err) != 0) {
        bool exists = !is_file && stat(resolved, &st) == 0;
        diagnostic *dg = diag_report(c->d, v->sp, DIAG_E0116, "%s \"%s\" of @%s %s", c->o->name, path, c->s->name,
                                     is_file ? "cannot be read" : exists ? "is not a file" : "does not exist");
        diag_label(c->d, dg, "%s", is_file ? err : exists ? "a folder, or another kind of file" : "no such file");
        if (strcmp(resolved, path) != 0)
            diag_help(c->d, dg, "paths in decorators are relative to the .pipe file; this one resolves to %s",
                      resolved);
        else
            diag_help(c->d, dg, "paths in decorators are relative to the .pipe file");
        return false;
    }
    opt_file *f = arena_alloc(c->a, sizeof *f);
    char hex[PIPE_SHA256_HEX_SIZE];
    pipe_sha256_hex_of(data, len, hex);
    f->resolved = resolved;
    f->sha256 = arena_strdup(c->a, hex);
    f->text = arena_strndup(c->a, data, len);
    f->len = len;
    free(data);
    c->out->s = path;
    c->out->file = f;
    return true;
}

/* Each kind's validator, as the CHECK column of pipe/kinds.def names it. */
#define PIPE_KIND(ID, CTYPE, TEXT, EXPECTS, DOC, CHECK) [PIPE_KIND_##ID] = CHECK,
static bool (*const validators[PIPE_KIND_COUNT])(option_ctx *) = {
#include "pipe/kinds.def"
};
#undef PIPE_KIND

/* Each option's own check, as the CHECK column of the settings table names
   it, by decorator and option. */
#define PIPE_OPTION(ID, NAME, KIND, MIN, MAX, DEFAULT, ABSENT, VALUES, CHECK, ...) CHECK,
#define PIPE_DECORATOR(ID, NAME, WHERE, POSITIONAL, ORDER, SECTION, FLOW, WHEN, PRESENCE, PRESENCE_KEY, GIVEN, DOC, \
                       ...)                                                                                          \
    static option_check *const checks_##ID[] = {__VA_ARGS__ NULL};
#include "pipe/settings.def"
#undef PIPE_OPTION
#undef PIPE_DECORATOR
#define PIPE_OPTION(...)
#define PIPE_DECORATOR(ID, ...) [PIPE_DEC_##ID] = checks_##ID,
static option_check *const *const option_checks[PIPE_DEC_COUNT] = {
#include "pipe/settings.def"
};
#undef PIPE_OPTION
#undef PIPE_DECORATOR

void option_value_parse(arena *a, diag_engine *d, const decorator_schema *s, const option_schema *o, ast_expr *v,
                        opt_value *out)
{
    out->expr = v;
    out->valid = false;
    if (v->poisoned)
        return; /* a lexical error, already reported */
    option_ctx c = {a, d, s, o, v, out};
    out->valid = validators[o->kind](&c);
    option_check *check = option_checks[s->id][o->index];
    if (out->valid && check)
        out->valid = check(d, out);
}

opt_value option_value_initial(const option_schema *o)
{
    pipe_value p = pipe_option_initial(o, false);
    opt_value v = {0};
    v.valid = true;
    v.num = p.num;
    v.i = p.i;
    v.u = p.u;
    v.b = p.b;
    v.s = p.s;
    return v;
}
