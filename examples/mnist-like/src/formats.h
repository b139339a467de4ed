/* formats.h - the files this example's steps exchange: the `dataset` and
 * `model` artifacts, and the seeded random numbers the steps share.
 *
 * Both formats are little-endian, whatever the host, and are described in
 * ../README.md. Readers check the magic, the version, every dimension and
 * the exact file size, and name the file in their error messages.
 */
#ifndef MNIST_FORMATS_H
#define MNIST_FORMATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MNIST_FORMAT_VERSION 1u
#define MNIST_HEADER_SIZE 24u /* both formats: magic, version, 4 x u32 */

/* Limits the readers enforce, so that a corrupt header cannot ask for
   gigabytes. */
#define MNIST_MAX_ROWS 1000000u
#define MNIST_MAX_SIDE 64u
#define MNIST_MAX_CLASSES 256u
#define MNIST_MAX_HIDDEN 4096u

/* "MNDS": n_rows labels (u8), then n_rows * width * height pixels (f32). */
typedef struct mnist_dataset {
    uint32_t n_rows, width, height, n_classes;
    uint8_t *labels;
    float *pixels; /* row-major, one image after the other */
} mnist_dataset;

/* "MNMD": an MLP n_in -> n_hidden (ReLU) -> n_out (softmax). The weights
   are one block of mnist_model_param_count() floats, in this order:
   w1[n_hidden][n_in], b1[n_hidden], w2[n_out][n_hidden], b2[n_out]. */
typedef struct mnist_model {
    uint32_t n_in, n_hidden, n_out;
    float *params;
    float *w1, *b1, *w2, *b2; /* views into params */
} mnist_model;

static inline size_t mnist_dataset_features(const mnist_dataset *ds)
{
    return (size_t)ds->width * ds->height;
}

static inline size_t mnist_model_param_count(uint32_t n_in, uint32_t n_hidden, uint32_t n_out)
{
    return (size_t)n_hidden * n_in + n_hidden + (size_t)n_out * n_hidden + n_out;
}

/* Allocates a dataset of n_rows zeroed images. 0, or -1 with a message in err. */
int mnist_dataset_alloc(mnist_dataset *ds, uint32_t n_rows, uint32_t width, uint32_t height,
                        uint32_t n_classes, char *err, size_t errsz);
void mnist_dataset_free(mnist_dataset *ds);
/* Writes ds to f (not closed). name is for messages. 0, or -1 with a message. */
int mnist_dataset_write(const mnist_dataset *ds, FILE *f, const char *name, char *err,
                        size_t errsz);
/* Reads and validates a dataset file. 0, or -1 with a message naming path. */
int mnist_dataset_read(const char *path, mnist_dataset *ds, char *err, size_t errsz);

/* Allocates a model with zeroed weights. 0, or -1 with a message in err. */
int mnist_model_alloc(mnist_model *m, uint32_t n_in, uint32_t n_hidden, uint32_t n_out, char *err,
                      size_t errsz);
void mnist_model_free(mnist_model *m);
int mnist_model_write(const mnist_model *m, FILE *f, const char *name, char *err, size_t errsz);
int mnist_model_read(const char *path, mnist_model *m, char *err, size_t errsz);

/* Seeded random numbers (splitmix64): the same bits on every machine. */
typedef struct mnist_rng {
    uint64_t state;
} mnist_rng;

/* A generator for one purpose (stream) of one seed: different streams of
   the same seed are independent. */
static inline mnist_rng mnist_rng_make(int64_t seed, uint64_t stream)
{
    mnist_rng r = {(uint64_t)seed * 0x9E3779B97F4A7C15ull ^ (stream * 0xD1B54A32D192ED03ull)};
    return r;
}

static inline uint64_t mnist_rng_next(mnist_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double mnist_rng_uniform(mnist_rng *r)
{
    return (double)(mnist_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n); n > 0. The modulo bias is below 2^-32 for the n used here. */
static inline uint32_t mnist_rng_below(mnist_rng *r, uint32_t n)
{
    return (uint32_t)(mnist_rng_next(r) % n);
}

/* Approximately standard normal: the sum of 12 uniforms, minus 6. Plain
   additions, so the result does not depend on the C library's log or cos. */
static inline double mnist_rng_normal(mnist_rng *r)
{
    double s = 0.0;
    for (int i = 0; i < 12; i++)
        s += mnist_rng_uniform(r);
    return s - 6.0;
}

#endif /* MNIST_FORMATS_H */
