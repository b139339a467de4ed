#include "params.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/base.h"
#include "pipe/error.h"
#include "util/util.h"

/* Canonical text of a value, or why there is none. */
typedef enum { CANON_OK, CANON_MALFORMED, CANON_OUT_OF_RANGE } canon_status;

static canon_status canonical_int(const char *value, char **out)
{
    const char *p = value;
    if (*p == '+' || *p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return CANON_MALFORMED;
    for (const char *q = p; *q; q++)
        if (!isdigit((unsigned char)*q))
            return CANON_MALFORMED;
    errno = 0;
    char *end;
    long long v = strtoll(value, &end, 10);
    if (errno == ERANGE)
        return CANON_OUT_OF_RANGE;
    if (*end != '\0')
        return CANON_MALFORMED;
    *out = pipe_asprintf("%lld", v);
    return CANON_OK;
}

static char *canonical_double(double v)
{
    char buf[64];
    pipe_format_double(v, buf, sizeof buf);
    return pipe_strdup(buf);
}

static canon_status canonical_float(const char *value, char **out)
{
    if (*value == '\0' || isspace((unsigned char)*value))
        return CANON_MALFORMED;
    errno = 0;
    char *end;
    double v = strtod(value, &end);
    if (*end != '\0' || isnan(v))
        return CANON_MALFORMED;
    /* "inf" is not a number here; "1e999" overflows to it and "1e-400"
       underflows to 0: both are out of range, as they are in a .pipe file.
       A subnormal value is kept: it is the nearest double. */
    if (isinf(v) && (errno == ERANGE || isdigit((unsigned char)value[value[0] == '-' || value[0] == '+'])))
        return CANON_OUT_OF_RANGE;
    if (isinf(v))
        return CANON_MALFORMED;
    if (errno == ERANGE && v == 0)
        return CANON_OUT_OF_RANGE;
    *out = canonical_double(v);
    return CANON_OK;
}

static canon_status canonical(pipe_type t, const char *value, char **out)
{
    *out = NULL;
    switch (t) {
    case PIPE_TYPE_INT: return canonical_int(value, out);
    case PIPE_TYPE_FLOAT: return canonical_float(value, out);
    case PIPE_TYPE_BOOL:
        if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0)
            return CANON_MALFORMED;
        *out = pipe_strdup(value);
        return CANON_OK;
    case PIPE_TYPE_STRING: *out = pipe_strdup(value); return CANON_OK;
    case PIPE_TYPE_ARTIFACT: return CANON_MALFORMED;
    }
    return CANON_MALFORMED;
}

char *pipe_value_canonical(pipe_type t, const char *value)
{
    char *out = NULL;
    if (value)
        canonical(t, value, &out);
    return out;
}

static const char *type_range(pipe_type t)
{
    return t == PIPE_TYPE_INT ? "an int (64-bit: -9223372036854775808 to 9223372036854775807)"
                              : "a float (a double: magnitudes up to about 1.8e308, and none between 0 and "
                                "about 4.9e-324)";
}

static const char *type_expectation(pipe_type t)
{
    switch (t) {
    case PIPE_TYPE_INT: return "an int (a decimal 64-bit integer)";
    case PIPE_TYPE_FLOAT: return "a float (a finite decimal number)";
    case PIPE_TYPE_BOOL: return "a bool (true or false)";
    case PIPE_TYPE_STRING: return "a string";
    case PIPE_TYPE_ARTIFACT: return "an artifact";
    }
    return "a value";
}

int pipe_params_init(const pipe_manifest *m, pipe_param_values *out)
{
    out->n = 0;
    out->values = NULL;
    if (m->nparams == 0)
        return 0;
    out->values = calloc(m->nparams, sizeof *out->values);
    if (!out->values)
        return PIPE_ENOMEM;
    out->n = m->nparams;
    for (size_t i = 0; i < m->nparams; i++) {
        if (m->params[i].default_value && !(out->values[i] = pipe_strdup(m->params[i].default_value))) {
            pipe_params_free(out);
            return PIPE_ENOMEM;
        }
    }
    return 0;
}

int pipe_params_set(const pipe_manifest *m, pipe_param_values *v, const char *name, const char *value, char *err,
                    size_t errsize)
{
    size_t i;
    for (i = 0; i < m->nparams && i < v->n; i++)
        if (strcmp(m->params[i].name, name) == 0)
            break;
    if (i == m->nparams || i == v->n) {
        if (m->nparams == 0) {
            pipe_errf(err, errsize, "unknown parameter `%s` (pipeline %s has no parameters)", name, m->pipeline);
            return PIPE_EUSAGE;
        }
        /* "unknown parameter `epoch`; did you mean `epochs`? (parameters of
           pipeline p: epochs, lr)" */
        size_t cap = 64;
        for (size_t j = 0; j < m->nparams; j++)
            cap += strlen(m->params[j].name) + 2;
        char *names = malloc(cap);
        const char **candidates = malloc(m->nparams * sizeof *candidates);
        if (!names || !candidates) {
            free(names);
            free(candidates);
            return PIPE_ENOMEM;
        }
        names[0] = '\0';
        for (size_t j = 0; j < m->nparams; j++) {
            if (j)
                strcat(names, ", ");
            strcat(names, m->params[j].name);
            candidates[j] = m->params[j].name;
        }
        const char *close = pipe_suggest_name(name, candidates, m->nparams);
        if (close)
            pipe_errf(err, errsize, "unknown parameter `%s`; did you mean `%s`? (parameters of pipeline %s: %s)",
                      name, close, m->pipeline, names);
        else
            pipe_errf(err, errsize, "unknown parameter `%s` (parameters of pipeline %s: %s)", name, m->pipeline,
                      names);
        free(names);
        free(candidates);
        return PIPE_EUSAGE;
    }
    size_t vlen = strlen(value);
    if (vlen > PIPE_PARAM_VALUE_MAX) {
        pipe_errf(err, errsize,
                  "parameter `%s`: the value is %zu bytes, above the limit of %u bytes (pass large data as a file "
                  "and its path)",
                  name, vlen, PIPE_PARAM_VALUE_MAX);
        return PIPE_EUSAGE;
    }
    char *canon = NULL;
    canon_status st = canonical(m->params[i].type, value, &canon);
    if (st == CANON_OUT_OF_RANGE) {
        pipe_errf(err, errsize, "parameter `%s`: `%s` is out of range for %s", name, value,
                  type_range(m->params[i].type));
        return PIPE_EUSAGE;
    }
    if (st != CANON_OK) {
        pipe_errf(err, errsize, "parameter `%s`: `%s` is not %s", name, value, type_expectation(m->params[i].type));
        return PIPE_EUSAGE;
    }
    if (!canon)
        return PIPE_ENOMEM;
    free(v->values[i]);
    v->values[i] = canon;
    return 0;
}

int pipe_params_assign(const pipe_manifest *m, pipe_param_values *v, const char *assignment, char *err,
                       size_t errsize)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment) {
        pipe_errf(err, errsize, "--param expects NAME=VALUE, got `%s`", assignment);
        return PIPE_EUSAGE;
    }
    char *name = pipe_strndup(assignment, (size_t)(eq - assignment));
    if (!name)
        return PIPE_ENOMEM;
    int rc = pipe_params_set(m, v, name, eq + 1, err, errsize);
    free(name);
    return rc;
}

int pipe_params_assign_all(const pipe_manifest *m, pipe_param_values *v, const char *const *assignments, size_t n,
                           char *err, size_t errsize)
{
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(assignments[i], '=');
        size_t len = eq ? (size_t)(eq - assignments[i]) : strlen(assignments[i]);
        for (size_t k = 0; k < i && eq; k++) {
            const char *keq = strchr(assignments[k], '=');
            if (keq && (size_t)(keq - assignments[k]) == len && strncmp(assignments[k], assignments[i], len) == 0) {
                pipe_errf(err, errsize, "parameter `%.*s` is given twice (`%s`, then `%s`): give it once", (int)len,
                          assignments[i], assignments[k], assignments[i]);
                return PIPE_EUSAGE;
            }
        }
        int rc = pipe_params_assign(m, v, assignments[i], err, errsize);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int pipe_params_check_complete(const pipe_manifest *m, const pipe_param_values *v, char *err, size_t errsize)
{
    for (size_t i = 0; i < m->nparams; i++) {
        if (i >= v->n || !v->values[i]) {
            pipe_errf(err, errsize, "parameter `%s` is required: give it with --param %s=VALUE", m->params[i].name,
                      m->params[i].name);
            return PIPE_EUSAGE;
        }
    }
    return 0;
}

void pipe_params_free(pipe_param_values *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++)
        free(v->values[i]);
    free(v->values);
    v->values = NULL;
    v->n = 0;
}
