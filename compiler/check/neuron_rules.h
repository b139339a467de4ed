/* The rules over the Neuron devices (Trainium, Inferentia) in force for a
   step (a count no instance holds, E0402, is neuron_values.h's): one kind
   of accelerator per step (E0210), @batch's count against @resources' (E0211),
   and the processes per machine of an accelerated Neuron step (W0411). */
#ifndef PIPEC_NEURON_RULES_H
#define PIPEC_NEURON_RULES_H

#include "decorators.h"
#include "program.h"
#include "hw/neuron_instances.h"

/* A step's Neuron devices of a kind in force: @resources' count when given,
   else @batch's (as the model fills resources); *from gets the option (set
   = false when neither gives it). */
int64_t neuron_devices(const effective_options *eff, neuron_kind k, opt_value *from);
/* Whether that count is not known for sure (a value reported wrong). */
bool neuron_uncertain(const effective_options *eff);

/* E0210, E0211 and W0411 over the options in force for a step. */
void check_neuron_step(diag_engine *d, const step_info *st, const effective_options *eff);

#endif
