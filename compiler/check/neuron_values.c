#include "neuron_values.h"

#include "hw/neuron_instances.h"
#include "util/strbuf.h"

static span value_span(const opt_value *v) { return v->expr ? v->expr->sp : v->name_sp; }

/* A count of kind k above what one instance has: E0402. The value stays
   valid: the rules that read it pass over such a count (W0411). */
static bool check_count(diag_engine *d, const opt_value *v, neuron_kind k)
{
    int max = neuron_max_devices(k);
    if (v->i <= max)
        return true;
    const char *opt = neuron_kind_option(k);
    diagnostic *dg = diag_report(d, value_span(v), DIAG_E0402, "`%s = %lld` is more %s devices than any instance has",
                                 opt, (long long)v->i, neuron_kind_name(k));
    diag_label(d, dg, "at most %d on one machine", max);
    strbuf shapes = STRBUF_INIT;
    neuron_instance_shapes(&shapes, k);
    diag_note_plain(d, dg, "the %s instances: %s", neuron_kind_name(k), sb_cstr(&shapes));
    sb_free(&shapes);
    int64_t machines = (v->i + max - 1) / max;
    diag_help(d, dg, "the count is per machine: ask for `%s = %d` and spread the step over %lld machines with "
                     "`@run_with_accelerate(num_machines = %lld)`",
              opt, max, (long long)machines, (long long)machines);
    return true;
}

bool option_check_trainium(diag_engine *d, const opt_value *v) { return check_count(d, v, NEURON_TRAINIUM); }

bool option_check_inferentia(diag_engine *d, const opt_value *v) { return check_count(d, v, NEURON_INFERENTIA); }
