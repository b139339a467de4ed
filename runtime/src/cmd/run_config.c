#include "run_config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/error.h"
#include "util/util.h"
#include "format/yaml_tree.h"

static int config_fail(char *err, size_t errsize, const char *path, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int config_fail(char *err, size_t errsize, const char *path, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pipe_errf(err, errsize, "%s: line %d: %s", path, line, msg);
    return PIPE_EUSAGE;
}

static int config_bool(const char *path, const pipe_ynode *key, const pipe_ynode *v, bool *out, char *err,
                       size_t errsize)
{
    const char *s = pipe_ynode_str(v);
    if (s && strcmp(s, "true") == 0)
        *out = true;
    else if (s && strcmp(s, "false") == 0)
        *out = false;
    else
        return config_fail(err, errsize, path, v->line, "`%s` must be true or false", key->text);
    return 0;
}

static int config_params(const char *path, const pipe_ynode *val, const pipe_manifest *m, pipe_param_values *v,
                         char *err, size_t errsize)
{
    if (pipe_ynode_is_null(val))
        return 0;
    if (val->type != PIPE_YMAP)
        return config_fail(err, errsize, path, val->line, "`params` must be a mapping of NAME: VALUE");
    for (size_t j = 0; j < pipe_ymap_size(val); j++) {
        const pipe_ynode *pk = pipe_ymap_key(val, j), *pv = pipe_ymap_value(val, j);
        const char *name = pipe_ynode_str(pk), *value = pipe_ynode_str(pv);
        char why[1024];
        if (!name || !*name)
            return config_fail(err, errsize, path, pk->line, "a parameter name is empty or holds a NUL byte");
        if (pv->type != PIPE_YSCALAR || !value || pipe_ynode_is_null(pv))
            return config_fail(err, errsize, path, pv->line, "parameter `%s` needs a single value", name);
        int rc = pipe_params_set(m, v, name, value, why, sizeof why);
        if (rc == PIPE_ENOMEM)
            return rc;
        if (rc != 0)
            return config_fail(err, errsize, path, pv->line, "%s", why);
    }
    return 0;
}

static int config_jobs(const char *path, const pipe_ynode *val, pipe_run_config *cfg, char *err, size_t errsize)
{
    const char *s = pipe_ynode_str(val);
    char *end = NULL;
    errno = 0;
    long n = s && val->type == PIPE_YSCALAR ? strtol(s, &end, 10) : 0;
    if (!s || val->type != PIPE_YSCALAR || !*s || *end || errno || n < 1 || n > 1000000)
        return config_fail(err, errsize, path, val->line, "`jobs` must be an integer from 1 to 1000000");
    cfg->jobs = n;
    return 0;
}

int pipe_run_config_parse(const char *text, size_t len, const char *path, const pipe_manifest *m,
                          pipe_param_values *v, pipe_run_config *cfg, char *err, size_t errsize)
{
    pipe_ynode *root = NULL;
    char why[1024];
    int rc = pipe_yaml_load(text, len, &root, why, sizeof why);
    if (rc != 0) {
        pipe_errf(err, errsize, "%s: %s", path, why);
        return rc == PIPE_ENOMEM ? rc : PIPE_EUSAGE;
    }
    if (!root)
        return 0;
    if (root->type != PIPE_YMAP) {
        rc = config_fail(err, errsize, path, root->line,
                         "expected a mapping with params, store, jobs, no_cache, strict_resources");
        goto done;
    }
    for (size_t i = 0; i < pipe_ymap_size(root) && rc == 0; i++) {
        const pipe_ynode *k = pipe_ymap_key(root, i), *val = pipe_ymap_value(root, i);
        const char *key = pipe_ynode_str(k);
        if (!key)
            key = "";
        if (strcmp(key, "params") == 0) {
            rc = config_params(path, val, m, v, err, errsize);
        } else if (strcmp(key, "store") == 0) {
            const char *s = pipe_ynode_str(val);
            if (!s || !*s || val->type != PIPE_YSCALAR || pipe_ynode_is_null(val)) {
                rc = config_fail(err, errsize, path, val->line, "`store` must be a directory name");
            } else {
                free(cfg->store);
                if (!(cfg->store = pipe_strdup(s)))
                    rc = PIPE_ENOMEM;
            }
        } else if (strcmp(key, "jobs") == 0) {
            rc = config_jobs(path, val, cfg, err, errsize);
        } else if (strcmp(key, "no_cache") == 0) {
            rc = config_bool(path, k, val, &cfg->no_cache, err, errsize);
        } else if (strcmp(key, "strict_resources") == 0) {
            rc = config_bool(path, k, val, &cfg->strict_resources, err, errsize);
        } else {
            rc = config_fail(err, errsize, path, k->line,
                             "unknown key `%s` (params, store, jobs, no_cache, strict_resources)", key);
        }
    }
done:
    pipe_ynode_free(root);
    return rc;
}

int pipe_run_config_load(const char *path, const pipe_manifest *m, pipe_param_values *v, pipe_run_config *cfg,
                         char *err, size_t errsize)
{
    char *text = NULL, why[1024];
    size_t len = 0;
    int rc = pipe_read_file_max(path, PIPE_CONFIG_MAX_BYTES, &text, &len, why, sizeof why);
    if (rc == PIPE_EFORMAT) {
        pipe_errf(err, errsize, "%s (a configuration file is at most %u MiB)", why, PIPE_CONFIG_MAX_BYTES >> 20);
        return PIPE_EUSAGE;
    }
    if (rc != 0) {
        pipe_errf(err, errsize, "%s", why);
        return rc == PIPE_ENOMEM ? rc : PIPE_EUSAGE;
    }
    rc = pipe_run_config_parse(text, len, path, m, v, cfg, err, errsize);
    free(text);
    return rc;
}

void pipe_run_config_free(pipe_run_config *cfg)
{
    free(cfg->store);
    cfg->store = NULL;
}
