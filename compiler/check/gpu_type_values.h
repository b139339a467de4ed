/* The GPU type options, checked beyond their kind (a string): whether
   @resources(gpu_type) names a model pipec knows (W0408), and whether
   @slurm(gpu_type) can be a GRES type (E0201). Once per value as written,
   so that a pipeline's default is reported once, not once per step. */
#ifndef PIPEC_GPU_TYPE_VALUES_H
#define PIPEC_GPU_TYPE_VALUES_H

#include "decorators.h"

/* A value found wrong here is marked invalid, as the kind's own checks do. */
void check_gpu_type_values(diag_engine *d, decorator_inst *inst);

#endif
