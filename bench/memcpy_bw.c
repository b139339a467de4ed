/* The memory-bandwidth baseline of bench/allreduce.sh: PROCS processes at
   once (as many as the ranks) each memcpy a buffer of MIB MiB into another ITERS
   times, after one untimed copy that faults the pages in; prints the
   bytes copied by all of them per second as `gbps VALUE` (GB/s = 1e9
   bytes/s; each byte copied is one read and one write of memory).
   usage: memcpy_bw MIB ITERS PROCS */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, usleep */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    long mib = atol(argv[1]), iters = atol(argv[2]), procs = atol(argv[3]);
    size_t n = (size_t)mib << 20;
    if (mib < 1 || iters < 1 || procs < 1 || procs > 64)
        return 2;
    /* A start line the children wait on, so that they copy at the same time. */
    int *go = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int ready[2];
    if (go == MAP_FAILED || pipe(ready) != 0)
        return 1;
    for (long p = 0; p < procs; p++) {
        if (fork() == 0) {
            char *a = malloc(n), *b = malloc(n);
            if (!a || !b)
                _exit(1);
            memset(a, 1, n);
            memcpy(b, a, n);
            if (write(ready[1], "x", 1) != 1)
                _exit(1);
            while (!__atomic_load_n(go, __ATOMIC_ACQUIRE))
                usleep(100);
            for (long i = 0; i < iters; i++)
                memcpy(i % 2 ? a : b, i % 2 ? b : a, n);
            _exit(a[n / 2] != 1 || b[n - 1] != 1);
        }
    }
    char c;
    for (long p = 0; p < procs; p++)
        if (read(ready[0], &c, 1) != 1)
            return 1;
    double t0 = now();
    __atomic_store_n(go, 1, __ATOMIC_RELEASE);
    int bad = 0, status;
    while (wait(&status) > 0)
        bad |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    double t = now() - t0;
    printf("memcpy: %ld processes, %ld MiB, %ld copies each in %.3f s\n", procs, mib, iters, t);
    printf("gbps %.4f\n", (double)n * (double)iters * (double)procs / t / 1e9);
    return bad;
}
