/* E0403: what an AWS Batch platform cannot run, checked over the options in
   force for a step: Fargate runs one container on one machine without
   GPUs, Neuron devices or EFA; a multi-node parallel job runs on EC2 only
   (AWS Batch's job definition rules), so "SPOT" takes one machine. */
#ifndef PIPEC_BATCH_PLATFORM_H
#define PIPEC_BATCH_PLATFORM_H

#include "program.h"

void check_batch_platform(diag_engine *d, const step_info *st, const effective_options *eff);

#endif
