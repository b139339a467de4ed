/* lm_format.h - the on-disk forms of this example's artifacts, shared by
 * its steps (all in the host's byte order):
 *
 *   token_shards  shards_header, (n_shards + 1) uint64 offsets into the
 *                 token array, then n_tokens uint32 token ids
 *   vocabulary    text, one token per line, line N holding token id N
 *   checkpoint    checkpoint_header, the embedding (vocab x dim floats),
 *                 then the output projection (dim x vocab floats)
 */
#ifndef EXAMPLE_LM_FORMAT_H
#define EXAMPLE_LM_FORMAT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHARDS_MAGIC 0x314B4F54u     /* "TOK1" */
#define CHECKPOINT_MAGIC 0x31504B43u /* "CKP1" */
#define LM_MAX_VOCAB (1u << 24)
#define LM_MAX_DIM 4096u

enum { TOKEN_UNK = 0, TOKEN_BOS = 1, TOKEN_EOS = 2, TOKEN_FIRST_WORD = 3 };

typedef struct shards_header {
    uint32_t magic;
    uint32_t vocab_size;
    uint32_t seq_len;
    uint32_t n_shards;
    uint64_t n_tokens;
} shards_header;

typedef struct shards {
    shards_header h;
    uint64_t *offsets; /* n_shards + 1; shard i is tokens[offsets[i] .. offsets[i+1]) */
    uint32_t *tokens;
} shards;

typedef struct checkpoint_header {
    uint32_t magic;
    uint32_t vocab_size;
    uint32_t dim;
    uint32_t reserved;
    uint64_t steps;
} checkpoint_header;

static inline void shards_free(shards *s)
{
    free(s->offsets);
    free(s->tokens);
    memset(s, 0, sizeof *s);
}

/* Reads and checks a token_shards artifact. 0, or -1 with a message in err. */
static inline int shards_read(const char *path, shards *s, char *err, size_t errsz)
{
    FILE *f = fopen(path, "rb");
    shards_header *h = &s->h;

    memset(s, 0, sizeof *s);
    if (!f) {
        snprintf(err, errsz, "cannot open %s", path);
        return -1;
    }
    if (fread(h, sizeof *h, 1, f) != 1 || h->magic != SHARDS_MAGIC || h->vocab_size <= TOKEN_FIRST_WORD ||
        h->vocab_size > LM_MAX_VOCAB || h->seq_len == 0 || h->n_shards == 0 ||
        h->n_tokens > SIZE_MAX / sizeof(uint32_t)) {
        snprintf(err, errsz, "%s: not a token_shards file", path);
        goto fail;
    }
    s->offsets = malloc(((size_t)h->n_shards + 1) * sizeof *s->offsets);
    s->tokens = malloc(h->n_tokens ? (size_t)h->n_tokens * sizeof *s->tokens : 1);
    if (!s->offsets || !s->tokens) {
        snprintf(err, errsz, "%s: out of memory", path);
        goto fail;
    }
    if (fread(s->offsets, sizeof *s->offsets, (size_t)h->n_shards + 1, f) != (size_t)h->n_shards + 1 ||
        fread(s->tokens, sizeof *s->tokens, (size_t)h->n_tokens, f) != (size_t)h->n_tokens) {
        snprintf(err, errsz, "%s: truncated", path);
        goto fail;
    }
    for (uint32_t i = 0; i < h->n_shards; i++) {
        if (s->offsets[i] > s->offsets[i + 1] || s->offsets[i + 1] > h->n_tokens) {
            snprintf(err, errsz, "%s: bad offsets for shard %u", path, i);
            goto fail;
        }
    }
    for (uint64_t i = 0; i < h->n_tokens; i++) {
        if (s->tokens[i] >= h->vocab_size) {
            snprintf(err, errsz, "%s: token %llu out of range", path, (unsigned long long)i);
            goto fail;
        }
    }
    fclose(f);
    return 0;
fail:
    fclose(f);
    shards_free(s);
    return -1;
}

/* Reads a checkpoint; *embed and *head are malloc'ed. 0, or -1 with err. */
static inline int checkpoint_read(const char *path, checkpoint_header *h, float **embed,
                                  float **head, char *err, size_t errsz)
{
    FILE *f = fopen(path, "rb");
    size_t n;

    *embed = *head = NULL;
    if (!f) {
        snprintf(err, errsz, "cannot open %s", path);
        return -1;
    }
    if (fread(h, sizeof *h, 1, f) != 1 || h->magic != CHECKPOINT_MAGIC || h->vocab_size == 0 ||
        h->vocab_size > LM_MAX_VOCAB || h->dim == 0 || h->dim > LM_MAX_DIM) {
        snprintf(err, errsz, "%s: not a checkpoint", path);
        goto fail;
    }
    n = (size_t)h->vocab_size * h->dim;
    *embed = malloc(n * sizeof **embed);
    *head = malloc(n * sizeof **head);
    if (!*embed || !*head || fread(*embed, sizeof **embed, n, f) != n ||
        fread(*head, sizeof **head, n, f) != n) {
        snprintf(err, errsz, "%s: truncated or out of memory", path);
        goto fail;
    }
    fclose(f);
    return 0;
fail:
    fclose(f);
    free(*embed);
    free(*head);
    *embed = *head = NULL;
    return -1;
}

#endif /* EXAMPLE_LM_FORMAT_H */
