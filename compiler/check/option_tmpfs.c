#include "option_tmpfs.h"

#include <string.h>

#include "option_map.h"
#include "pipe/base.h"
#include "util/suggest.h"

static const char *const tmpfs_keys[] = {"path", "size", "options"};
enum { KEY_PATH, KEY_SIZE, KEY_OPTIONS, KEY_COUNT };

#define EXAMPLE "{\"path\": \"/scratch\", \"size\": \"8GB\", \"options\": [\"noexec\"]}"

/* The mount options AWS Batch accepts (Tmpfs.mountOptions); those after
   "mode" take a value ("mode=1777"). */
static const char *const mount_options[] = {
    "defaults", "ro",      "rw",         "suid",     "nosuid",      "dev",        "nodev",   "exec",
    "noexec",   "sync",    "async",      "dirsync",  "remount",     "mand",       "nomand",  "atime",
    "noatime",  "diratime", "nodiratime", "bind",    "rbind",       "unbindable", "runbindable", "private",
    "rprivate", "shared",  "rshared",    "slave",    "rslave",      "relatime",   "norelatime", "strictatime",
    "nostrictatime", "mode", "uid",      "gid",      "nr_inodes",   "nr_blocks",  "mpol",
};

static bool known_option(const char *s)
{
    size_t n = strcspn(s, "=");
    for (size_t i = 0; i < sizeof mount_options / sizeof mount_options[0]; i++)
        if (strlen(mount_options[i]) == n && strncmp(mount_options[i], s, n) == 0)
            return s[n] == '\0' || (s[n + 1] && !option_has_control_chars(s + n + 1) && !strchr(s + n + 1, ','));
    return false;
}

static void unknown_key(diag_engine *d, const ast_map_entry *e)
{
    diagnostic *dg = diag_report(d, e->key.sp, DIAG_E0204, "\"%s\" is not a key of a mount in @batch(tmpfs)",
                                 e->key.text);
    diag_label(d, dg, "unknown key");
    char keys[80];
    format_name_list(keys, sizeof keys, tmpfs_keys, KEY_COUNT);
    const char *close = suggest_closest_or_prefix(e->key.text, tmpfs_keys, KEY_COUNT);
    if (strcmp(e->key.text, "containerPath") == 0)
        close = "path";
    else if (strcmp(e->key.text, "mountOptions") == 0)
        close = "options";
    if (close)
        diag_help(d, dg, "did you mean \"%s\"? a mount's keys are %s", close, keys);
    else
        diag_help(d, dg, "a mount's keys are %s", keys);
}

static bool bad_value(diag_engine *d, const ast_expr *v, const char *what, const char *label)
{
    if (v->poisoned)
        return false;
    diagnostic *dg = diag_report(d, v->sp, DIAG_E0201, "%s in @batch(tmpfs)", what);
    diag_label(d, dg, "%s", label);
    diag_help(d, dg, "write for example " EXAMPLE);
    return false;
}

static bool check_options(diag_engine *d, const ast_expr *v)
{
    if (v->kind != EXPR_LIST)
        return bad_value(d, v, "`options` of a mount expects a list of strings", "expected a list");
    for (size_t i = 0; i < v->u.items.len; i++) {
        const ast_expr *o = v->u.items.items[i];
        if (o->kind != EXPR_STRING)
            return bad_value(d, o, "a mount option is a string", "expected a string");
        if (!known_option(o->u.s.text)) {
            diagnostic *dg = diag_report(d, o->sp, DIAG_E0201, "\"%s\" is not a tmpfs mount option AWS Batch takes",
                                         o->u.s.text);
            diag_label(d, dg, "unknown mount option");
            const char *close = suggest_closest_or_prefix(o->u.s.text, mount_options,
                                                          sizeof mount_options / sizeof mount_options[0]);
            if (close)
                diag_help(d, dg, "did you mean \"%s\"? options are words such as \"noexec\" or \"nosuid\", or "
                                 "\"mode=1777\"", close);
            else
                diag_help(d, dg, "options are words such as \"noexec\" or \"nosuid\", or \"mode=1777\"");
            return false;
        }
    }
    return true;
}

/* One mount; entries[k] is its entry for key k (NULL: not given). */
static bool check_mount(diag_engine *d, const ast_expr *map, const ast_map_entry **entries)
{
    bool ok = true;
    for (size_t i = 0; i < map->u.items.len; i++) {
        const ast_map_entry *e = map->u.items.items[i];
        int k = option_map_place(d, e, tmpfs_keys, KEY_COUNT, entries);
        if (k < 0) {
            if (k == OPTION_KEY_UNKNOWN)
                unknown_key(d, e);
            ok = false;
            continue;
        }
        const ast_expr *v = e->value;
        if (k == KEY_OPTIONS) {
            ok = check_options(d, v) && ok;
            continue;
        }
        if (v->kind != EXPR_STRING) {
            ok = bad_value(d, v, k == KEY_PATH ? "`path` of a mount expects a string" : "`size` of a mount expects "
                           "a size in quotes", "expected a string") && ok;
            continue;
        }
        uint64_t bytes = 0;
        if (k == KEY_PATH && (v->u.s.text[0] != '/' || option_has_control_chars(v->u.s.text)))
            ok = bad_value(d, v, "`path` of a mount must be an absolute path", "not an absolute path") && ok;
        else if (k == KEY_SIZE && (pipe_parse_size(v->u.s.text, v->u.s.len, 0, &bytes) != PIPE_UNIT_OK || !bytes))
            ok = bad_value(d, v, "`size` of a mount must be a size such as \"512MB\" or \"8GB\"", "not a size") && ok;
    }
    if (ok && (!entries[KEY_PATH] || !entries[KEY_SIZE])) {
        diagnostic *dg = diag_report(d, map->sp, DIAG_E0201, "a mount in @batch(tmpfs) without `%s`",
                                     entries[KEY_PATH] ? "size" : "path");
        diag_label(d, dg, "needs `path` and `size`");
        diag_help(d, dg, "write for example " EXAMPLE);
        ok = false;
    }
    return ok;
}

bool option_check_tmpfs(diag_engine *d, const opt_value *v)
{
    const ast_expr *list = v->expr;
    bool ok = true;
    const ast_map_entry *seen_paths[64];
    size_t n = 0;
    for (size_t i = 0; i < list->u.items.len; i++) {
        const ast_map_entry *entries[KEY_COUNT] = {0};
        if (!check_mount(d, list->u.items.items[i], entries)) {
            ok = false;
            continue;
        }
        const ast_map_entry *path = entries[KEY_PATH];
        for (size_t k = 0; k < n; k++) {
            if (strcmp(seen_paths[k]->value->u.s.text, path->value->u.s.text) == 0) {
                diag_given_twice(d, path->value->sp, seen_paths[k]->value->sp, "each mount needs a path of its own",
                                 "two mounts at \"%s\"", path->value->u.s.text);
                ok = false;
                break;
            }
        }
        if (n < sizeof seen_paths / sizeof seen_paths[0])
            seen_paths[n++] = path;
    }
    return ok;
}
