/* libcrypto through dlopen (crypto_lib.h): the file the build linked
   against (PIPE_LIBCRYPTO_PATH), else the sonames of OpenSSL 3 and 1.1. */
#include "crypto_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#ifndef PIPE_LIBCRYPTO_PATH
#define PIPE_LIBCRYPTO_PATH "libcrypto.so"
#endif

static pipe_crypto_lib lib;
static const pipe_crypto_lib *loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* dlsym into a function pointer through memcpy (ISO C has no cast between
   object and function pointers); false when missing. */
static int sym(void *h, const char *name, void *fn, size_t size)
{
    void *p = dlsym(h, name);
    if (p)
        memcpy(fn, &p, size);
    return p != NULL;
}

#define SYM(h, field, name) sym(h, name, &lib.field, sizeof lib.field)

static void load(void)
{
    static const char *const names[] = {PIPE_LIBCRYPTO_PATH, "libcrypto.so.3", "libcrypto.so.1.1"};
    void *h = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (h && SYM(h, ctx_new, "EVP_MD_CTX_new") && SYM(h, ctx_free, "EVP_MD_CTX_free") &&
        SYM(h, sha256, "EVP_sha256") && SYM(h, init, "EVP_DigestInit_ex") && SYM(h, update, "EVP_DigestUpdate") &&
        SYM(h, final, "EVP_DigestFinal_ex"))
        loaded = &lib;
}

const pipe_crypto_lib *pipe_crypto_lib_get(void)
{
    pthread_once(&once, load);
    return loaded;
}
