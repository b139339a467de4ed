/* dataset.h - the on-disk form of this example's `dataset` artifact.
 *
 * A fixed header, then n_rows int32 labels, then n_rows * n_features float
 * features (row-major), all in the host's byte order. Header-only so that
 * every step that reads or writes a dataset can include it.
 */
#ifndef EXAMPLE_DATASET_H
#define EXAMPLE_DATASET_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATASET_MAGIC 0x31534450u /* "PDS1" */
#define DATASET_MAX_FEATURES 65536u
#define DATASET_MAX_CLASSES 1024u

typedef struct dataset_header {
    uint32_t magic;
    uint32_t n_features;
    uint32_t n_classes;
    uint32_t reserved;
    uint64_t n_rows;
} dataset_header;

typedef struct dataset {
    uint64_t n_rows;
    uint32_t n_features;
    uint32_t n_classes;
    int32_t *labels;  /* n_rows, each in [0, n_classes) */
    float *features;  /* n_rows * n_features */
} dataset;

static inline void dataset_free(dataset *ds)
{
    free(ds->labels);
    free(ds->features);
    memset(ds, 0, sizeof *ds);
}

/* Writes ds to f. Returns 0, or -1 on a write error. */
static inline int dataset_write(FILE *f, const dataset *ds)
{
    dataset_header h = {DATASET_MAGIC, ds->n_features, ds->n_classes, 0, ds->n_rows};
    size_t n = (size_t)ds->n_rows;
    if (fwrite(&h, sizeof h, 1, f) != 1)
        return -1;
    if (n > 0 && fwrite(ds->labels, sizeof *ds->labels, n, f) != n)
        return -1;
    if (n > 0 && fwrite(ds->features, sizeof *ds->features * ds->n_features, n, f) != n)
        return -1;
    return 0;
}

/* Reads the dataset at path into ds. Returns 0, or -1 with a message in err. */
static inline int dataset_read(const char *path, dataset *ds, char *err, size_t errsz)
{
    dataset_header h;
    size_t n;
    FILE *f = fopen(path, "rb");

    memset(ds, 0, sizeof *ds);
    if (!f) {
        snprintf(err, errsz, "cannot open %s", path);
        return -1;
    }
    if (fread(&h, sizeof h, 1, f) != 1 || h.magic != DATASET_MAGIC) {
        snprintf(err, errsz, "%s: not a dataset", path);
        goto fail;
    }
    if (h.n_features == 0 || h.n_features > DATASET_MAX_FEATURES || h.n_classes == 0 ||
        h.n_classes > DATASET_MAX_CLASSES || h.n_rows > SIZE_MAX / sizeof(float) / h.n_features) {
        snprintf(err, errsz, "%s: bad header", path);
        goto fail;
    }
    n = (size_t)h.n_rows;
    ds->n_rows = h.n_rows;
    ds->n_features = h.n_features;
    ds->n_classes = h.n_classes;
    ds->labels = malloc(n ? n * sizeof *ds->labels : 1);
    ds->features = malloc(n ? n * h.n_features * sizeof *ds->features : 1);
    if (!ds->labels || !ds->features) {
        snprintf(err, errsz, "%s: out of memory for %zu rows", path, n);
        goto fail;
    }
    if (n > 0 && (fread(ds->labels, sizeof *ds->labels, n, f) != n ||
                  fread(ds->features, sizeof *ds->features * h.n_features, n, f) != n)) {
        snprintf(err, errsz, "%s: truncated", path);
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        if (ds->labels[i] < 0 || (uint32_t)ds->labels[i] >= h.n_classes) {
            snprintf(err, errsz, "%s: row %zu: label %d out of range", path, i, (int)ds->labels[i]);
            goto fail;
        }
    }
    fclose(f);
    return 0;
fail:
    fclose(f);
    dataset_free(ds);
    return -1;
}

#endif /* EXAMPLE_DATASET_H */
