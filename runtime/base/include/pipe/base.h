/* The base library (pipe_base): what pipec and the runtime both need, so that
   the two sides compute digests, read and write sizes and durations, and
   suggest names the same way. Built into pipec and into libpipe; not a
   stable API for pipeline code. */
#ifndef PIPE_BASE_H
#define PIPE_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors and files ---- */

/* printf into a caller-given buffer; never overflows, always terminates
   (nothing happens when err is NULL or errsize is 0). */
void pipe_errf(char *err, size_t errsize, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A whole file into a malloc'ed NUL-terminated buffer (*len, when len is not
   NULL, gets its length). PIPE_ENOENT or PIPE_EIO with a message naming the
   file, PIPE_ENOMEM. */
int pipe_read_file(const char *path, char **data, size_t *len, char *err, size_t errsize);
/* The same, refusing a file of more than max bytes (or one that never
   ends, as /dev/zero does) with PIPE_EFORMAT: "FILE is larger than N
   bytes". */
int pipe_read_file_max(const char *path, size_t max, char **data, size_t *len, char *err, size_t errsize);
/* The last max bytes of a file at most (a log's tail), NUL-terminated. */
int pipe_read_file_tail(const char *path, size_t max, char **data, size_t *len, char *err, size_t errsize);

/* ---- SHA-256 (FIPS 180-4) ---- */

/* step.yaml records the digest of every input and output, cache keys are
   digests, and pipec names images and jobs after them. */
#define PIPE_SHA256_SIZE 32
#define PIPE_SHA256_HEX_SIZE 65 /* 64 lower-case hex digits and a NUL */

/* Computed by OpenSSL's libcrypto (EVP: SHA-NI or AVX2 where the CPU has
   them, about 4x the portable code) once more than PIPE_SHA256_SMALL bytes
   come; up to that the bytes wait in the state and the built-in FIPS 180-4
   code hashes them, so that a cache key or a name does not pay libcrypto's
   first-use set-up (about a millisecond a process). The built-in code also
   serves when libcrypto cannot give a context (out of memory): these calls
   cannot fail, so every digest is right either way. */
#define PIPE_SHA256_SMALL 1024
typedef struct pipe_sha256 {
    int mode;  /* 0: bytes wait in small; 1: libcrypto (evp); 2: built-in */
    void *evp; /* libcrypto's EVP_MD_CTX, owned until final or discard */
    unsigned char small[PIPE_SHA256_SMALL];
    size_t nsmall;
    uint32_t h[8]; /* the built-in code's state */
    uint64_t length;
    unsigned char block[64];
    size_t used;
} pipe_sha256;

void pipe_sha256_init(pipe_sha256 *s);
void pipe_sha256_update(pipe_sha256 *s, const void *data, size_t len);
/* Writes the digest and releases what init took. */
void pipe_sha256_final(pipe_sha256 *s, unsigned char digest[PIPE_SHA256_SIZE]);
/* Releases an initialised state without a digest (an error path). */
void pipe_sha256_discard(pipe_sha256 *s);
/* init with the built-in code whatever libcrypto offers (tests compare). */
void pipe_sha256_init_builtin(pipe_sha256 *s);
/* Both at once: the hex digest of len bytes. */
void pipe_sha256_hex_of(const void *data, size_t len, char hex[PIPE_SHA256_HEX_SIZE]);
void pipe_sha256_to_hex(const unsigned char digest[PIPE_SHA256_SIZE], char hex[PIPE_SHA256_HEX_SIZE]);
/* The hex digest of what fd (open for reading, at its start) holds, read
   in blocks on this thread; PIPE_EIO when it cannot be read, with a message
   naming path. Closes fd. */
int pipe_sha256_fd(int fd, const char *path, char hex[PIPE_SHA256_HEX_SIZE], char *err, size_t errsize);
/* The hex digest of a file's bytes, read in blocks. PIPE_ENOENT when it does
   not exist, PIPE_EIO when it cannot be read, with a message naming it. */
int pipe_sha256_file(const char *path, char hex[PIPE_SHA256_HEX_SIZE], char *err, size_t errsize);

/* ---- sizes and durations (docs/language.md) ---- */

typedef enum { PIPE_UNIT_OK = 0, PIPE_UNIT_MALFORMED, PIPE_UNIT_OVERFLOW } pipe_unit_status;

/* pipe_parse_size flag: also a plain byte count, "16000000000" or
   "16000000000B" (PIPE_LOCAL_MEMORY, cgroup memory.max). .pipe files never
   set it. */
#define PIPE_SIZE_BYTES 1u

/*
 * Sizes: one or more decimal digits (no sign, spaces, fraction or exponent;
 * leading zeros are allowed) followed at once by exactly one of
 * KB MB GB TB PB (powers of 1000) or KiB MiB GiB TiB PiB (powers of 1024).
 * Units are case-sensitive: "16gb", "16G" and "16Gb" are malformed.
 * s need not be NUL-terminated; only len bytes are read (s may be NULL when
 * len is 0). On PIPE_UNIT_OK *bytes holds the value; otherwise *bytes is
 * left untouched. PIPE_UNIT_OVERFLOW when the digits or the product exceed
 * UINT64_MAX; PIPE_UNIT_MALFORMED for everything else that is not a size
 * (checked first, so "99999999999999999999XB" is malformed, not an overflow).
 */
pipe_unit_status pipe_parse_size(const char *s, size_t len, unsigned flags, uint64_t *bytes);

/*
 * Durations: digits as for sizes, followed at once by one of ms s m h d
 * (case-sensitive). The result is in milliseconds; same error rules as
 * pipe_parse_size. Compound forms such as "1h30m" are malformed.
 */
pipe_unit_status pipe_parse_duration(const char *s, size_t len, uint64_t *ms);

/*
 * The canonical text of a size, as bundles, `pipec fmt` and `describe` write
 * it. The output always parses back to the same value, except for a byte
 * count that no unit divides (which pipe_parse_size only produces with
 * PIPE_SIZE_BYTES).
 *
 * Rule: take the largest decimal unit that divides exactly (KB..PB) and the
 * largest binary unit that divides exactly (KiB..PiB). If only one kind
 * divides, use it; if both do, use the bigger step (K=1 .. P=5), and the
 * decimal unit when the steps are equal.
 *   16000000000 -> "16GB"     536870912 -> "512MiB"   1024000 -> "1024KB"
 *   1000 * 2^40 -> "1000TiB"  0 -> "0KB"
 * A value neither 1000 nor 1024 divides is written as "<n>B" (e.g. "1500B").
 * Returns what snprintf returns: the length the full text needs; the buffer
 * is NUL-terminated whenever n > 0.
 */
int pipe_format_size(uint64_t bytes, char *buf, size_t n);

/*
 * Largest of d h m s ms that divides exactly: 7200000 -> "2h", 90000 -> "90s",
 * 500 -> "500ms", 0 -> "0s". Always parses back with pipe_parse_duration.
 * Returns as snprintf does.
 */
int pipe_format_duration(uint64_t ms, char *buf, size_t n);

/* ---- numbers ---- */

/* The shortest %.Ng (N <= max_precision) that reads back as v, or
   %.{max_precision}g; whole numbers below 1e16 without an exponent
   ("1000", not "1e+03"); nan, inf, -inf. */
void pipe_format_number(double v, int max_precision, char *buf, size_t size);
/* pipe_format_number at full precision (17): the canonical text of a double.
   Parameters, step records, metrics and pipec's manifest all use it, so the
   same value is always the same text. */
void pipe_format_double(double v, char *buf, size_t size);
/* Whether s is one or more decimal digits and nothing else (an index, a
   count, a number of milliseconds as a manifest writes it). */
bool pipe_all_digits(const char *s);

/* ---- text: UTF-8 and JSON strings ---- */

/* Length of the well-formed UTF-8 sequence at s (1..4), or 0 when s[0..n)
   does not start with one (an overlong form, a surrogate, past U+10FFFF). */
size_t pipe_utf8_valid_prefix(const char *s, size_t n);

/* Where text goes: appends n bytes of s to sink (pipec's strbuf, the
   runtime's pipe_textbuf). */
typedef void pipe_append_fn(void *sink, const char *s, size_t n);

/* pipe_json_string flags: pipec's JSON (diagnostics, SARIF, a Dockerfile's
   exec form) sets both, the runtime's (`runs --json`, `show --json`)
   neither. */
#define PIPE_JSON_ESCAPE_CR 1u /* a carriage return as `\r`, not `\u000d` */
#define PIPE_JSON_FIX_UTF8 2u  /* each byte that is not well-formed UTF-8 as `\ufffd`,
                                  not as it is */

/* s as a JSON string, quotes included: `\"`, `\\`, `\n`, `\t`, and
   `\u00xx` for the other bytes below 0x20 and 0x7f; NULL as `null`. */
void pipe_json_string(const char *s, unsigned flags, pipe_append_fn *append, void *sink);

/* ---- "did you mean" ---- */

/* Longest input (in bytes) for which pipe_edit_distance computes the exact value. */
#define PIPE_EDIT_DISTANCE_MAX_LEN 256

/*
 * Damerau-Levenshtein distance in its optimal-string-alignment form: insert,
 * delete, substitute and swap two adjacent bytes each cost 1 ("epcohs" is 1
 * from "epochs"). Byte-wise and case-sensitive; uses O(PIPE_EDIT_DISTANCE_MAX_LEN)
 * stack, no heap. When either string is longer than PIPE_EDIT_DISTANCE_MAX_LEN
 * the result is not computed: it returns 0 for equal strings and otherwise
 * max(strlen(a), strlen(b)), an upper bound that is far above any threshold.
 */
size_t pipe_edit_distance(const char *a, const char *b);

/*
 * The candidate closest to name, or NULL when none is close enough. A
 * candidate qualifies when it equals name ignoring ASCII case (so "GPU" finds
 * "gpu"), or when pipe_edit_distance is at most max_distance. Case-insensitive
 * matches rank before all others; then smaller distance wins; ties go to the
 * first in array order. NULL entries are skipped; an empty name suggests
 * nothing.
 */
const char *pipe_closest_name(const char *name, const char *const *candidates, size_t n, size_t max_distance);

/*
 * The "did you mean" of pipec's diagnostics and of the runtime's options:
 * pipe_closest_name within a third of name's length (at least 1 edit), else
 * the single candidate of 3 characters or more that name starts with or that
 * starts with name; NULL when there is none or two prefixes fit.
 */
const char *pipe_suggest_name(const char *name, const char *const *candidates, size_t n);

#ifdef __cplusplus
}
#endif

#endif
