/* Backtraces of native ranks that a fault kills (crash_trace.h). */
#define _GNU_SOURCE /* sigaltstack's stack_t in strict C11 */
#include "crash_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/textbuf.h"
#include "util/util.h"

/* Without execinfo.h (musl) or under ASan, no handler. */
#if defined(__SANITIZE_ADDRESS__)
#define PIPE_NO_CRASH_TRACE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PIPE_NO_CRASH_TRACE 1
#endif
#endif
#if !defined(PIPE_NO_CRASH_TRACE) && defined(__has_include)
#if __has_include(<execinfo.h>)
#include <execinfo.h>
#else
#define PIPE_NO_CRASH_TRACE 1
#endif
#endif

#ifndef PIPE_NO_CRASH_TRACE
static char error_path[4096];

static void put(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* Only async-signal-safe calls, backtrace aside: it was called once at
   install, so that it loads nothing now. */
static void on_fault(int sig)
{
    void *frames[64];
    int n = backtrace(frames, 64);
    int fd = open(error_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0 && n > 2) {
        put(fd, "backtrace, innermost call first:\n");
        /* frames[0] is this handler, frames[1] the kernel's return to it. */
        backtrace_symbols_fd(frames + 2, n - 2, fd);
    }
    if (fd >= 0)
        close(fd);
    signal(sig, SIG_DFL);
    raise(sig);
}

#endif

void pipe_crash_trace_prepare(void)
{
#ifndef PIPE_NO_CRASH_TRACE
    static bool prepared;
    if (!prepared) {
        void *warm[1];
        backtrace(warm, 1);
        prepared = true;
    }
#endif
}

void pipe_crash_trace_install(const char *error_file)
{
#ifdef PIPE_NO_CRASH_TRACE
    (void)error_file;
#else
    if (!error_file || strlen(error_file) >= sizeof error_path)
        return;
    strcpy(error_path, error_file);
    pipe_crash_trace_prepare();
    /* A stack of its own: a stack overflow is a SIGSEGV too. */
    static char alt[64 * 1024];
    stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fault;
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        sigaction(faults[i], &sa, NULL);
#endif
}

/* addr2line's "FUNCTION at FILE:LINE" for offset in file, or NULL. */
static char *addr2line(const char *file, const char *offset)
{
    int fds[2];
    if (pipe(fds) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        execlp("addr2line", "addr2line", "-f", "-C", "-p", "-e", file, offset, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char buf[1024];
    size_t len = 0;
    for (ssize_t r; len + 1 < sizeof buf && (r = read(fds[0], buf + len, sizeof buf - 1 - len)) != 0;)
        if (r > 0)
            len += (size_t)r;
        else
            break;
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return NULL;
    buf[len] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    /* "?? ??:0": it knows nothing. */
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !buf[0] || strncmp(buf, "??", 2) == 0)
        return NULL;
    return pipe_strdup(buf);
}

/* "FUNCTION (FILE:LINE)" from addr2line's "FUNCTION at FILE:LINE", what
   it does not know left out. */
static void frame_text(pipe_textbuf *b, const char *where)
{
    const char *at = strstr(where, " at ");
    size_t fn = at ? (size_t)(at - where) : strlen(where);
    pipe_tb_append(b, where, fn);
    if (!at || strncmp(at + 4, "??", 2) == 0)
        return;
    const char *src = at + 4;
    size_t n = strlen(src);
    if (n > 2 && strcmp(src + n - 2, ":?") == 0)
        n -= 2;
    const char *slash = memrchr(src, '/', n);
    if (slash) {
        n -= (size_t)(slash + 1 - src);
        src = slash + 1;
    }
    pipe_tb_puts(b, " (");
    pipe_tb_append(b, src, n);
    pipe_tb_puts(b, ")");
}

char *pipe_crash_trace_resolve(const char *text)
{
    pipe_textbuf b = {0};
    bool any = false;
    int asked = 0;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        /* "FILE(+0xOFFSET) [0xADDR]": FILE holds no "(+". */
        const char *lp = memchr(p, '(', len);
        char *where = NULL;
        if (lp && len - (size_t)(lp - p) > 4 && strncmp(lp, "(+0x", 4) == 0 && asked < 32) {
            const char *rp = memchr(lp, ')', len - (size_t)(lp - p));
            char *file = pipe_strndup(p, (size_t)(lp - p));
            char *off = rp ? pipe_strndup(lp + 1, (size_t)(rp - lp - 1)) : NULL;
            where = file && off ? addr2line(file, off + 1) : NULL;
            asked++;
            free(file);
            free(off);
        }
        /* The runtime's frames below the step's code say nothing. */
        if (where && strncmp(where, "pipe_worker_run ", 16) == 0) {
            free(where);
            break;
        }
        bool frame = where || lp; /* a frame: "FILE(...)" */
        if (frame)
            pipe_tb_puts(&b, "    ");
        if (where) {
            frame_text(&b, where);
            any = true;
        } else {
            pipe_tb_append(&b, p, len);
        }
        pipe_tb_puts(&b, "\n");
        free(where);
        p += len + (p[len] == '\n');
    }
    char *out = pipe_tb_take(&b, NULL);
    if (!any) {
        free(out);
        return NULL;
    }
    size_t n = out ? strlen(out) : 0;
    if (n > 0 && out[n - 1] == '\n')
        out[n - 1] = '\0';
    return out;
}
