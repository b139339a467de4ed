#include "neuron_rules.h"

#include <stdio.h>

#include "util/strbuf.h"

static const int neuron_res_opt[] = {RES_TRAINIUM, RES_INFERENTIA};
static const int neuron_batch_opt[] = {BATCH_TRAINIUM, BATCH_INFERENTIA};

int neuron_option(decorator_id dec, neuron_kind k)
{
    return dec == DEC_BATCH ? neuron_batch_opt[k] : neuron_res_opt[k];
}

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

option_written option_in_force(const effective_options *eff, decorator_id dec, int opt)
{
    return (option_written){dec, decorator_by_id(dec)->options[opt].name, effective_opt(eff, dec, opt)};
}

const char *option_quote(char *buf, size_t size, const option_written *w)
{
    snprintf(buf, size, "@%s(%s = %lld)", decorator_by_id(w->dec)->name, w->name, (long long)w->v.i);
    return buf;
}

/* The one written later in the files (the second of two), for E0210. */
static bool later(const option_written *a, const option_written *b)
{
    span x = a->v.arg_sp, y = b->v.arg_sp;
    return x.file != y.file ? x.file > y.file : x.start > y.start;
}

/* The Neuron count of a kind in force, as neuron_devices. */
static option_written neuron_in_force(const effective_options *eff, neuron_kind k)
{
    option_written r = option_in_force(eff, DEC_RESOURCES, neuron_res_opt[k]);
    return r.v.set || !effective_opt(eff, DEC_BATCH, neuron_batch_opt[k]).set
               ? r
               : option_in_force(eff, DEC_BATCH, neuron_batch_opt[k]);
}

/* E0210: a machine has one kind of accelerator. Reported at the option
   written second, with a note at the first. */
static bool check_one_kind(diag_engine *d, const effective_options *eff)
{
    option_written gpu = option_in_force(eff, DEC_RESOURCES, RES_GPU);
    option_written trn = neuron_in_force(eff, NEURON_TRAINIUM), inf = neuron_in_force(eff, NEURON_INFERENTIA);
    const option_written *pair[2] = {NULL, NULL};
    if (trn.v.i > 0 && inf.v.i > 0)
        pair[0] = &trn, pair[1] = &inf;
    else if (gpu.v.i > 0 && (trn.v.i > 0 || inf.v.i > 0))
        pair[0] = &gpu, pair[1] = trn.v.i > 0 ? &trn : &inf;
    else
        return false;
    if (later(pair[0], pair[1])) {
        const option_written *t = pair[0];
        pair[0] = pair[1], pair[1] = t;
    }
    char first[160], second[160];
    option_quote(first, sizeof first, pair[0]);
    option_quote(second, sizeof second, pair[1]);
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
        option_written n = neuron_in_force(eff, (neuron_kind)k);
        if (n.v.i <= 0 || n.v.i > neuron_max_devices((neuron_kind)k))
            continue; /* none, or E0402 */
        if (neuron_processes_fit((neuron_kind)k, n.v.i, per))
            continue;
        const opt_value *npv = &inst->opts[ACC_NUM_PROCESSES];
        span at = npv->set ? npv->arg_sp : inst->decl->name.sp;
        diagnostic *dg = diag_report(d, at, DIAG_W0411, "%lld process%s per machine on %lld %s device%s",
                                     (long long)per, per == 1 ? "" : "es", (long long)n.v.i,
                                     neuron_kind_name((neuron_kind)k), n.v.i == 1 ? "" : "s");
        diag_label(d, dg, "neither one per device nor one per NeuronCore");
        char q[160];
        diag_note(d, dg, n.v.arg_sp, "`%s` is set here", option_quote(q, sizeof q, &n));
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
    if (check_one_kind(d, eff))
        return;
    check_processes(d, st, eff);
}
