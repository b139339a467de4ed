/* Builds the typed model (model.h) of one checked pipeline. */
#ifndef PIPEC_MODEL_BUILD_H
#define PIPEC_MODEL_BUILD_H

#include "model.h"
#include "check/program.h"

/* The model of pl, a pipeline of pg that checked without errors. Every
   string is allocated in a. */
void model_build(model *out, arena *a, const program *pg, const pipeline_info *pl);

#endif
