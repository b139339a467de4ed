#include "pipe/error.h"

const char *pipe_strerror(int code)
{
    switch (code) {
#define PIPE_ERROR_CASE(name, value, text) \
    case -(value): return text;
        PIPE_ERRORS(PIPE_ERROR_CASE)
#undef PIPE_ERROR_CASE
    }
    return "unknown error";
}
