/* E0402: a `trainium`/`inferentia` count of @resources or @batch above the
   devices of the largest instance of its kind (hw/neuron_instances.h),
   where it is written: a pipeline's default once, not once per step. */
#ifndef PIPEC_NEURON_VALUES_H
#define PIPEC_NEURON_VALUES_H

#include "decorators.h"

void check_neuron_values(diag_engine *d, const decorator_inst *inst);

#endif
