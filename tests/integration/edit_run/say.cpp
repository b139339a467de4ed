// Writes its word; the test edits the greeting.
#include <cstdio>

#include "edit.h"

extern "C" int say(pipe_ctx *ctx, const edit_say_args *args)
{
    FILE *out = pipe_output_open(ctx, "said");
    if (!out)
        return pipe_fail(ctx, "%s", pipe_last_error(ctx));
    std::fprintf(out, "cpp-v1 %s\n", args->word);
    pipe_log(ctx, "said cpp-v1 %s", args->word);
    return 0;
}
