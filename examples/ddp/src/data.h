/* data.h - the pipeline-independent halves of the data and evaluation
 * steps. A step's entry function is compiled against its pipeline's header
 * (ddp.h or ddp_gpu.h: the argument structs are named after the pipeline),
 * so each pipeline declares its own thin steps (make_data.c and compare.c
 * for `ddp`, gpu_steps.c for `ddp_gpu`) over this shared code.
 */
#ifndef DDP_DATA_H
#define DDP_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "formats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The synthetic data set: each class is a mixture of two Gaussian blobs in
   `features` dimensions (a linear model is not enough), `noise` the
   standard deviation around each blob's center. The same arguments give
   the same bytes on every machine. 0, or -1 with a message in err. */
int ddp_generate(ddp_dataset *ds, int64_t seed, int64_t n_rows, int64_t features, int64_t classes,
                 double noise, char *err, size_t errsz);

/* Accuracy of m on ds and, when ref is not NULL, the fraction of rows on
   which m and ref predict the same class. -1 when the shapes differ or on
   no memory. */
int ddp_score(const ddp_model *m, const ddp_model *ref, const ddp_dataset *ds, double *accuracy,
              double *agreement);

/* The largest |a - b| over the weights; -1 when the shapes differ. */
double ddp_max_abs_diff(const ddp_model *a, const ddp_model *b);

#ifdef __cplusplus
}
#endif

#endif /* DDP_DATA_H */
