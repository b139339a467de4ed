#include "batch_rules.h"

#include <stdio.h>
#include <string.h>

#include "check/neuron_rules.h"
#include "hw/neuron_instances.h"

/* What a step asks for that the platform cannot give. */
typedef struct limit {
    const char *what;   /* "a multi-node job", ... (the message) */
    span at;            /* the option that asks for it */
    char asked[96];     /* the note: what is asked there */
} limit;

static void report(diag_engine *d, const opt_value *platform, const limit *l, const char *help)
{
    diagnostic *dg = diag_report(d, platform->expr ? platform->expr->sp : platform->name_sp, DIAG_E0403,
                                 "AWS Batch's `platform = \"%s\"` cannot run %s", platform->s, l->what);
    diag_label(d, dg, "%s", strcmp(platform->s, "FARGATE") == 0
                                ? "Fargate runs single-machine jobs without GPUs, Neuron devices or EFA"
                                : "multi-node jobs run on EC2 only, not on Spot");
    diag_note(d, dg, l->at, "%s", l->asked);
    diag_help(d, dg, "%s", help);
}

/* E0403. */
static void check_platform(diag_engine *d, const step_info *st, const effective_options *eff)
{
    opt_value platform = effective_opt(eff, DEC_BATCH, BATCH_PLATFORM);
    if (!platform.set || !platform.valid || !platform.s || strcmp(platform.s, "EC2") == 0)
        return;
    bool fargate = strcmp(platform.s, "FARGATE") == 0;
    const decorator_inst *acc = st->decorators.by_id[DEC_ACCELERATE];
    if (acc && acc->opts[ACC_NUM_MACHINES].set && acc->opts[ACC_NUM_MACHINES].valid &&
        acc->opts[ACC_NUM_MACHINES].i > 1) {
        const opt_value *nm = &acc->opts[ACC_NUM_MACHINES];
        limit l = {"a multi-node job", nm->arg_sp, ""};
        snprintf(l.asked, sizeof l.asked, "step `%s` runs on %lld machines", st->name, (long long)nm->i);
        report(d, &platform, &l,
               "a multi-node parallel job needs EC2 instances: use `platform = \"EC2\"` on an On-Demand queue, or "
               "run the step on one machine");
    }
    if (!fargate)
        return;
    static const char *const fix =
        "use `platform = \"EC2\"` with a queue of instances that have them, or remove the request";
    opt_value gpu = effective_opt(eff, DEC_RESOURCES, RES_GPU);
    if (gpu.set && gpu.valid && gpu.i > 0) {
        limit l = {"a job with GPUs", gpu.arg_sp, ""};
        snprintf(l.asked, sizeof l.asked, "%lld GPU%s asked for here", (long long)gpu.i, gpu.i == 1 ? "" : "s");
        report(d, &platform, &l, fix);
    }
    if (!neuron_uncertain(eff)) {
        for (int k = 0; k < 2; k++) {
            opt_value from;
            int64_t n = neuron_devices(eff, (neuron_kind)k, &from);
            if (n <= 0)
                continue;
            limit l = {"a job with Neuron devices", from.arg_sp, ""};
            snprintf(l.asked, sizeof l.asked, "%lld %s device%s asked for here", (long long)n,
                     neuron_kind_name((neuron_kind)k), n == 1 ? "" : "s");
            report(d, &platform, &l, fix);
        }
    }
    opt_value efa = effective_opt(eff, DEC_BATCH, BATCH_EFA);
    if (efa.set && efa.valid && efa.i > 0) {
        limit l = {"a job with EFA devices", efa.arg_sp, ""};
        snprintf(l.asked, sizeof l.asked, "%lld EFA device%s asked for here", (long long)efa.i,
                 efa.i == 1 ? "" : "s");
        report(d, &platform, &l, fix);
    }
}

static span value_span(const opt_value *v) { return v->expr ? v->expr->sp : v->name_sp; }

/* E0211: @batch's count is @resources' under its seed spelling; given in
   both places, they must agree. */
static void check_same_count(diag_engine *d, const effective_options *eff)
{
    for (int k = 0; k < 2; k++) {
        option_written r = option_in_force(eff, DEC_RESOURCES, neuron_option(DEC_RESOURCES, (neuron_kind)k));
        option_written b = option_in_force(eff, DEC_BATCH, neuron_option(DEC_BATCH, (neuron_kind)k));
        if (!r.v.set || !b.v.set || r.v.i == b.v.i)
            continue;
        char rq[160], bq[160];
        diagnostic *dg = diag_report(d, value_span(&b.v), DIAG_E0211, "`%s` differs from `%s`",
                                     option_quote(bq, sizeof bq, &b), option_quote(rq, sizeof rq, &r));
        diag_label(d, dg, "%lld %s device%s here", (long long)b.v.i, neuron_kind_name((neuron_kind)k),
                   b.v.i == 1 ? "" : "s");
        diag_note(d, dg, value_span(&r.v), "%lld here", (long long)r.v.i);
        diag_help(d, dg, "they are one setting: give the count once, as `@resources(%s = %lld)` (every target reads "
                         "it), or make both the same",
                  r.name, (long long)r.v.i);
    }
}

void batch_check_step(diag_engine *d, const step_info *st, const effective_options *eff)
{
    check_platform(d, st, eff);
    /* A count given wrong (reported) agrees or differs with nothing. */
    if (!neuron_uncertain(eff) && !effective_uncertain(eff, DEC_RESOURCES, RES_GPU))
        check_same_count(d, eff);
}
