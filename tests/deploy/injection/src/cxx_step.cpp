// A C++ step that links libraries: the build stage needs g++ and pkg-config.
#include <cmath>

#include "injection.h"

extern "C" int cxx_step(pipe_ctx *ctx, const injection_cxx_step_args *args)
{
    (void)args;
    pipe_log(ctx, "%f", std::sqrt(2.0));
    return 0;
}
