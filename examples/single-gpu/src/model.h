/* model.h - the on-disk form of this example's `model` artifact and the
 * CPU prediction used by evaluate.
 *
 * Softmax regression: for each class c a row of n_features weights followed
 * by its bias, so n_classes * (n_features + 1) floats after the header.
 */
#ifndef EXAMPLE_MODEL_H
#define EXAMPLE_MODEL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL_MAGIC 0x314C444Du /* "MDL1" */

typedef struct model_header {
    uint32_t magic;
    uint32_t n_features;
    uint32_t n_classes;
    uint32_t reserved;
} model_header;

static inline size_t model_weight_count(uint32_t n_features, uint32_t n_classes)
{
    return (size_t)n_classes * ((size_t)n_features + 1);
}

static inline int model_write(FILE *f, uint32_t n_features, uint32_t n_classes, const float *w)
{
    model_header h = {MODEL_MAGIC, n_features, n_classes, 0};
    size_t n = model_weight_count(n_features, n_classes);
    return fwrite(&h, sizeof h, 1, f) == 1 && fwrite(w, sizeof *w, n, f) == n ? 0 : -1;
}

/* Reads a model; *w is malloc'ed. Returns 0, or -1 with a message in err. */
static inline int model_read(const char *path, model_header *h, float **w, char *err, size_t errsz)
{
    size_t n;
    FILE *f = fopen(path, "rb");

    *w = NULL;
    if (!f) {
        snprintf(err, errsz, "cannot open %s", path);
        return -1;
    }
    if (fread(h, sizeof *h, 1, f) != 1 || h->magic != MODEL_MAGIC || h->n_features == 0 ||
        h->n_features > 65536 || h->n_classes == 0 || h->n_classes > 1024) {
        snprintf(err, errsz, "%s: not a model", path);
        fclose(f);
        return -1;
    }
    n = model_weight_count(h->n_features, h->n_classes);
    if (!(*w = malloc(n * sizeof **w)) || fread(*w, sizeof **w, n, f) != n) {
        snprintf(err, errsz, "%s: truncated or out of memory", path);
        free(*w);
        *w = NULL;
        fclose(f);
        return -1;
    }
    fclose(f);
    return 0;
}

/* The class with the highest score for the features x. */
static inline uint32_t model_predict(const float *w, uint32_t n_features, uint32_t n_classes,
                                     const float *x)
{
    uint32_t best = 0;
    double best_score = 0.0;

    for (uint32_t c = 0; c < n_classes; c++) {
        const float *wc = w + (size_t)c * (n_features + 1);
        double s = wc[n_features];
        for (uint32_t f = 0; f < n_features; f++)
            s += (double)wc[f] * x[f];
        if (c == 0 || s > best_score) {
            best = c;
            best_score = s;
        }
    }
    return best;
}

#endif /* EXAMPLE_MODEL_H */
