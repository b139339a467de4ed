/* SHA-256 (runtime/base/src/sha256.c) against the FIPS 180-4 and NIST vectors, including
   one million 'a's, every split of a message, the padding boundaries, and
   the streaming file digest; both through libcrypto (EVP) and through the
   built-in fallback. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pipe/base.h"
#include "pipe/error.h"

/* Which implementation the streaming checks start: libcrypto or built-in. */
static bool builtin;

static void start(pipe_sha256 *s)
{
    if (builtin)
        pipe_sha256_init_builtin(s);
    else
        pipe_sha256_init(s);
}

static void hex_of(const void *data, size_t len, char hex[PIPE_SHA256_HEX_SIZE])
{
    pipe_sha256 s;
    unsigned char d[PIPE_SHA256_SIZE];
    start(&s);
    pipe_sha256_update(&s, data, len);
    pipe_sha256_final(&s, d);
    pipe_sha256_to_hex(d, hex);
    if (!builtin) {
        char again[PIPE_SHA256_HEX_SIZE];
        pipe_sha256_hex_of(data, len, again);
        CHECK_STREQ(again, hex);
    }
}

static void check_hex(const char *msg, const char *expected)
{
    char hex[PIPE_SHA256_HEX_SIZE];
    hex_of(msg, strlen(msg), hex);
    CHECK_STREQ(hex, expected);
}

/* The same bytes fed in every possible split give the same digest. */
static void check_splits(const char *msg, const char *expected)
{
    size_t n = strlen(msg);
    for (size_t cut = 0; cut <= n; cut++) {
        pipe_sha256 s;
        unsigned char d[PIPE_SHA256_SIZE];
        char hex[PIPE_SHA256_HEX_SIZE];
        start(&s);
        pipe_sha256_update(&s, msg, cut);
        pipe_sha256_update(&s, msg + cut, n - cut);
        pipe_sha256_final(&s, d);
        pipe_sha256_to_hex(d, hex);
        CHECK_STREQ(hex, expected);
    }
}

static void test_vectors(void)
{
    /* FIPS 180-4 examples and the NIST CAVP short messages. */
    check_hex("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check_hex("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    check_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    check_hex(
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstn"
        "opqrstu",
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    check_hex("The quick brown fox jumps over the lazy dog",
              "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592");
    check_splits("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* Lengths around the padding boundary (55, 56, 63, 64 bytes). */
static void test_padding_boundaries(void)
{
    char buf[65];
    memset(buf, 'a', sizeof buf);
    struct {
        size_t n;
        const char *hex;
    } cases[] = {
        {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
        {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
        {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
        {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char hex[PIPE_SHA256_HEX_SIZE];
        hex_of(buf, cases[i].n, hex);
        CHECK_STREQ(hex, cases[i].hex);
    }
}

static void test_million_a(void)
{
    const char *expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
    pipe_sha256 s;
    unsigned char d[PIPE_SHA256_SIZE];
    char hex[PIPE_SHA256_HEX_SIZE];
    char chunk[1000];
    memset(chunk, 'a', sizeof chunk);
    start(&s);
    for (int i = 0; i < 1000; i++) {
        pipe_sha256_update(&s, chunk, sizeof chunk);
        if (i == 1) /* past PIPE_SHA256_SMALL: libcrypto took over (unless told otherwise) */
            CHECK(builtin ? s.evp == NULL : s.evp != NULL);
    }
    pipe_sha256_final(&s, d);
    pipe_sha256_to_hex(d, hex);
    CHECK_STREQ(hex, expected);

    /* Odd-sized pieces: 7 bytes at a time. */
    start(&s);
    size_t left = 1000000;
    while (left > 0) {
        size_t n = left < 7 ? left : 7;
        pipe_sha256_update(&s, chunk, n);
        left -= n;
    }
    pipe_sha256_final(&s, d);
    pipe_sha256_to_hex(d, hex);
    CHECK_STREQ(hex, expected);
}

static void test_file(void)
{
    const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[4096];
    snprintf(path, sizeof path, "%s/pipe_sha256_XXXXXX", tmpdir);
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    /* 200000 bytes: several read blocks. */
    char *data = malloc(200000);
    CHECK_NOT_NULL(data);
    if (!data) {
        close(fd);
        unlink(path);
        return;
    }
    for (size_t i = 0; i < 200000; i++)
        data[i] = (char)(i * 31 + 7);
    CHECK_EQ_INT(write(fd, data, 200000), 200000);
    close(fd);
    char want[PIPE_SHA256_HEX_SIZE], got[PIPE_SHA256_HEX_SIZE], err[256] = "";
    pipe_sha256_hex_of(data, 200000, want);
    CHECK_EQ_INT(pipe_sha256_file(path, got, err, sizeof err), 0);
    CHECK_STREQ(got, want);
    unlink(path);
    free(data);

    CHECK_EQ_INT(pipe_sha256_file(path, got, err, sizeof err), PIPE_ENOENT);
    CHECK(strstr(err, path) != NULL);
    CHECK_EQ_INT(pipe_sha256_file(tmpdir, got, err, sizeof err), PIPE_EIO); /* a directory */
}

/* A state abandoned on an error path releases its context (ASan's leak
   check sees it otherwise). */
static void test_discard(void)
{
    pipe_sha256 s;
    static char big[PIPE_SHA256_SMALL + 1];
    pipe_sha256_init(&s);
    pipe_sha256_update(&s, big, sizeof big);
    CHECK(s.evp != NULL);
    pipe_sha256_discard(&s);
    CHECK(s.evp == NULL);
}

/* Small messages never start libcrypto; one more byte than waits does, and
   the digest is the same across the boundary. */
static void test_small_and_large(void)
{
    static char buf[2 * PIPE_SHA256_SMALL + 1];
    memset(buf, 'x', sizeof buf);
    for (size_t n = PIPE_SHA256_SMALL - 1; n <= PIPE_SHA256_SMALL + 1; n++) {
        pipe_sha256 s, b;
        unsigned char d1[PIPE_SHA256_SIZE], d2[PIPE_SHA256_SIZE];
        pipe_sha256_init(&s);
        pipe_sha256_update(&s, buf, n / 2);
        pipe_sha256_update(&s, buf, n - n / 2);
        CHECK(n <= PIPE_SHA256_SMALL ? s.evp == NULL : s.evp != NULL);
        pipe_sha256_final(&s, d1);
        pipe_sha256_init_builtin(&b);
        pipe_sha256_update(&b, buf, n);
        pipe_sha256_final(&b, d2);
        CHECK(memcmp(d1, d2, sizeof d1) == 0);
    }
}

int main(void)
{
    for (int pass = 0; pass < 2; pass++) {
        builtin = pass == 1;
        test_vectors();
        test_padding_boundaries();
        test_million_a();
    }
    test_file();
    test_discard();
    test_small_and_large();
    return check_summary();
}
