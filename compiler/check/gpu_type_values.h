/* The GPU type options, checked beyond their kind (a string; the CHECK
   column of pipe/settings.def names these): whether @resources(gpu_type)
   names a model pipec knows (W0408), and whether @slurm(gpu_type) can be
   a GRES type (E0201). Once per value as written, so that a pipeline's
   default is reported once, not once per step. */
#ifndef PIPEC_GPU_TYPE_VALUES_H
#define PIPEC_GPU_TYPE_VALUES_H

#include "option_values.h"

/* W0408; the value stays valid (every target gets it as written). */
option_check option_check_gpu_model;
/* E0201; a value found wrong here is invalid, as the kind's own checks make it. */
option_check option_check_gres_type;

#endif
