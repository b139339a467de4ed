#include "neuron_values.h"

#include "hw/neuron_instances.h"
#include "util/strbuf.h"

static const char *const kind_names[] = {"Trainium", "Inferentia"};
static const int neuron_res_opt[] = {RES_TRAINIUM, RES_INFERENTIA};
static const int neuron_batch_opt[] = {BATCH_TRAINIUM, BATCH_INFERENTIA};

static span value_span(const opt_value *v) { return v->expr ? v->expr->sp : v->name_sp; }

void check_neuron_values(diag_engine *d, const decorator_inst *inst)
{
    decorator_id dec = (decorator_id)inst->schema->id;
    if (dec != DEC_RESOURCES && dec != DEC_BATCH)
        return;
    for (int k = 0; k < 2; k++) {
        const opt_value *v = &inst->opts[dec == DEC_RESOURCES ? neuron_res_opt[k] : neuron_batch_opt[k]];
        int max = neuron_max_devices((neuron_kind)k);
        if (!v->set || !v->valid || v->i <= max)
            continue;
        const char *opt = neuron_kind_option((neuron_kind)k);
        diagnostic *dg = diag_report(d, value_span(v), DIAG_E0402,
                                     "`%s = %lld` is more %s devices than any instance has", opt, (long long)v->i,
                                     kind_names[k]);
        diag_label(d, dg, "at most %d on one machine", max);
        strbuf shapes = STRBUF_INIT;
        neuron_instance_shapes(&shapes, (neuron_kind)k);
        diag_note_plain(d, dg, "the %s instances: %s", kind_names[k], sb_cstr(&shapes));
        sb_free(&shapes);
        int64_t machines = (v->i + max - 1) / max;
        diag_help(d, dg, "the count is per machine: ask for `%s = %d` and spread the step over %lld machines with "
                         "`@run_with_accelerate(num_machines = %lld)`",
                  opt, max, (long long)machines, (long long)machines);
    }
}
