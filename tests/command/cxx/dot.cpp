// A C++17 step linking OpenBLAS (pkg-config), the C math library (a plain
// name) and Threads (a CMake target).
#include <cblas.h>

#include <cmath>
#include <cstdio>
#include <numeric>
#include <thread>
#include <vector>

#include "cxx.h"

extern "C" int dot(pipe_ctx *ctx, const cxx_dot_args *args)
{
    std::vector<float> x((size_t)args->n);
    std::iota(x.begin(), x.end(), 1.0f);
    float sum = 0.0f;
    std::thread worker([&] { sum = cblas_sdot((int)x.size(), x.data(), 1, x.data(), 1); });
    worker.join();
    FILE *out = pipe_output_open(ctx, "out");
    if (!out)
        return pipe_fail(ctx, "%s", pipe_last_error(ctx));
    std::fprintf(out, "sum of squares %.0f, sqrt %.4f\n", sum, std::sqrt((double)sum));
    return 0;
}
