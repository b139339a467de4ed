#include "stop.h"

#include <stdlib.h>

#include "pipe/version.h"

uint64_t pipe_stop_grace_ms(const pipe_minvocation *inv)
{
    if (inv && inv->checkpoint.enabled && inv->checkpoint.grace_ms > 0)
        return inv->checkpoint.grace_ms;
    const char *env = getenv("PIPE_KILL_GRACE_MS");
    if (env && *env) {
        char *end;
        unsigned long long g = strtoull(env, &end, 10);
        if (!*end)
            return g;
    }
    return PIPE_KILL_GRACE_MS;
}

uint64_t pipe_stop_supervisor_grace_ms(const pipe_minvocation *inv)
{
    return pipe_stop_grace_ms(inv) + PIPE_KILL_GRACE_MS;
}
