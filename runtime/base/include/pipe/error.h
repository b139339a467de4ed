/* Error codes of the pipe runtime: one X-macro table feeds the enum and
   pipe_strerror(). Functions return 0 or a negative PIPE_E* code. */
#ifndef PIPE_ERROR_H
#define PIPE_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#define PIPE_ERRORS(X)                                                        \
    X(PIPE_OK, 0, "success")                                                  \
    X(PIPE_EINVAL, 1, "invalid argument")                                     \
    X(PIPE_ENOMEM, 2, "out of memory")                                        \
    X(PIPE_EIO, 3, "input/output error")                                      \
    X(PIPE_ENOENT, 4, "no such file, input, output or invocation")            \
    X(PIPE_EFORMAT, 5, "malformed file")                                      \
    X(PIPE_EUSAGE, 6, "bad command line or configuration")                    \
    X(PIPE_ESTEP, 7, "the step failed")                                       \
    X(PIPE_ETIMEOUT, 8, "timed out")                                          \
    X(PIPE_ERESOURCE, 9, "this machine cannot meet the resource request")     \
    X(PIPE_ECOMM, 10, "communication between ranks failed")                   \
    X(PIPE_ENOTSUP, 11, "not supported in this build")                        \
    X(PIPE_EABI, 12, "driver and runtime do not match")                       \
    X(PIPE_ESTATE, 13, "called in the wrong state")

typedef enum {
#define PIPE_ERROR_ENUM(name, value, text) name = -(value),
    PIPE_ERRORS(PIPE_ERROR_ENUM)
#undef PIPE_ERROR_ENUM
} pipe_error;

/* The text for a PIPE_E* code (negative) or 0; never NULL. */
const char *pipe_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif
