#include "images.h"

#include <ctype.h>
#include <stdio.h>
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

/* ---- references ---- */

static bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

/* path-component := [a-z0-9]+ ( ( "." | "_" | "__" | "-"+ ) [a-z0-9]+ )* */
static bool valid_path_component(const char *s, size_t n)
{
    size_t i = 0;
    for (;;) {
        size_t run = i;
        while (i < n && is_lower_alnum(s[i]))
            i++;
        if (i == run)
            return false;
        if (i == n)
            return true;
        if (s[i] == '.')
            i++;
        else if (s[i] == '_')
            i += (i + 1 < n && s[i + 1] == '_') ? 2 : 1;
        else if (s[i] == '-')
            while (i < n && s[i] == '-')
                i++;
        else
            return false;
    }
}

/* host[:port], host := components of [A-Za-z0-9-] (no '-' at either end) joined by '.' */
static bool valid_domain(const char *s, size_t n)
{
    const char *colon = memchr(s, ':', n);
    size_t host = colon ? (size_t)(colon - s) : n;
    if (colon) {
        if (colon + 1 == s + n)
            return false;
        for (const char *p = colon + 1; p < s + n; p++)
            if (!isdigit((unsigned char)*p))
                return false;
    }
    size_t start = 0;
    for (size_t i = 0; i <= host; i++) {
        if (i < host && s[i] != '.') {
            if (!isalnum((unsigned char)s[i]) && s[i] != '-')
                return false;
            continue;
        }
        if (i == start || s[start] == '-' || s[i - 1] == '-')
            return false;
        start = i + 1;
    }
    return true;
}

bool image_ref_valid(const char *ref)
{
    size_t len = strlen(ref);
    if (len == 0 || len > 255)
        return false;
    const char *at = strchr(ref, '@');
    size_t name_end = at ? (size_t)(at - ref) : len;
    if (at) {
        const char *alg = at + 1, *colon = strchr(alg, ':');
        if (!colon || colon == alg || !isalpha((unsigned char)*alg))
            return false;
        for (const char *p = alg; p < colon; p++)
            if (!isalnum((unsigned char)*p) && !strchr("+.-_", *p))
                return false;
        size_t hex = strlen(colon + 1);
        if (hex < 32)
            return false;
        for (const char *p = colon + 1; *p; p++)
            if (!isxdigit((unsigned char)*p))
                return false;
    }
    /* The tag: after a ':' that follows the last '/'. */
    size_t slash = 0;
    for (size_t i = 0; i < name_end; i++)
        if (ref[i] == '/')
            slash = i + 1;
    const char *colon = memchr(ref + slash, ':', name_end - slash);
    if (colon) {
        const char *tag = colon + 1;
        size_t n = (size_t)(ref + name_end - tag);
        if (n == 0 || n > 128 || !(isalnum((unsigned char)tag[0]) || tag[0] == '_'))
            return false;
        for (size_t i = 0; i < n; i++)
            if (!isalnum((unsigned char)tag[i]) && !strchr("_.-", tag[i]))
                return false;
        name_end = (size_t)(colon - ref);
    }
    /* The first component is a registry when it looks like a host name. */
    size_t i = 0;
    const char *first_slash = memchr(ref, '/', name_end);
    if (first_slash) {
        size_t n = (size_t)(first_slash - ref);
        bool domain = (n == 9 && strncmp(ref, "localhost", 9) == 0) || memchr(ref, '.', n) || memchr(ref, ':', n);
        for (size_t k = 0; k < n && !domain; k++)
            domain = isupper((unsigned char)ref[k]);
        if (domain) {
            if (!valid_domain(ref, n))
                return false;
            i = n + 1;
        }
    }
    while (i <= name_end) {
        const char *end = memchr(ref + i, '/', name_end - i);
        size_t n = end ? (size_t)(end - (ref + i)) : name_end - i;
        if (!valid_path_component(ref + i, n))
            return false;
        i += n + 1;
    }
    return true;
}

bool image_registry_valid(const char *registry)
{
    size_t n = strlen(registry);
    if (n == 0 || n > 200 || registry[n - 1] == '/' || strchr(registry, '@'))
        return false;
    char ref[256];
    snprintf(ref, sizeof ref, "%s/name:tag", registry);
    return image_ref_valid(ref);
}
