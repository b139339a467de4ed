/* SHA-256 through OpenSSL's libcrypto (EVP, loaded when first needed:
   crypto_lib.h), with built-in code as FIPS 180-4 defines it (sections
   4.1.2, 4.2.2, 5.1.1, 5.3.3, 6.2) for when libcrypto cannot give a
   context. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "crypto_lib.h"
#include "pipe/base.h"
#include "pipe/error.h"

/* ---- built-in (the fallback) ---- */

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void compress(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 | (uint32_t)p[4 * t + 2] << 8 |
               (uint32_t)p[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

static void builtin_init(pipe_sha256 *s)
{
    static const uint32_t H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, H0, sizeof H0);
    s->length = 0;
    s->used = 0;
}

static void builtin_update(pipe_sha256 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->length += len;
    if (s->used > 0) {
        size_t take = 64 - s->used < len ? 64 - s->used : len;
        memcpy(s->block + s->used, p, take);
        s->used += take;
        p += take;
        len -= take;
        if (s->used < 64)
            return;
        compress(s->h, s->block);
        s->used = 0;
    }
    for (; len >= 64; p += 64, len -= 64)
        compress(s->h, p);
    memcpy(s->block, p, len);
    s->used = len;
}

static void builtin_final(pipe_sha256 *s, unsigned char digest[PIPE_SHA256_SIZE])
{
    uint64_t bits = s->length * 8;
    s->block[s->used++] = 0x80;
    if (s->used > 56) {
        memset(s->block + s->used, 0, 64 - s->used);
        compress(s->h, s->block);
        s->used = 0;
    }
    memset(s->block + s->used, 0, 56 - s->used);
    for (int i = 0; i < 8; i++)
        s->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
    compress(s->h, s->block);
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (unsigned char)(s->h[i] >> 24);
        digest[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        digest[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        digest[4 * i + 3] = (unsigned char)s->h[i];
    }
    memset(s, 0, sizeof *s);
}


/* ---- the API: libcrypto for more than a few bytes ---- */

enum { WAITING = 0, LIBCRYPTO = 1, BUILTIN = 2 };

void pipe_sha256_init_builtin(pipe_sha256 *s)
{
    s->mode = BUILTIN;
    s->evp = NULL;
    s->nsmall = 0;
    builtin_init(s);
}

void pipe_sha256_init(pipe_sha256 *s)
{
    s->mode = WAITING;
    s->evp = NULL;
    s->nsmall = 0;
}

/* Leaves WAITING: libcrypto when it gives a context, else the built-in
   code; the bytes waiting go first. */
static void choose(pipe_sha256 *s, bool large)
{
    const pipe_crypto_lib *cr = large ? pipe_crypto_lib_get() : NULL;
    EVP_MD_CTX *c = cr ? cr->ctx_new() : NULL;
    if (c && cr->init(c, cr->sha256(), NULL) == 1) {
        s->evp = c;
        s->mode = LIBCRYPTO;
        (void)cr->update(c, s->small, s->nsmall);
    } else {
        if (c)
            cr->ctx_free(c);
        builtin_init(s);
        s->mode = BUILTIN;
        builtin_update(s, s->small, s->nsmall);
    }
    s->nsmall = 0;
}

void pipe_sha256_update(pipe_sha256 *s, const void *data, size_t len)
{
    if (len == 0)
        return; /* data may be NULL (an empty buffer): memcpy takes no NULL */
    if (s->mode == WAITING) {
        if (len <= sizeof s->small - s->nsmall) {
            memcpy(s->small + s->nsmall, data, len);
            s->nsmall += len;
            return;
        }
        choose(s, true);
    }
    if (s->mode == BUILTIN)
        builtin_update(s, data, len);
    else /* EVP_DigestUpdate of SHA-256 fails only on a NULL context */
        (void)pipe_crypto_lib_get()->update(s->evp, data, len);
}

void pipe_sha256_final(pipe_sha256 *s, unsigned char digest[PIPE_SHA256_SIZE])
{
    if (s->mode == WAITING)
        choose(s, false);
    if (s->mode == BUILTIN) {
        builtin_final(s, digest);
        return;
    }
    unsigned int n = 0;
    (void)pipe_crypto_lib_get()->final(s->evp, digest, &n);
    pipe_sha256_discard(s);
}

void pipe_sha256_discard(pipe_sha256 *s)
{
    if (s->evp) /* only libcrypto makes one: it is loaded */
        pipe_crypto_lib_get()->ctx_free(s->evp);
    s->evp = NULL;
    s->mode = WAITING;
    s->nsmall = 0;
}

void pipe_sha256_to_hex(const unsigned char digest[PIPE_SHA256_SIZE], char hex[PIPE_SHA256_HEX_SIZE])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < PIPE_SHA256_SIZE; i++) {
        hex[2 * i] = digits[digest[i] >> 4];
        hex[2 * i + 1] = digits[digest[i] & 15];
    }
    hex[2 * PIPE_SHA256_SIZE] = '\0';
}

void pipe_sha256_hex_of(const void *data, size_t len, char hex[PIPE_SHA256_HEX_SIZE])
{
    pipe_sha256 s;
    unsigned char d[PIPE_SHA256_SIZE];
    pipe_sha256_init(&s);
    pipe_sha256_update(&s, data, len);
    pipe_sha256_final(&s, d);
    pipe_sha256_to_hex(d, hex);
}

int pipe_sha256_fd(int fd, const char *path, char hex[PIPE_SHA256_HEX_SIZE], char *err, size_t errsize)
{
    pipe_sha256 s;
    pipe_sha256_init(&s);
    unsigned char buf[1 << 16];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            pipe_errf(err, errsize, "cannot read %s: %s", path, strerror(errno));
            pipe_sha256_discard(&s);
            close(fd);
            return PIPE_EIO;
        }
        if (n == 0)
            break;
        pipe_sha256_update(&s, buf, (size_t)n);
    }
    close(fd);
    unsigned char d[PIPE_SHA256_SIZE];
    pipe_sha256_final(&s, d);
    pipe_sha256_to_hex(d, hex);
    return 0;
}

int pipe_sha256_file(const char *path, char hex[PIPE_SHA256_HEX_SIZE], char *err, size_t errsize)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        pipe_errf(err, errsize, "cannot read %s: %s", path, strerror(errno));
        return errno == ENOENT ? PIPE_ENOENT : PIPE_EIO;
    }
    return pipe_sha256_fd(fd, path, hex, err, errsize);
}
