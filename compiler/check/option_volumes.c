#include "option_volumes.h"

#include <stdlib.h>
#include <string.h>

#include "option_map.h"
#include "util/suggest.h"

const char *const k8s_volume_keys[] = {"name", "claim", "host_path", "path", "read_only"};
const size_t k8s_volume_keys_count = sizeof k8s_volume_keys / sizeof k8s_volume_keys[0];

enum { KEY_NAME, KEY_CLAIM, KEY_HOST_PATH, KEY_PATH, KEY_READ_ONLY, KEY_COUNT };

#define EXAMPLE "{\"name\": \"data\", \"claim\": \"datasets\", \"path\": \"/data\", \"read_only\": true}"

/* A Kubernetes volume name: a DNS-1123 label. */
static bool dns_label(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return false;
    return true;
}

/* Kubernetes' own spellings of the keys, and other likely ones. */
static const char *alias_of(const char *key)
{
    static const char *const aliases[][2] = {
        {"mountPath", "path"},  {"mount_path", "path"},      {"mount", "path"},         {"readOnly", "read_only"},
        {"readonly", "read_only"}, {"claimName", "claim"},   {"claim_name", "claim"},   {"pvc", "claim"},
        {"persistentVolumeClaim", "claim"}, {"hostPath", "host_path"},
    };
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i][0], key) == 0)
            return aliases[i][1];
    return NULL;
}

static void unknown_key(diag_engine *d, const ast_map_entry *e)
{
    diagnostic *dg = diag_report(d, e->key.sp, DIAG_E0204, "\"%s\" is not a key of a volume in @kubernetes(volumes)",
                                 e->key.text);
    diag_label(d, dg, "unknown key");
    char keys[160];
    format_name_list(keys, sizeof keys, k8s_volume_keys, k8s_volume_keys_count);
    const char *close = alias_of(e->key.text);
    if (!close)
        close = suggest_closest_or_prefix(e->key.text, k8s_volume_keys, k8s_volume_keys_count);
    if (close)
        diag_help(d, dg, "did you mean \"%s\"? a volume's keys are %s", close, keys);
    else
        diag_help(d, dg, "a volume's keys are %s", keys);
}

static bool wrong_value(diag_engine *d, const ast_map_entry *e, bool want_bool)
{
    if (e->value->poisoned)
        return false;
    diagnostic *dg = diag_report(d, e->value->sp, DIAG_E0201, "`%s` of a volume in @kubernetes(volumes) expects %s, "
                                 "found %s", e->key.text, want_bool ? "`true` or `false`" : "a string",
                                 expr_kind_name(e->value->kind));
    diag_label(d, dg, "expected %s", want_bool ? "a bool" : "a string");
    if (want_bool)
        diag_help(d, dg, "write `\"read_only\": true` or `\"read_only\": false`, without quotes around the value");
    else
        diag_help(d, dg, "write it in quotes, e.g. " EXAMPLE);
    return false;
}

/* One volume; entries[k] is its entry for key k (NULL: not given). */
static bool check_volume(diag_engine *d, const ast_expr *map, const ast_map_entry **entries)
{
    bool ok = true;
    for (size_t i = 0; i < map->u.items.len; i++) {
        const ast_map_entry *e = map->u.items.items[i];
        int k = option_map_place(d, e, k8s_volume_keys, KEY_COUNT, entries);
        if (k < 0) {
            if (k == OPTION_KEY_UNKNOWN)
                unknown_key(d, e);
            ok = false;
            continue;
        }
        bool want_bool = k == KEY_READ_ONLY;
        if (e->value->kind != (want_bool ? EXPR_BOOL : EXPR_STRING)) {
            ok = wrong_value(d, e, want_bool) && ok;
            entries[k] = NULL; /* its value is no use below */
            continue;
        }
        if (!want_bool && option_has_control_chars(e->value->u.s.text)) {
            diagnostic *dg = diag_report(d, e->value->sp, DIAG_E0201,
                                         "`%s` of a volume must not contain control characters", e->key.text);
            diag_label(d, dg, "contains a newline or another control character");
            ok = false;
        }
    }
    if (!ok)
        return false;
    const char *missing = !entries[KEY_NAME] ? "name" : !entries[KEY_PATH] ? "path" : NULL;
    if (missing || (!entries[KEY_CLAIM] && !entries[KEY_HOST_PATH])) {
        diagnostic *dg = diag_report(d, map->sp, DIAG_E0201, "a volume in @kubernetes(volumes) without %s",
                                     missing ? (missing[0] == 'n' ? "`name`" : "`path`") : "`claim` or `host_path`");
        diag_label(d, dg, "needs `name`, `path`, and `claim` or `host_path`");
        diag_help(d, dg, "write for example " EXAMPLE);
        return false;
    }
    if (entries[KEY_CLAIM] && entries[KEY_HOST_PATH]) {
        const ast_map_entry *second = entries[KEY_CLAIM]->key.sp.start > entries[KEY_HOST_PATH]->key.sp.start
                                          ? entries[KEY_CLAIM]
                                          : entries[KEY_HOST_PATH];
        const ast_map_entry *first = second == entries[KEY_CLAIM] ? entries[KEY_HOST_PATH] : entries[KEY_CLAIM];
        diagnostic *dg = diag_report(d, second->key.sp, DIAG_E0201, "a volume with both `claim` and `host_path`");
        diag_label(d, dg, "one volume is one or the other");
        diag_note(d, dg, first->key.sp, "`%s` is given here", first->key.text);
        diag_help(d, dg, "keep one of them, or write two volumes");
        return false;
    }
    const ast_map_entry *name = entries[KEY_NAME];
    if (!dns_label(name->value->u.s.text)) {
        diagnostic *dg = diag_report(d, name->value->sp, DIAG_E0201, "volume name \"%s\" is not a DNS label",
                                     name->value->u.s.text);
        diag_label(d, dg, "not a Kubernetes volume name");
        diag_help(d, dg, "use lower-case letters, digits and `-`, at most 63 characters, starting and ending with a "
                         "letter or digit");
        return false;
    }
    if (strcmp(name->value->u.s.text, K8S_VOLUME_STORE) == 0 || strcmp(name->value->u.s.text, K8S_VOLUME_SHM) == 0) {
        diagnostic *dg = diag_report(d, name->value->sp, DIAG_E0201, "volume name \"%s\" is the Job's own",
                                     name->value->u.s.text);
        diag_label(d, dg, "already used by pipec");
        diag_help(d, dg, "`%s` (the artifact store) and `%s` (/dev/shm) are taken: choose another name",
                  K8S_VOLUME_STORE, K8S_VOLUME_SHM);
        return false;
    }
    static const int paths[] = {KEY_PATH, KEY_HOST_PATH};
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        const ast_map_entry *e = entries[paths[p]];
        if (e && e->value->u.s.text[0] != '/') {
            diagnostic *dg = diag_report(d, e->value->sp, DIAG_E0201, "`%s` of a volume must be an absolute path",
                                         e->key.text);
            diag_label(d, dg, "does not start with `/`");
            diag_help(d, dg, "write the full path, e.g. \"/%s\"", e->value->u.s.text);
            return false;
        }
    }
    const char *path = entries[KEY_PATH]->value->u.s.text;
    if (strcmp(path, K8S_STORE_PATH) == 0 || strcmp(path, K8S_SHM_PATH) == 0) {
        diagnostic *dg = diag_report(d, entries[KEY_PATH]->value->sp, DIAG_E0201, "\"%s\" is where the Job mounts "
                                     "its own volume", path);
        diag_label(d, dg, "already mounted by pipec");
        diag_help(d, dg, "mount the volume elsewhere: %s holds the artifact store and %s the shared memory",
                  K8S_STORE_PATH, K8S_SHM_PATH);
        return false;
    }
    return true;
}

bool option_check_volumes(diag_engine *d, const opt_value *v)
{
    const ast_expr *list = v->expr;
    bool ok = true;
    size_t cap = list->u.items.len ? list->u.items.len : 1;
    const ast_map_entry **names = calloc(cap, sizeof *names), **paths = calloc(cap, sizeof *paths);
    if (!names || !paths) {
        free(names);
        free(paths);
        return true; /* out of memory: nothing to say about the volumes */
    }
    size_t n = 0;
    for (size_t i = 0; i < list->u.items.len; i++) {
        const ast_expr *map = list->u.items.items[i];
        const ast_map_entry *entries[KEY_COUNT] = {0};
        if (!check_volume(d, map, entries)) {
            ok = false;
            continue;
        }
        /* Two volumes with one name, or mounted at one path. */
        const ast_map_entry *mine[2] = {entries[KEY_NAME], entries[KEY_PATH]};
        const ast_map_entry **seen[2] = {names, paths};
        bool clash = false;
        for (int w = 0; w < 2 && !clash; w++) {
            for (size_t k = 0; k < n && !clash; k++) {
                const ast_map_entry *prev = seen[w][k];
                if (strcmp(prev->value->u.s.text, mine[w]->value->u.s.text) != 0)
                    continue;
                diag_given_twice(d, mine[w]->value->sp, prev->value->sp,
                                 "each volume needs a name and a path of its own", "two volumes with %s \"%s\"",
                                 w == 0 ? "the name" : "the path", mine[w]->value->u.s.text);
                clash = true;
            }
        }
        if (clash) {
            ok = false;
            continue;
        }
        names[n] = entries[KEY_NAME];
        paths[n++] = entries[KEY_PATH];
    }
    free(names);
    free(paths);
    return ok;
}
