/* The AWS Batch target's rules over the options in force for a step
   (deploy_target.rules.step): what a Batch platform cannot run (E0403:
   Fargate runs one container on one machine without GPUs, Neuron devices
   or EFA; a multi-node parallel job runs on EC2 only, so "SPOT" takes one
   machine: AWS Batch's job definition rules), and @batch's Neuron counts
   against @resources' (E0211). */
#ifndef PIPEC_BATCH_RULES_H
#define PIPEC_BATCH_RULES_H

#include "check/program.h"

void batch_check_step(diag_engine *d, const step_info *st, const effective_options *eff);

#endif
