#include "params.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/error.h"
#include "util.h"

static char *canonical_int(const char *value)
{
    const char *p = value;
    if (*p == '+' || *p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return NULL;
    for (const char *q = p; *q; q++)
        if (!isdigit((unsigned char)*q))
            return NULL;
    errno = 0;
    char *end;
    long long v = strtoll(value, &end, 10);
    if (errno == ERANGE || *end != '\0')
        return NULL;
    return pipe_asprintf("%lld", v);
}

static char *canonical_double(double v)
{
    char buf[64];
    pipe_format_double(v, buf, sizeof buf);
    return pipe_strdup(buf);
}

static char *canonical_float(const char *value)
{
    if (*value == '\0' || isspace((unsigned char)*value))
        return NULL;
    errno = 0;
    char *end;
    double v = strtod(value, &end);
    if (*end != '\0' || !isfinite(v))
        return NULL;
    /* Overflow gives HUGE_VAL (not finite, refused above); underflow to a
       tiny or zero value is accepted: it is the nearest double. */
    return canonical_double(v);
}

char *pipe_value_canonical(pipe_type t, const char *value)
{
    if (!value)
        return NULL;
    switch (t) {
    case PIPE_TYPE_INT: return canonical_int(value);
    case PIPE_TYPE_FLOAT: return canonical_float(value);
    case PIPE_TYPE_BOOL:
        return strcmp(value, "true") == 0 || strcmp(value, "false") == 0 ? pipe_strdup(value) : NULL;
    case PIPE_TYPE_STRING: return pipe_strdup(value);
    case PIPE_TYPE_ARTIFACT: return NULL;
    }
    return NULL;
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
        /* "unknown parameter `nope` (parameters: epochs, lr)" */
        size_t cap = 64;
        for (size_t j = 0; j < m->nparams; j++)
            cap += strlen(m->params[j].name) + 2;
        char *names = malloc(cap);
        if (!names)
            return PIPE_ENOMEM;
        names[0] = '\0';
        for (size_t j = 0; j < m->nparams; j++) {
            if (j)
                strcat(names, ", ");
            strcat(names, m->params[j].name);
        }
        pipe_errf(err, errsize, "unknown parameter `%s` (parameters of pipeline %s: %s)", name, m->pipeline, names);
        free(names);
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
    char *canon = pipe_value_canonical(m->params[i].type, value);
    if (!canon) {
        pipe_errf(err, errsize, "parameter `%s`: `%s` is not %s", name, value, type_expectation(m->params[i].type));
        return PIPE_EUSAGE;
    }
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
