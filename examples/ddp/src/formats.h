/* formats.h - the files this example's steps exchange: the `dataset` and
 * `model` artifacts, and the seeded random numbers the steps share.
 *
 * Both formats are little-endian, whatever the host, and are described in
 * ../README.md. Readers check the magic, the version, every dimension and
 * the exact file size, and name the file in their error messages. C, and
 * usable from the CUDA step (train_gpu.cu) too.
 */
#ifndef DDP_FORMATS_H
#define DDP_FORMATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DDP_FORMAT_VERSION 1u
#define DDP_HEADER_SIZE 24u /* both formats: magic, version, 4 x u32 */

/* Limits the readers enforce, so that a corrupt header cannot ask for
   gigabytes. */
#define DDP_MAX_ROWS 1000000u
#define DDP_MAX_FEATURES 1024u
#define DDP_MAX_CLASSES 256u
#define DDP_MAX_HIDDEN 4096u
#define DDP_MAX_RANKS 4096u

/* "DDPD": n_rows labels (u8), then n_rows * n_features features (f32). */
typedef struct ddp_dataset {
    uint32_t n_rows, n_features, n_classes;
    uint8_t *labels;
    float *x; /* row-major */
} ddp_dataset;

/* "DDPM": an MLP n_in -> n_hidden (tanh) -> n_out (softmax), and the number
   of ranks that trained it. The weights are one block of
   ddp_param_count() floats, in this order: w1[n_hidden][n_in],
   b1[n_hidden], w2[n_out][n_hidden], b2[n_out]. */
typedef struct ddp_model {
    uint32_t n_in, n_hidden, n_out, ranks;
    float *params;
    float *w1, *b1, *w2, *b2; /* views into params */
} ddp_model;

static inline size_t ddp_param_count(uint32_t n_in, uint32_t n_hidden, uint32_t n_out)
{
    return (size_t)n_hidden * n_in + n_hidden + (size_t)n_out * n_hidden + n_out;
}

/* Allocates a dataset of n_rows zeroed rows. 0, or -1 with a message in err. */
int ddp_dataset_alloc(ddp_dataset *ds, uint32_t n_rows, uint32_t n_features, uint32_t n_classes,
                      char *err, size_t errsz);
void ddp_dataset_free(ddp_dataset *ds);
/* Writes ds to f (not closed). name is for messages. 0, or -1 with a message. */
int ddp_dataset_write(const ddp_dataset *ds, FILE *f, const char *name, char *err, size_t errsz);
/* Reads and validates a dataset file. 0, or -1 with a message naming path. */
int ddp_dataset_read(const char *path, ddp_dataset *ds, char *err, size_t errsz);

/* Allocates a model with zeroed weights. 0, or -1 with a message in err. */
int ddp_model_alloc(ddp_model *m, uint32_t n_in, uint32_t n_hidden, uint32_t n_out, char *err,
                    size_t errsz);
void ddp_model_free(ddp_model *m);
int ddp_model_write(const ddp_model *m, FILE *f, const char *name, char *err, size_t errsz);
int ddp_model_read(const char *path, ddp_model *m, char *err, size_t errsz);

/* Seeded random numbers (splitmix64): the same bits on every machine. */
typedef struct ddp_rng {
    uint64_t state;
} ddp_rng;

/* A generator for one purpose (stream) of one seed. */
static inline ddp_rng ddp_rng_make(int64_t seed, uint64_t stream)
{
    ddp_rng r = {(uint64_t)seed * 0x9E3779B97F4A7C15ull ^ (stream * 0xD1B54A32D192ED03ull)};
    return r;
}

static inline uint64_t ddp_rng_next(ddp_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double ddp_rng_uniform(ddp_rng *r)
{
    return (double)(ddp_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n); n > 0. */
static inline uint32_t ddp_rng_below(ddp_rng *r, uint32_t n)
{
    return (uint32_t)(ddp_rng_next(r) % n);
}

/* Approximately standard normal: the sum of 12 uniforms, minus 6 (plain
   additions: no dependence on the C library's log or cos). */
static inline double ddp_rng_normal(ddp_rng *r)
{
    double s = 0.0;
    for (int i = 0; i < 12; i++)
        s += ddp_rng_uniform(r);
    return s - 6.0;
}

/* The visiting order of one epoch: every rank shuffles with the same
   stream, so all ranks agree on the global minibatches. */
static inline void ddp_shuffle(uint32_t *order, uint32_t n, ddp_rng *rng)
{
    if (n < 2)
        return;
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = ddp_rng_below(rng, i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

#ifdef __cplusplus
}
#endif

#endif /* DDP_FORMATS_H */
