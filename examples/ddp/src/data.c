/* data.c - the data set generator and the model checks (data.h). */
#include "data.h"
#include "mlp.h"

#include <math.h>
#include <stdlib.h>

#define BLOBS_PER_CLASS 2

int ddp_generate(ddp_dataset *ds, int64_t seed, int64_t n_rows, int64_t features, int64_t classes,
                 double noise, char *err, size_t errsz)
{
    ddp_rng centers_rng = ddp_rng_make(seed, 0); /* stream 0: the blob centers */
    ddp_rng rows_rng = ddp_rng_make(seed, 1);    /* stream 1: the rows */
    float *centers;
    uint32_t n_blobs;

    if (n_rows < 1 || n_rows > (int64_t)DDP_MAX_ROWS) {
        snprintf(err, errsz, "n_rows = %lld: need 1 to %u", (long long)n_rows, DDP_MAX_ROWS);
        return -1;
    }
    if (features < 1 || features > (int64_t)DDP_MAX_FEATURES) {
        snprintf(err, errsz, "features = %lld: need 1 to %u", (long long)features,
                 DDP_MAX_FEATURES);
        return -1;
    }
    if (classes < 2 || classes > (int64_t)DDP_MAX_CLASSES) {
        snprintf(err, errsz, "classes = %lld: need 2 to %u", (long long)classes, DDP_MAX_CLASSES);
        return -1;
    }
    if (!(noise >= 0.0 && noise <= 100.0)) {
        snprintf(err, errsz, "noise = %g: need 0 to 100", noise);
        return -1;
    }
    if (ddp_dataset_alloc(ds, (uint32_t)n_rows, (uint32_t)features, (uint32_t)classes, err,
                          errsz) != 0)
        return -1;
    n_blobs = ds->n_classes * BLOBS_PER_CLASS;
    if (!(centers = malloc((size_t)n_blobs * ds->n_features * sizeof *centers))) {
        ddp_dataset_free(ds);
        snprintf(err, errsz, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < (size_t)n_blobs * ds->n_features; i++)
        centers[i] = (float)ddp_rng_normal(&centers_rng);
    for (uint32_t r = 0; r < ds->n_rows; r++) {
        uint32_t blob = ddp_rng_below(&rows_rng, n_blobs);
        const float *c = centers + (size_t)blob * ds->n_features;
        float *x = ds->x + (size_t)r * ds->n_features;
        ds->labels[r] = (uint8_t)(blob % ds->n_classes);
        for (uint32_t i = 0; i < ds->n_features; i++)
            x[i] = c[i] + (float)(noise * ddp_rng_normal(&rows_rng));
    }
    free(centers);
    return 0;
}

int ddp_score(const ddp_model *m, const ddp_model *ref, const ddp_dataset *ds, double *accuracy,
              double *agreement)
{
    float *scratch;
    uint64_t right = 0, same = 0;
    const size_t part = (size_t)DDP_MAX_HIDDEN + DDP_MAX_CLASSES;

    if (m->n_in != ds->n_features || m->n_out != ds->n_classes ||
        (ref && (ref->n_in != ds->n_features || ref->n_out != ds->n_classes)))
        return -1;
    if (!(scratch = malloc(2 * part * sizeof *scratch)))
        return -1;
    for (uint32_t r = 0; r < ds->n_rows; r++) {
        const float *x = ds->x + (size_t)r * ds->n_features;
        uint32_t guess = mlp_forward(m, x, scratch, scratch + DDP_MAX_HIDDEN);
        right += guess == ds->labels[r];
        if (ref)
            same += guess == mlp_forward(ref, x, scratch + part, scratch + part + DDP_MAX_HIDDEN);
    }
    free(scratch);
    *accuracy = (double)right / ds->n_rows;
    if (agreement)
        *agreement = ref ? (double)same / ds->n_rows : 1.0;
    return 0;
}

double ddp_max_abs_diff(const ddp_model *a, const ddp_model *b)
{
    double max = 0.0;
    if (a->n_in != b->n_in || a->n_hidden != b->n_hidden || a->n_out != b->n_out)
        return -1.0;
    for (size_t i = 0; i < ddp_param_count(a->n_in, a->n_hidden, a->n_out); i++) {
        double d = fabs((double)a->params[i] - (double)b->params[i]);
        if (d > max)
            max = d;
    }
    return max;
}
