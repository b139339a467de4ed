/* The local scheduler (scheduler.h) behind a fake spawner that starts no
   process: it records each start ("+id") and, at each wait that may block,
   ends the invocation started first ("-id") with a scripted outcome; the
   observer adds "~id" for a skip and "!id" for an invocation that failed
   to start. The order of those marks is what each case checks: DAG order
   and parallelism under --jobs, resource admission (GPUs, a request above
   the machine, --strict-resources), the same-port rule, a failure skipping
   its dependants while the others go on, interruption, and running out of
   descriptors. Time is a fake clock: nothing here depends on timing. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exec/scheduler.h"
#include "pipe/error.h"

#define MAX_INV 8

/* ---- a manifest ---- */

typedef struct plan {
    pipe_manifest m;
    pipe_minvocation inv[MAX_INV];
    int needs[MAX_INV][MAX_INV];
} plan;

static size_t add(plan *p, const char *id)
{
    size_t i = p->m.ninvocations++;
    p->m.invocations = p->inv;
    p->inv[i].id = (char *)id;
    p->inv[i].needs = p->needs[i];
    return i;
}

static void need(plan *p, size_t i, size_t what) { p->needs[i][p->inv[i].nneeds++] = (int)what; }

static void accelerate(plan *p, size_t i, int64_t port)
{
    p->inv[i].accelerate.enabled = true;
    p->inv[i].accelerate.num_processes = p->inv[i].accelerate.num_machines = 1;
    p->inv[i].accelerate.main_process_port = port;
}

/* ---- the fake spawner and observer ---- */

static double fake_clock = 1000.0;
static double fake_now(void) { return fake_clock; }

typedef struct fake {
    const plan *p;
    char log[512];
    bool started[MAX_INV];
    size_t fifo[64], head, tail; /* running, first started first */
    size_t running, max_running;
    pipe_sched_state outcome[MAX_INV]; /* what each ends with (DONE unless set) */
    int start_rc[MAX_INV];             /* what starting it returns ... */
    int start_fails[MAX_INV];          /* ... this many times (-1: always) */
    char gpus[MAX_INV][32];            /* its grant's GPUs */
    size_t signal_after;               /* SIGINT once this many have started; 0: never */
    int signals_then;                  /* how many SIGINTs then */
    int pending_signals;
    int stops[4];
    size_t nstops;
    size_t nstarts, waits;
    pipe_sched_state state[MAX_INV]; /* as the observer was told */
    char detail[MAX_INV][256];
    char notes[4][256];
    size_t nnotes;
} fake;

static void mark(fake *f, char what, size_t i)
{
    size_t n = strlen(f->log);
    snprintf(f->log + n, sizeof f->log - n, "%s%c%s", n ? " " : "", what, f->p->inv[i].id);
}

static int fake_start(void *arg, size_t i, const pipe_pool *pool, const pipe_grant *grant, char *err, size_t errsize)
{
    fake *f = arg;
    if (f->start_fails[i] != 0) {
        if (f->start_fails[i] > 0)
            f->start_fails[i]--;
        snprintf(err, errsize, "cannot start %s: no descriptors left", f->p->inv[i].id);
        return f->start_rc[i];
    }
    pipe_grant_gpu_list(pool, grant, f->gpus[i], sizeof f->gpus[i]);
    f->started[i] = true;
    f->fifo[f->tail++] = i;
    if (++f->running > f->max_running)
        f->max_running = f->running;
    mark(f, '+', i);
    if (++f->nstarts == f->signal_after)
        f->pending_signals = f->signals_then;
    return 0;
}

static bool fake_wait(void *arg, int timeout_ms, pipe_sched_event *ev)
{
    fake *f = arg;
    if (++f->waits > 10000)
        return false; /* the scheduler spins: the checks below fail */
    if (f->pending_signals > 0) {
        f->pending_signals--;
        ev->kind = PIPE_SCHED_SIGNAL;
        ev->sig = SIGINT;
        return true;
    }
    if (timeout_ms == 0)
        return false; /* only what already happened: nothing ends between two looks */
    if (f->head == f->tail) {
        fake_clock += timeout_ms / 1000.0; /* nothing runs: the time passes */
        return false;
    }
    size_t i = f->fifo[f->head++];
    f->running--;
    mark(f, '-', i);
    ev->kind = PIPE_SCHED_FINISHED;
    ev->invocation = i;
    ev->outcome = f->outcome[i] ? f->outcome[i] : PIPE_SCHED_DONE;
    ev->detail = ev->outcome == PIPE_SCHED_FAILED ? "(exit 1)" : NULL;
    return true;
}

static void fake_stop(void *arg, int sig)
{
    fake *f = arg;
    if (f->nstops < 4)
        f->stops[f->nstops++] = sig;
}

static void fake_changed(void *arg, size_t i, pipe_sched_state st, const char *detail)
{
    fake *f = arg;
    f->state[i] = st;
    snprintf(f->detail[i], sizeof f->detail[i], "%s", detail ? detail : "");
    if (st == PIPE_SCHED_SKIPPED)
        mark(f, '~', i);
    else if (st == PIPE_SCHED_FAILED && !f->started[i])
        mark(f, '!', i);
}

static void fake_note(void *arg, const char *line)
{
    fake *f = arg;
    if (f->nnotes < 4)
        snprintf(f->notes[f->nnotes++], sizeof f->notes[0], "%s", line);
}

/* A machine of 8 CPUs, 16 GB and two GPUs unless a case says otherwise. */
static char *two_gpus[] = {"0", "1"};
static pipe_local_resources machine(void)
{
    pipe_local_resources local = {.cpus = 8, .memory = 16000000000ull, .gpus = two_gpus, .ngpus = 2};
    return local;
}

/* Runs p through the scheduler with f's script; the run's result. */
static int run_with(const plan *p, fake *f, const pipe_local_resources *local, long jobs, size_t max_children,
                    pipe_sched *s)
{
    f->p = p;
    pipe_sched_config cfg = {
        .m = &p->m,
        .local = local,
        .jobs = jobs,
        .max_children = max_children,
        .spawner = {.arg = f, .start = fake_start, .wait = fake_wait, .stop = fake_stop},
        .observer = {.arg = f, .changed = fake_changed, .note = fake_note},
        .now = fake_now,
    };
    CHECK_EQ_INT(pipe_sched_init(s, &cfg), 0);
    int rc = pipe_sched_run(s);
    CHECK(f->waits <= 10000);
    return rc;
}

static int run(const plan *p, fake *f, long jobs)
{
    pipe_local_resources local = machine();
    pipe_sched s;
    int rc = run_with(p, f, &local, jobs, 64, &s);
    pipe_sched_free(&s);
    return rc;
}

/* ---- cases ---- */

/* a -> (b, c) -> d, and e on its own. */
static void diamond(plan *p)
{
    memset(p, 0, sizeof *p);
    size_t a = add(p, "a"), b = add(p, "b"), c = add(p, "c"), d = add(p, "d");
    add(p, "e");
    need(p, b, a);
    need(p, c, a);
    need(p, d, b);
    need(p, d, c);
}

static void test_dag_and_jobs(void)
{
    plan p;
    fake f = {0};
    diamond(&p);
    CHECK_EQ_INT(run(&p, &f, 0), 0);
    CHECK_STREQ(f.log, "+a +e -a +b +c -e -b -c +d -d");
    CHECK_EQ_INT(f.max_running, 3);
    for (size_t i = 0; i < p.m.ninvocations; i++)
        CHECK_EQ_INT(f.state[i], PIPE_SCHED_DONE);

    memset(&f, 0, sizeof f); /* --jobs 2 */
    CHECK_EQ_INT(run(&p, &f, 2), 0);
    CHECK_STREQ(f.log, "+a +e -a +b -e +c -b -c +d -d");
    CHECK_EQ_INT(f.max_running, 2);

    memset(&f, 0, sizeof f); /* --jobs 1: the manifest's (topological) order */
    CHECK_EQ_INT(run(&p, &f, 1), 0);
    CHECK_STREQ(f.log, "+a -a +b -b +c -c +d -d +e -e");

    memset(&f, 0, sizeof f); /* the open-file limit counts as --jobs does */
    pipe_local_resources local = machine();
    pipe_sched s;
    run_with(&p, &f, &local, 0, 1, &s);
    pipe_sched_free(&s);
    CHECK_EQ_INT(f.max_running, 1);
}

static void test_gpus(void)
{
    plan p;
    fake f = {0};
    memset(&p, 0, sizeof p);
    size_t g2 = add(&p, "g2"), g1a = add(&p, "g1a"), g1b = add(&p, "g1b");
    add(&p, "cpu");
    p.inv[g2].resources.gpu = 2;
    p.inv[g1a].resources.gpu = 1;
    p.inv[g1b].resources.gpu = 1;
    CHECK_EQ_INT(run(&p, &f, 0), 0);
    /* The one-GPU steps wait until both GPUs are free; the CPU step does not. */
    CHECK_STREQ(f.log, "+g2 +cpu -g2 +g1a +g1b -cpu -g1a -g1b");
    CHECK_STREQ(f.gpus[g2], "0,1");
    CHECK_STREQ(f.gpus[g1a], "0");
    CHECK_STREQ(f.gpus[g1b], "1");
}

static void test_memory(void)
{
    plan p;
    fake f = {0};
    memset(&p, 0, sizeof p);
    size_t a = add(&p, "a"), b = add(&p, "b"), c = add(&p, "c");
    p.inv[a].resources.memory = 10000000000ull;
    p.inv[b].resources.memory = 10000000000ull;
    p.inv[c].resources.memory = 6000000000ull;
    CHECK_EQ_INT(run(&p, &f, 0), 0);
    CHECK_STREQ(f.log, "+a +c -a +b -c -b");
}

typedef struct unmet_calls {
    char text[512];
    int refused, warned;
} unmet_calls;

static void on_unmet(void *arg, const char *invocation, const char *what, bool refused)
{
    unmet_calls *u = arg;
    size_t n = strlen(u->text);
    snprintf(u->text + n, sizeof u->text - n, "%s: %s;", invocation, what);
    if (refused)
        u->refused++;
    else
        u->warned++;
}

/* A request above the machine is warned about and runs alone;
   --strict-resources refuses it. */
static void test_oversized(void)
{
    plan p;
    fake f = {0};
    memset(&p, 0, sizeof p);
    add(&p, "small");
    size_t big = add(&p, "big");
    add(&p, "other");
    p.inv[big].resources.cpu = 16;
    p.inv[big].resources.gpu = 4;
    pipe_local_resources local = machine();
    pipe_sched s;
    f.p = &p;
    pipe_sched_config cfg = {.m = &p.m, .local = &local, .max_children = 64, .now = fake_now};
    CHECK_EQ_INT(pipe_sched_init(&s, &cfg), 0);
    unmet_calls u = {0};
    CHECK_EQ_INT(pipe_sched_check_requests(&s, false, on_unmet, &u), 0);
    CHECK_STREQ(u.text, "big: 16 CPUs (this machine has 8); 4 GPUs (this machine has 2);");
    CHECK_EQ_INT(u.warned, 1);
    memset(&u, 0, sizeof u);
    CHECK_EQ_INT(pipe_sched_check_requests(&s, true, on_unmet, &u), -1);
    CHECK_EQ_INT(u.refused, 1);
    pipe_sched_free(&s);

    CHECK_EQ_INT(run(&p, &f, 0), 0);
    CHECK_STREQ(f.log, "+small +other -small -other +big -big");
    CHECK_EQ_INT(f.max_running, 2);
    CHECK_STREQ(f.gpus[big], "0,1"); /* what there is */
}

/* Invocations given the same or adjacent ports (the rendezvous takes the
   one above) never run at once; free ports and other steps do. */
static void test_ports(void)
{
    plan p;
    fake f = {0};
    memset(&p, 0, sizeof p);
    size_t p1 = add(&p, "p1"), p2 = add(&p, "p2"), p3 = add(&p, "p3");
    add(&p, "p4");
    accelerate(&p, p1, 29500);
    accelerate(&p, p2, 29501);
    accelerate(&p, p3, 0);
    unsetenv("MASTER_PORT");
    CHECK_EQ_INT(run(&p, &f, 0), 0);
    CHECK_STREQ(f.log, "+p1 +p3 +p4 -p1 +p2 -p3 -p4 -p2");

    /* MASTER_PORT in the environment is every accelerated invocation's port. */
    memset(&f, 0, sizeof f);
    setenv("MASTER_PORT", "29600", 1);
    CHECK_EQ_INT(run(&p, &f, 0), 0);
    CHECK_STREQ(f.log, "+p1 +p4 -p1 +p2 -p4 -p2 +p3 -p3");
    unsetenv("MASTER_PORT");
}

/* A failure skips what needs it, and what needs that; the others go on. */
static void test_failure_skips(void)
{
    plan p;
    fake f = {0};
    memset(&p, 0, sizeof p);
    size_t a = add(&p, "a"), b = add(&p, "b"), c = add(&p, "c"), e = add(&p, "e"), g = add(&p, "f");
    need(&p, b, a);
    need(&p, c, b);
    need(&p, g, e);
    f.outcome[a] = PIPE_SCHED_FAILED;
    pipe_local_resources local = machine();
    pipe_sched s;
    CHECK_EQ_INT(run_with(&p, &f, &local, 0, 64, &s), 0);
    CHECK_STREQ(f.log, "+a +e -a ~b ~c -e +f -f");
    CHECK_STREQ(f.detail[a], "(exit 1)");
    CHECK_STREQ(f.detail[b], "needs a, which failed");
    CHECK_STREQ(f.detail[c], "needs b, which was skipped");
    CHECK_EQ_INT(f.state[g], PIPE_SCHED_DONE);
    CHECK(pipe_sched_failed(&s));
    pipe_sched_free(&s);

    /* An interrupted invocation (its `step` got SIGTERM alone) skips what
       needs it, and the run has not succeeded. */
    memset(&f, 0, sizeof f);
    f.outcome[a] = PIPE_SCHED_INTERRUPTED;
    CHECK_EQ_INT(run_with(&p, &f, &local, 0, 64, &s), 0);
    CHECK_EQ_INT(f.state[a], PIPE_SCHED_INTERRUPTED);
    CHECK_STREQ(f.detail[b], "needs a, which was interrupted");
    CHECK_EQ_INT(f.state[g], PIPE_SCHED_DONE);
    CHECK(pipe_sched_failed(&s));
    pipe_sched_free(&s);

    /* Failing to start is a failure too. */
    memset(&f, 0, sizeof f);
    f.start_rc[a] = PIPE_EIO;
    f.start_fails[a] = -1;
    CHECK_EQ_INT(run(&p, &f, 0), 0);
    CHECK_STREQ(f.log, "!a ~b ~c +e -e +f -f");
    CHECK_STREQ(f.detail[a], "cannot start a: no descriptors left");
}

/* SIGINT: what runs is told, what waits is skipped, nothing new starts;
   a second one kills. */
static void test_interrupt(void)
{
    plan p;
    fake f = {0};
    memset(&p, 0, sizeof p);
    size_t a = add(&p, "a");
    add(&p, "b");
    add(&p, "c");
    size_t d = add(&p, "d");
    need(&p, d, a);
    f.signal_after = 1;
    f.signals_then = 1;
    f.outcome[a] = PIPE_SCHED_FAILED;
    pipe_local_resources local = machine();
    pipe_sched s;
    CHECK_EQ_INT(run_with(&p, &f, &local, 1, 64, &s), 0);
    CHECK_STREQ(f.log, "+a ~b ~c ~d -a");
    CHECK_EQ_INT(s.stop_signal, SIGINT);
    CHECK_EQ_INT(f.nstops, 1);
    CHECK_EQ_INT(f.stops[0], SIGINT);
    CHECK_STREQ(f.notes[0], "interrupted: stopping 1 running invocation (again to kill them now)");
    CHECK_STREQ(f.detail[d], "the run was interrupted");
    pipe_sched_free(&s);

    memset(&f, 0, sizeof f);
    f.signal_after = 2;
    f.signals_then = 2;
    CHECK_EQ_INT(run_with(&p, &f, &local, 2, 64, &s), 0);
    CHECK_STREQ(f.log, "+a +b ~c ~d -a -b");
    CHECK_EQ_INT(f.nstops, 2);
    CHECK_EQ_INT(f.stops[1], SIGKILL);
    CHECK_STREQ(f.notes[1], "killing 2 running invocations");
    pipe_sched_free(&s);
}

/* Out of descriptors: the invocation waits and is tried again (told once);
   with nothing running to free any, it fails after a while. */
static void test_descriptors(void)
{
    plan p;
    fake f = {0};
    memset(&p, 0, sizeof p);
    add(&p, "a");
    size_t b = add(&p, "b");
    f.start_rc[b] = PIPE_ERESOURCE;
    f.start_fails[b] = 2;
    CHECK_EQ_INT(run(&p, &f, 0), 0);
    CHECK_STREQ(f.log, "+a -a +b -b");
    CHECK_EQ_INT(f.nnotes, 1);
    CHECK_STREQ(f.notes[0], "waiting for resources to start more invocations (cannot start b: no descriptors left)");

    memset(&f, 0, sizeof f);
    f.start_rc[b] = PIPE_ERESOURCE;
    f.start_fails[b] = -1;
    double t0 = fake_clock;
    CHECK_EQ_INT(run(&p, &f, 0), 0);
    CHECK_STREQ(f.log, "+a -a !b");
    CHECK(fake_clock - t0 >= 30.0);
}

int main(void)
{
    test_dag_and_jobs();
    test_gpus();
    test_memory();
    test_oversized();
    test_ports();
    test_failure_skips();
    test_interrupt();
    test_descriptors();
    return check_summary();
}
