/* E0402: a `trainium`/`inferentia` count of @resources or @batch above the
   devices of the largest instance of its kind (hw/neuron_instances.h),
   where it is written: a pipeline's default once, not once per step. The
   CHECK column of pipe/settings.def names these. */
#ifndef PIPEC_NEURON_VALUES_H
#define PIPEC_NEURON_VALUES_H

#include "option_values.h"

option_check option_check_trainium;
option_check option_check_inferentia;

#endif
