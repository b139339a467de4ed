#include "neuron_rules.h"

#include <stdio.h>

#include "util/strbuf.h"

static const char *const kind_names[] = {"Trainium", "Inferentia"};

static const int neuron_res_opt[] = {RES_TRAINIUM, RES_INFERENTIA};
static const int neuron_batch_opt[] = {BATCH_TRAINIUM, BATCH_INFERENTIA};

static span value_span(const opt_value *v) { return v->expr ? v->expr->sp : v->name_sp; }

int64_t neuron_devices(const effective_options *eff, neuron_kind k, opt_value *from)
{
    opt_value r = effective_opt(eff, DEC_RESOURCES, neuron_res_opt[k]);
    opt_value b = effective_opt(eff, DEC_BATCH, neuron_batch_opt[k]);
    *from = r.set || !b.set ? r : b;
    return from->i;
}

bool neuron_uncertain(const effective_options *eff)
{
    for (int k = 0; k < 2; k++)
        if (effective_uncertain(eff, DEC_RESOURCES, neuron_res_opt[k]) ||
            effective_uncertain(eff, DEC_BATCH, neuron_batch_opt[k]))
            return true;
    return false;
}

/* An option in force, with the decorator it is written in: what the
   messages quote ("@batch(trainium = 16)"). */
typedef struct written {
    decorator_id dec;
    const char *name;
    opt_value v;
} written;

static written in_force(const effective_options *eff, decorator_id dec, int opt)
{
    return (written){dec, decorator_by_id(dec)->options[opt].name, effective_opt(eff, dec, opt)};
}

static const char *quote(char *buf, size_t size, const written *w)
{
    snprintf(buf, size, "@%s(%s = %lld)", decorator_by_id(w->dec)->name, w->name, (long long)w->v.i);
    return buf;
}

/* The one written later in the files (the second of two), for E0210. */
static bool later(const written *a, const written *b)
{
    span x = a->v.arg_sp, y = b->v.arg_sp;
    return x.file != y.file ? x.file > y.file : x.start > y.start;
}

/* The Neuron count of a kind in force, as neuron_devices. */
static written neuron_in_force(const effective_options *eff, neuron_kind k)
{
    written r = in_force(eff, DEC_RESOURCES, neuron_res_opt[k]);
    return r.v.set || !effective_opt(eff, DEC_BATCH, neuron_batch_opt[k]).set
               ? r
               : in_force(eff, DEC_BATCH, neuron_batch_opt[k]);
}

/* E0210: a machine has one kind of accelerator. Reported at the option
   written second, with a note at the first. */
static bool check_one_kind(diag_engine *d, const effective_options *eff)
{
    written gpu = in_force(eff, DEC_RESOURCES, RES_GPU);
    written trn = neuron_in_force(eff, NEURON_TRAINIUM), inf = neuron_in_force(eff, NEURON_INFERENTIA);
    const written *pair[2] = {NULL, NULL};
    if (trn.v.i > 0 && inf.v.i > 0)
        pair[0] = &trn, pair[1] = &inf;
    else if (gpu.v.i > 0 && (trn.v.i > 0 || inf.v.i > 0))
        pair[0] = &gpu, pair[1] = trn.v.i > 0 ? &trn : &inf;
    else
        return false;
    if (later(pair[0], pair[1])) {
        const written *t = pair[0];
        pair[0] = pair[1], pair[1] = t;
    }
    char first[160], second[160];
    quote(first, sizeof first, pair[0]);
    quote(second, sizeof second, pair[1]);
    diagnostic *dg = diag_report(d, pair[1]->v.arg_sp, DIAG_E0210, "`%s` together with `%s`", second, first);
    diag_label(d, dg, "a second kind of accelerator");
    diag_note(d, dg, pair[0]->v.arg_sp, "`%s` is set here", first);
    if (gpu.v.i > 0)
        diag_help(d, dg, "Neuron instances have no GPUs and GPU instances no Neuron devices: keep `gpu` or `%s`, "
                         "and give the other work its own step",
                  trn.v.i > 0 ? "trainium" : "inferentia");
    else
        diag_help(d, dg, "an instance has Trainium or Inferentia devices, never both: keep one of them, and give "
                         "the other work its own step");
    return true;
}

/* E0211: @batch's count is @resources' under its seed spelling; given in
   both places, they must agree. */
static void check_same_count(diag_engine *d, const effective_options *eff)
{
    for (int k = 0; k < 2; k++) {
        written r = in_force(eff, DEC_RESOURCES, neuron_res_opt[k]);
        written b = in_force(eff, DEC_BATCH, neuron_batch_opt[k]);
        if (!r.v.set || !b.v.set || r.v.i == b.v.i)
            continue;
        char rq[160], bq[160];
        diagnostic *dg = diag_report(d, value_span(&b.v), DIAG_E0211, "`%s` differs from `%s`",
                                     quote(bq, sizeof bq, &b), quote(rq, sizeof rq, &r));
        diag_label(d, dg, "%lld %s device%s here", (long long)b.v.i, kind_names[k], b.v.i == 1 ? "" : "s");
        diag_note(d, dg, value_span(&r.v), "%lld here", (long long)r.v.i);
        diag_help(d, dg, "they are one setting: give the count once, as `@resources(%s = %lld)` (every target reads "
                         "it), or make both the same",
                  r.name, (long long)r.v.i);
    }
}

static opt_value acc_opt(const decorator_inst *inst, int opt)
{
    const opt_value *v = &inst->opts[opt];
    return v->set && v->valid ? *v : option_default(DEC_ACCELERATE, opt);
}

/* W0411: Neuron launchers run one process per device or one per NeuronCore
   on each machine; any other count leaves devices idle or shares cores. */
static void check_processes(diag_engine *d, const step_info *st, const effective_options *eff)
{
    const decorator_inst *inst = st->decorators.by_id[DEC_ACCELERATE];
    if (!inst || option_uncertain(inst, ACC_NUM_PROCESSES) || option_uncertain(inst, ACC_NUM_MACHINES) ||
        option_uncertain(inst, ACC_CPU) || acc_opt(inst, ACC_CPU).b)
        return;
    int64_t np = acc_opt(inst, ACC_NUM_PROCESSES).i, nm = acc_opt(inst, ACC_NUM_MACHINES).i;
    if (nm <= 0 || np % nm != 0)
        return; /* E0307 */
    int64_t per = np / nm;
    for (int k = 0; k < 2; k++) {
        written n = neuron_in_force(eff, (neuron_kind)k);
        if (n.v.i <= 0 || n.v.i > neuron_max_devices((neuron_kind)k))
            continue; /* none, or E0402 */
        if (neuron_processes_fit((neuron_kind)k, n.v.i, per))
            continue;
        const opt_value *npv = &inst->opts[ACC_NUM_PROCESSES];
        span at = npv->set ? npv->arg_sp : inst->decl->name.sp;
        diagnostic *dg = diag_report(d, at, DIAG_W0411, "%lld process%s per machine on %lld %s device%s",
                                     (long long)per, per == 1 ? "" : "es", (long long)n.v.i, kind_names[k],
                                     n.v.i == 1 ? "" : "s");
        diag_label(d, dg, "neither one per device nor one per NeuronCore");
        char q[160];
        diag_note(d, dg, n.v.arg_sp, "`%s` is set here", quote(q, sizeof q, &n));
        strbuf counts = STRBUF_INIT;
        neuron_process_counts(&counts, (neuron_kind)k, n.v.i);
        const neuron_instance *in = neuron_smallest_instance((neuron_kind)k, n.v.i);
        if (nm > 1)
            diag_help(d, dg, "run %s processes per machine (one per device, or one per NeuronCore of the instance), "
                             "e.g. `num_processes = %lld` on %lld machines of %s",
                      sb_cstr(&counts), (long long)(n.v.i * in->cores_per_device * nm), (long long)nm, in->name);
        else
            diag_help(d, dg, "run %s processes per machine (one per device, or one per NeuronCore of the instance), "
                             "e.g. `num_processes = %lld` on %s",
                      sb_cstr(&counts), (long long)(n.v.i * in->cores_per_device), in->name);
        sb_free(&counts);
    }
}

void check_neuron_step(diag_engine *d, const step_info *st, const effective_options *eff)
{
    if (neuron_uncertain(eff) || effective_uncertain(eff, DEC_RESOURCES, RES_GPU))
        return;
    check_same_count(d, eff);
    if (check_one_kind(d, eff))
        return;
    check_processes(d, st, eff);
}
