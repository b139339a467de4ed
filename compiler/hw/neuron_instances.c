#include "neuron_instances.h"

#include <string.h>

/* AWS's instance pages (Trainium, Trainium2, Inferentia, Inferentia2) and
   the Neuron documentation's hardware pages give the counts. */
const neuron_instance neuron_instances[] = {
    {"trn1.2xlarge", NEURON_TRAINIUM, "Trainium", 1, 2},
    {"trn1.32xlarge", NEURON_TRAINIUM, "Trainium", 16, 2},
    {"trn1n.32xlarge", NEURON_TRAINIUM, "Trainium", 16, 2},
    {"trn2.48xlarge", NEURON_TRAINIUM, "Trainium2", 16, 8},
    {"inf2.xlarge", NEURON_INFERENTIA, "Inferentia2", 1, 2},
    {"inf2.8xlarge", NEURON_INFERENTIA, "Inferentia2", 1, 2},
    {"inf2.24xlarge", NEURON_INFERENTIA, "Inferentia2", 6, 2},
    {"inf2.48xlarge", NEURON_INFERENTIA, "Inferentia2", 12, 2},
    {"inf1.xlarge", NEURON_INFERENTIA, "Inferentia", 1, 4},
    {"inf1.2xlarge", NEURON_INFERENTIA, "Inferentia", 1, 4},
    {"inf1.6xlarge", NEURON_INFERENTIA, "Inferentia", 4, 4},
    {"inf1.24xlarge", NEURON_INFERENTIA, "Inferentia", 16, 4},
};
const size_t neuron_instance_count = sizeof neuron_instances / sizeof neuron_instances[0];

const char *neuron_kind_option(neuron_kind k) { return k == NEURON_TRAINIUM ? "trainium" : "inferentia"; }

const char *neuron_kind_name(neuron_kind k) { return k == NEURON_TRAINIUM ? "Trainium" : "Inferentia"; }

int neuron_max_devices(neuron_kind k)
{
    int max = 0;
    for (size_t i = 0; i < neuron_instance_count; i++)
        if (neuron_instances[i].kind == k && neuron_instances[i].devices > max)
            max = neuron_instances[i].devices;
    return max;
}

const neuron_instance *neuron_smallest_instance(neuron_kind k, int64_t devices)
{
    const neuron_instance *best = NULL;
    for (size_t i = 0; i < neuron_instance_count; i++) {
        const neuron_instance *in = &neuron_instances[i];
        if (in->kind == k && in->devices >= devices && (!best || in->devices < best->devices))
            best = in;
    }
    return best;
}

size_t neuron_generation_fits(neuron_kind k, int64_t devices, const neuron_instance **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < neuron_instance_count; i++) {
        const neuron_instance *in = &neuron_instances[i];
        if (in->kind != k || in->devices < devices)
            continue;
        size_t g = 0;
        while (g < n && strcmp(out[g]->generation, in->generation) != 0)
            g++;
        if (g < n) {
            if (in->devices < out[g]->devices)
                out[g] = in;
        } else if (n < max) {
            out[n++] = in;
        }
    }
    return n;
}

bool neuron_processes_fit(neuron_kind k, int64_t devices, int64_t per_machine)
{
    if (per_machine == devices)
        return true;
    for (size_t i = 0; i < neuron_instance_count; i++) {
        const neuron_instance *in = &neuron_instances[i];
        if (in->kind == k && in->devices >= devices && devices * in->cores_per_device == per_machine)
            return true;
    }
    return false;
}

void neuron_instance_shapes(strbuf *out, neuron_kind k)
{
    const char *sep = "";
    for (size_t i = 0; i < neuron_instance_count; i++) {
        const neuron_instance *in = &neuron_instances[i];
        if (in->kind != k)
            continue;
        sb_printf(out, "%s%s (%d device%s)", sep, in->name, in->devices, in->devices == 1 ? "" : "s");
        sep = ", ";
    }
}

void neuron_process_counts(strbuf *out, neuron_kind k, int64_t devices)
{
    /* The counts in rising order, each once: devices, then devices x each
       distinct core count of the instances that hold them. */
    int64_t counts[8];
    size_t n = 0;
    counts[n++] = devices;
    for (size_t i = 0; i < neuron_instance_count; i++) {
        const neuron_instance *in = &neuron_instances[i];
        if (in->kind != k || in->devices < devices)
            continue;
        int64_t c = devices * in->cores_per_device;
        size_t at = 0;
        while (at < n && counts[at] < c)
            at++;
        if ((at < n && counts[at] == c) || n == sizeof counts / sizeof counts[0])
            continue;
        for (size_t j = n; j > at; j--)
            counts[j] = counts[j - 1];
        counts[at] = c;
        n++;
    }
    for (size_t i = 0; i < n; i++)
        sb_printf(out, "%s%lld", i == 0 ? "" : i + 1 == n ? " or " : ", ", (long long)counts[i]);
}
