/* The libcrypto (OpenSSL) functions SHA-256 uses (sha256.c), loaded with
   dlopen on the first digest larger than 1 KiB. Linked, libcrypto was
   loaded by every start of pipec and of every bundle, most of which never
   digest that much (cache keys and names stay on the built-in code): half
   a millisecond a start, and a dearer fork of the supervisor for each rank
   (docs/performance.md, "Launch"). */
#ifndef PIPE_CRYPTO_LIB_H
#define PIPE_CRYPTO_LIB_H

#include <openssl/evp.h>

typedef struct pipe_crypto_lib {
    EVP_MD_CTX *(*ctx_new)(void);
    void (*ctx_free)(EVP_MD_CTX *);
    const EVP_MD *(*sha256)(void);
    int (*init)(EVP_MD_CTX *, const EVP_MD *, ENGINE *);
    int (*update)(EVP_MD_CTX *, const void *, size_t);
    int (*final)(EVP_MD_CTX *, unsigned char *, unsigned int *);
} pipe_crypto_lib;

/* The functions, loaded once per process; NULL when libcrypto cannot be
   loaded (the built-in code serves then). */
const pipe_crypto_lib *pipe_crypto_lib_get(void);

#endif
