/* The rules over the Neuron devices (Trainium, Inferentia) in force for a
   step (a count no instance holds, E0402, is neuron_values.h's): one kind
   of accelerator per step (E0210) and the processes per machine of an
   accelerated Neuron step (W0411). What the Batch target's rule about its
   own counts (E0211, targets/batch/) reads is here too. */
#ifndef PIPEC_NEURON_RULES_H
#define PIPEC_NEURON_RULES_H

#include "decorators.h"
#include "hw/neuron_instances.h"
#include "program.h"

/* A step's Neuron devices of a kind in force: @resources' count when given,
   else @batch's (as the model fills resources); *from gets the option (set
   = false when neither gives it). */
int64_t neuron_devices(const effective_options *eff, neuron_kind k, opt_value *from);
/* Whether that count is not known for sure (a value reported wrong). */
bool neuron_uncertain(const effective_options *eff);

/* The option that counts the kind's devices in @resources or @batch
   (RES_TRAINIUM, BATCH_INFERENTIA, ...). */
int neuron_option(decorator_id dec, neuron_kind k);

/* An integer option in force, with the decorator it is written in: what
   the messages quote ("@batch(trainium = 16)"). */
typedef struct option_written {
    decorator_id dec;
    const char *name;
    opt_value v;
} option_written;

option_written option_in_force(const effective_options *eff, decorator_id dec, int opt);
/* "@batch(trainium = 16)" into buf; returns buf. */
const char *option_quote(char *buf, size_t size, const option_written *w);

/* E0210 and W0411 over the options in force for a step. */
void check_neuron_step(diag_engine *d, const step_info *st, const effective_options *eff);

#endif
