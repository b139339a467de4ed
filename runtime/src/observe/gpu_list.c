/* The GPUs that CUDA_VISIBLE_DEVICES leaves (gpu_list.h). */
#include "gpu_list.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/base.h"
#include "pipe/error.h"
#include "util/util.h"

void pipe_gpu_list_free(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

int pipe_gpu_list(size_t count, const char *cvd, char ***gpus, size_t *n)
{
    char **list = NULL, *copy = NULL;
    size_t k = 0;
    *gpus = NULL;
    *n = 0;
    if (count == 0)
        return 0;
    if (!cvd) { /* every device */
        if (!(list = calloc(count, sizeof *list)))
            return PIPE_ENOMEM;
        for (k = 0; k < count; k++) {
            if (!(list[k] = pipe_asprintf("%zu", k))) {
                pipe_gpu_list_free(list, k);
                return PIPE_ENOMEM;
            }
        }
        *gpus = list;
        *n = count;
        return 0;
    }
    if (!(copy = pipe_strdup(cvd)))
        return PIPE_ENOMEM;
    size_t cap = 1;
    for (const char *c = cvd; *c; c++)
        cap += *c == ',';
    if (!(list = calloc(cap, sizeof *list))) {
        free(copy);
        return PIPE_ENOMEM;
    }
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && k < count; tok = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*tok))
            tok++;
        size_t len = strlen(tok);
        while (len > 0 && isspace((unsigned char)tok[len - 1]))
            tok[--len] = '\0';
        bool valid;
        if (pipe_all_digits(tok)) {
            errno = 0;
            unsigned long long idx = strtoull(tok, NULL, 10);
            valid = errno == 0 && idx < count;
            if (valid) { /* "01" and "1" name the same device */
                char *canon = pipe_asprintf("%llu", idx);
                if (!canon)
                    goto nomem;
                tok = canon;
            }
        } else {
            valid = strncmp(tok, "GPU-", 4) == 0 || strncmp(tok, "MIG-", 4) == 0;
            if (valid && !(tok = pipe_strdup(tok)))
                goto nomem;
        }
        if (!valid)
            break;
        bool repeated = false;
        for (size_t i = 0; i < k; i++)
            repeated |= strcmp(list[i], tok) == 0;
        if (repeated) {
            free(tok);
            break;
        }
        list[k++] = tok;
    }
    free(copy);
    if (k == 0) {
        free(list);
        return 0;
    }
    *gpus = list;
    *n = k;
    return 0;

nomem:
    free(copy);
    pipe_gpu_list_free(list, k);
    return PIPE_ENOMEM;
}
