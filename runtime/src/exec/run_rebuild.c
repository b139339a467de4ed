/* Edit, run (run_rebuild.h): before `run`, the files the bundle was built
   from are compared with pipec-inputs.txt (a stat each; no process starts
   when nothing changed). Where CMake built this executable and the bundle
   is where pipec wrote it, a change builds it again and runs the new
   executable with the same arguments; elsewhere `run` refuses, naming the
   file and the commands that build it again (docs/runtime.md). */
#include "run_rebuild.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "step/bundle_inputs.h"
#include "step/command.h"
#include "util/cli.h"
#include "util/util.h"

/* Set in the environment of the executable run again after a rebuild: a
   file that still differs then is an error, not another rebuild. */
#define REBUILT_ENV "PIPE_REBUILT"

static bool same_dir(const char *a, const char *b)
{
    char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
    bool same = ra && rb && strcmp(ra, rb) == 0;
    free(ra);
    free(rb);
    return same;
}

/* CMake built this executable in a build folder that is still there, from
   the bundle pipec wrote where it is now, with a pipec that is still there. */
static bool can_rebuild(const pipe_program *prog, const char *bundle, const pipe_bundle_inputs *in)
{
    if (!prog->rebuild_cmake || !prog->rebuild_dir || !prog->rebuild_target || !in->out || !in->pipec)
        return false;
    char *cache = pipe_asprintf("%s/CMakeCache.txt", prog->rebuild_dir);
    bool ok = cache && access(cache, R_OK) == 0 && access(prog->rebuild_cmake, X_OK) == 0 &&
              access(in->pipec, X_OK) == 0 && same_dir(bundle, in->out);
    free(cache);
    return ok;
}

/* `cmake --build DIR --target T`, its output to stderr with the bundle's
   copies named as the user's files (a compiler's errors); its exit status. */
static int cmake_build(const pipe_program *prog, const char *bundle)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl(prog->rebuild_cmake, prog->rebuild_cmake, "--build", prog->rebuild_dir, "--target",
              prog->rebuild_target, (char *)NULL);
        fprintf(stderr, "pipe: cannot run %s: %s\n", prog->rebuild_cmake, strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while (f && (n = getline(&line, &cap, f)) > 0) {
        char *mapped = pipe_bundle_map_line(bundle, line, (size_t)n);
        fputs(mapped ? mapped : line, stderr);
        free(mapped);
    }
    free(line);
    if (f)
        fclose(f);
    else
        close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The executable's path, before a rebuild replaces its file. */
static char *self_path(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    return pipe_strdup(exe);
}

int pipe_run_rebuild_check(const pipe_program *prog, const pipe_manifest *m, int argc, char **argv)
{
    (void)argc;
    /* Read once and dropped, so that no run this one starts inherits it. */
    const char *env = getenv(REBUILT_ENV);
    bool again = env && *env;
    unsetenv(REBUILT_ENV);
    char why[1024];
    char *bundle = pipe_bundle_dir(prog, m->pipeline, why, sizeof why);
    if (!bundle)
        return -1; /* no bundle folder: nothing was recorded to compare */
    pipe_bundle_inputs in;
    if (pipe_bundle_inputs_load(bundle, &in) != 0) {
        free(bundle);
        return -1;
    }
    const pipe_bundle_input *changed = pipe_bundle_inputs_changed(&in);
    int status = -1;
    if (!changed)
        goto done;
    if (!again && can_rebuild(prog, bundle, &in)) {
        const char *cmake = strrchr(prog->rebuild_cmake, '/');
        fprintf(stderr, "pipe: %s changed since the build; rebuilding (%s --build %s --target %s)\n", changed->path,
                cmake ? cmake + 1 : prog->rebuild_cmake, prog->rebuild_dir, prog->rebuild_target);
        fflush(stderr);
        char *exe = self_path();
        int rc = cmake_build(prog, bundle);
        if (rc != 0) {
            fprintf(stderr, "pipe: error: the rebuild failed (above); fix it and run again (the executable was not "
                            "run)\n");
            free(exe);
            status = PIPE_EXIT_FAILED;
            goto done;
        }
        setenv(REBUILT_ENV, "1", 1);
        fflush(stdout);
        if (exe)
            execv(exe, argv);
        fprintf(stderr, "pipe: error: cannot run the rebuilt %s: %s\n", exe ? exe : "executable", strerror(errno));
        free(exe);
        status = PIPE_EXIT_FAILED;
        goto done;
    }
    if (again)
        fprintf(stderr, "pipe: error: %s still differs from the bundle after the rebuild (is it being edited?); "
                        "run again\n", changed->path);
    else {
        fprintf(stderr, "pipe: error: %s changed since this bundle was built, and this executable cannot build "
                        "itself again here (", changed->path);
        if (!prog->rebuild_dir)
            fprintf(stderr, "it was not built by CMake from where pipec wrote the bundle");
        else if (!in.out || !same_dir(bundle, in.out))
            fprintf(stderr, "the bundle at %s is not where pipec wrote it, %s", bundle, in.out ? in.out : "?");
        else
            fprintf(stderr, "its build folder %s, cmake or pipec is gone", prog->rebuild_dir);
        fprintf(stderr, "); build it again with\n    %s\n", in.command ? in.command : "pipec build");
        if (prog->rebuild_dir)
            fprintf(stderr, "    cmake --build %s --target %s\n", prog->rebuild_dir, prog->rebuild_target);
        else
            fprintf(stderr, "    cmake -S %s -B %s/build && cmake --build %s/build\n", in.out ? in.out : bundle,
                    in.out ? in.out : bundle, in.out ? in.out : bundle);
    }
    status = PIPE_EXIT_USAGE;
done:
    pipe_bundle_inputs_free(&in);
    free(bundle);
    return status;
}
