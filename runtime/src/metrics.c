#include "metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "pipe/error.h"
#include "util.h"

bool pipe_metric_name_ok(const char *name)
{
    return name && *name && strlen(name) <= 200 && strpbrk(name, ",\"\r\n") == NULL;
}

int pipe_metrics_record(pipe_metrics_file *mf, const char *name, int64_t step, double value, char *err,
                        size_t errsize)
{
    (void)step; /* the line format time_s,name,value has no step column yet */
    if (!mf->f) {
        int fd = open(mf->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
        if (fd < 0) {
            pipe_errf(err, errsize, "cannot open %s: %s", mf->path, strerror(errno));
            return PIPE_EIO;
        }
        if (!(mf->f = fdopen(fd, "a"))) {
            pipe_errf(err, errsize, "cannot open %s: %s", mf->path, strerror(errno));
            close(fd);
            return PIPE_EIO;
        }
    }
    char num[64];
    pipe_format_double(value, num, sizeof num);
    if (fprintf(mf->f, "%.3f,%s,%s\n", pipe_now() - mf->started, name, num) < 0 || fflush(mf->f) != 0) {
        pipe_errf(err, errsize, "cannot write %s: %s", mf->path, strerror(errno));
        return PIPE_EIO;
    }
    return 0;
}

void pipe_metrics_close(pipe_metrics_file *mf)
{
    if (mf->f)
        fclose(mf->f);
    mf->f = NULL;
}
