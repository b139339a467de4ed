#include "images.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The tag: after the last ':' that follows the last '/' (a registry port
   such as host:5000/x is not a tag). */
static const char *image_tag(const char *image)
{
    const char *slash = strrchr(image, '/');
    const char *colon = strrchr(slash ? slash : image, ':');
    return colon ? colon + 1 : "";
}

static bool contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

bool image_is_cuda(const char *image)
{
    const char *tag = image_tag(image);
    size_t n = strlen(tag);
    return contains(image, "nvidia/cuda") || strncmp(image, "nvcr.io/nvidia/", 15) == 0 || contains(tag, "cuda") ||
           (n >= 4 && strcmp(tag + n - 4, "-gpu") == 0);
}

static bool parse_version(const char *s, int *major, int *minor)
{
    if (!isdigit((unsigned char)s[0]))
        return false;
    char *end;
    long ma = strtol(s, &end, 10);
    if (*end != '.' || !isdigit((unsigned char)end[1]))
        return false;
    long mi = strtol(end + 1, &end, 10);
    if (ma > 1000 || mi > 1000)
        return false;
    *major = (int)ma;
    *minor = (int)mi;
    return true;
}

bool image_cuda_version(const char *image, int *major, int *minor)
{
    const char *tag = image_tag(image);
    if (contains(image, "nvidia/cuda:") && parse_version(tag, major, minor))
        return true;
    for (const char *p = strstr(tag, "cuda"); p; p = strstr(p + 1, "cuda")) {
        const char *v = p + 4;
        if (*v == '-' || *v == '_')
            v++;
        if (parse_version(v, major, minor))
            return true;
    }
    return false;
}

const char *image_default_build(arena *a, const char *parent)
{
    const char *tag = image_tag(parent);
    const char *r = strstr(tag, "-runtime");
    if (!r)
        return parent;
    size_t pre = (size_t)(r - parent), n = strlen(parent);
    char *out = arena_alloc(a, n + 8);
    memcpy(out, parent, pre);
    memcpy(out + pre, "-devel", 6);
    memcpy(out + pre + 6, r + 8, n - pre - 8 + 1);
    return out;
}
