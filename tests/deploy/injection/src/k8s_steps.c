/* Steps of the injection corpus that test the Kubernetes and SkyPilot
   targets (names, multi-machine, GPU vendors): they only log their input. */
#include "injection.h"

int Collide(pipe_ctx *ctx, const injection_Collide_args *args)
{
    pipe_log(ctx, "%s", args->data);
    return 0;
}

int collide(pipe_ctx *ctx, const injection_collide_args *args)
{
    pipe_log(ctx, "%s", args->data);
    return 0;
}

int underscored_main(pipe_ctx *ctx, const injection__underscored_args *args)
{
    pipe_log(ctx, "%s", args->data);
    return 0;
}

int long_name_main(pipe_ctx *ctx,
                   const injection_a_step_name_that_is_much_longer_than_any_kubernetes_object_name_may_ever_be_args *args)
{
    pipe_log(ctx, "%s", args->data);
    return 0;
}

int on(pipe_ctx *ctx, const injection_on_args *args)
{
    pipe_log(ctx, "%s", args->data);
    return 0;
}

int spread(pipe_ctx *ctx, const injection_spread_args *args)
{
    pipe_log(ctx, "rank %d of %d: %s", pipe_rank(ctx), pipe_world_size(ctx), args->data);
    return 0;
}

int gpu_amd(pipe_ctx *ctx, const injection_gpu_amd_args *args)
{
    pipe_log(ctx, "%s", args->data);
    return 0;
}

int any_gpu(pipe_ctx *ctx, const injection_any_gpu_args *args)
{
    pipe_log(ctx, "%s", args->data);
    return 0;
}
