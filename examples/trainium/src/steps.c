/* The steps of the Trainium example (trainium.pipe). Placeholders: the
   example shows the AWS Batch deployment; a real training step calls into
   the Neuron SDK (torch-neuronx) from here or from a command step. */
#include "trainium.h"

int tokenize(pipe_ctx *ctx, const trainium_tokenize_args *args)
{
    (void)ctx;
    (void)args;
    return 0;
}

int train(pipe_ctx *ctx, const trainium_train_args *args)
{
    (void)ctx;
    (void)args;
    return 0;
}

int score(pipe_ctx *ctx, const trainium_score_args *args)
{
    (void)ctx;
    (void)args;
    return 0;
}
