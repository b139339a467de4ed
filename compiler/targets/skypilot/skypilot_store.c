/* The bucket URIs @skypilot(store) accepts (skypilot_store.h). */
#include "skypilot_store.h"

#include <string.h>

/* The stores whose buckets SkyPilot (0.14) mounts with MOUNT_CACHED: rclone
   with its full VFS cache, where renames, appends and random writes work,
   as the runtime's rename into place needs. Its MOUNT mode (goofys,
   gcsfuse, blobfuse2) lacks appends and, on some stores, folder renames;
   IBM COS (cos://) and OCI (oci://) have no MOUNT_CACHED, Hugging Face
   (hf://) mounts through hf-mount instead. SkyPilot mounts a whole bucket,
   so a folder in it is the runtime's business (sky_store.path). */
static const struct {
    const char *prefix;
    size_t max; /* the longest bucket name the store allows */
} schemes[] = {
    {"s3://", 63}, {"gs://", 222}, {"r2://", 63}, {"nebius://", 63}, {"cw://", 63}, {"vastdata://", 63},
};

/* Azure Blob Storage: https://ACCOUNT.blob.core.windows.net/CONTAINER. */
#define AZURE_PREFIX "https://"
#define AZURE_HOST ".blob.core.windows.net/"

static bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

/* n bytes of lower-case letters, digits and the bytes of `inner` (never at
   either end), between min and max long. */
static bool name_ok(const char *s, size_t n, size_t min, size_t max, const char *inner)
{
    if (n < min || n > max || !lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!lower_alnum(s[i]) && !strchr(inner, s[i]))
            return false;
    return true;
}

/* A folder path: parts of letters, digits, '.', '_' and '-', never "." or
   "..", joined by single '/'; one '/' may end it. Sets *len without it. */
static bool path_ok(const char *s, size_t *len, strbuf *why)
{
    size_t n = strlen(s);
    if (n && s[n - 1] == '/')
        n--;
    size_t part = 0;
    for (size_t i = 0; i <= n; i++) {
        char c = i < n ? s[i] : '/';
        if (c == '/') {
            bool dots = (part == 1 && s[i - 1] == '.') || (part == 2 && s[i - 1] == '.' && s[i - 2] == '.');
            if (part == 0 || dots) {
                sb_puts(why, "a folder in the bucket is named by parts between single `/`, none `.` or `..`");
                return false;
            }
            part = 0;
        } else if ((c >= 'A' && c <= 'Z') || lower_alnum(c) || c == '.' || c == '_' || c == '-') {
            part++;
        } else {
            sb_puts(why, "a folder in the bucket may hold letters, digits, `.`, `_`, `-` and `/`");
            return false;
        }
    }
    *len = n;
    return true;
}

bool sky_store_parse(const char *uri, sky_store *out, strbuf *why)
{
    const char *bucket = NULL;
    size_t max = 0;
    for (size_t i = 0; i < sizeof schemes / sizeof schemes[0] && !bucket; i++) {
        size_t n = strlen(schemes[i].prefix);
        if (strncmp(uri, schemes[i].prefix, n) == 0) {
            bucket = uri + n;
            max = schemes[i].max;
        }
    }
    const char *slash;
    if (bucket) {
        slash = strchr(bucket, '/');
        size_t n = slash ? (size_t)(slash - bucket) : strlen(bucket);
        if (!name_ok(bucket, n, 3, max, ".-_")) {
            sb_printf(why, "not a bucket name: 3 to %zu lower-case letters, digits, `.`, `-` and `_`", max);
            return false;
        }
    } else if (strncmp(uri, AZURE_PREFIX, strlen(AZURE_PREFIX)) == 0) {
        const char *account = uri + strlen(AZURE_PREFIX), *host = strstr(account, AZURE_HOST);
        const char *container = host ? host + strlen(AZURE_HOST) : NULL;
        slash = container ? strchr(container, '/') : NULL;
        size_t n = container ? (slash ? (size_t)(slash - container) : strlen(container)) : 0;
        if (!host || !name_ok(account, (size_t)(host - account), 3, 24, "") || !name_ok(container, n, 3, 63, "-")) {
            sb_puts(why, "Azure's form is https://ACCOUNT.blob.core.windows.net/CONTAINER");
            return false;
        }
    } else {
        const char *sep = strstr(uri, "://");
        if (sep)
            sb_printf(why, "SkyPilot mounts no `%.*s://` bucket with MOUNT_CACHED", (int)(sep - uri), uri);
        else
            sb_puts(why, "not a bucket URI");
        return false;
    }
    out->source_len = slash ? (size_t)(slash - uri) : strlen(uri);
    out->path = slash ? slash + 1 : uri + strlen(uri);
    out->path_len = 0;
    return !*out->path || path_ok(out->path, &out->path_len, why);
}

void sky_store_forms(strbuf *out)
{
    size_t n = sizeof schemes / sizeof schemes[0];
    sb_printf(out, "`%sBUCKET/PATH` (or ", schemes[0].prefix);
    for (size_t i = 1; i < n; i++)
        sb_printf(out, "%s`%s`", i == 1 ? "" : i + 1 == n ? " or " : ", ", schemes[i].prefix);
    sb_puts(out, "), or `" AZURE_PREFIX "ACCOUNT" AZURE_HOST "CONTAINER/PATH`");
}
