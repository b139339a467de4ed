/* The table of Neuron instances (compiler/hw/neuron_instances.c): the
 * largest instance of each kind, the smallest that holds a count, the
 * process counts that fit a machine's devices (one per device, one per
 * NeuronCore of an instance that has them), and the shapes help lists. */
#include "hw/neuron_instances.h"

#include "check.h"

#include <string.h>

static void smallest(neuron_kind k, int64_t devices, const char *name)
{
    const neuron_instance *in = neuron_smallest_instance(k, devices);
    if (!name) {
        CHECK_NULL(in);
        return;
    }
    CHECK(in != NULL);
    if (in)
        CHECK_STREQ(in->name, name);
}

static void counts(neuron_kind k, int64_t devices, const char *want)
{
    strbuf sb = STRBUF_INIT;
    neuron_process_counts(&sb, k, devices);
    CHECK_STREQ(sb_cstr(&sb), want);
    sb_free(&sb);
}

int main(void)
{
    CHECK(neuron_max_devices(NEURON_TRAINIUM) == 16);
    CHECK(neuron_max_devices(NEURON_INFERENTIA) == 16);
    CHECK_STREQ(neuron_kind_option(NEURON_TRAINIUM), "trainium");
    CHECK_STREQ(neuron_kind_option(NEURON_INFERENTIA), "inferentia");

    smallest(NEURON_TRAINIUM, 1, "trn1.2xlarge");
    smallest(NEURON_TRAINIUM, 2, "trn1.32xlarge");
    smallest(NEURON_TRAINIUM, 16, "trn1.32xlarge");
    smallest(NEURON_TRAINIUM, 17, NULL);
    smallest(NEURON_INFERENTIA, 1, "inf2.xlarge");
    smallest(NEURON_INFERENTIA, 5, "inf2.24xlarge");
    smallest(NEURON_INFERENTIA, 12, "inf2.48xlarge");
    smallest(NEURON_INFERENTIA, 16, "inf1.24xlarge");
    smallest(NEURON_INFERENTIA, 17, NULL);

    /* Every row: a known kind, devices and cores that make sense. */
    for (size_t i = 0; i < neuron_instance_count; i++) {
        const neuron_instance *in = &neuron_instances[i];
        CHECK(in->devices >= 1 && in->devices <= 16);
        CHECK(in->cores_per_device == 2 || in->cores_per_device == 4 || in->cores_per_device == 8);
        CHECK(strncmp(in->name, in->kind == NEURON_TRAINIUM ? "trn" : "inf", 3) == 0);
    }

    /* trn1.32xlarge: 16 devices of 2 cores; trn2.48xlarge: 8 cores each. */
    CHECK(neuron_processes_fit(NEURON_TRAINIUM, 16, 16));
    CHECK(neuron_processes_fit(NEURON_TRAINIUM, 16, 32));
    CHECK(neuron_processes_fit(NEURON_TRAINIUM, 16, 128));
    CHECK(!neuron_processes_fit(NEURON_TRAINIUM, 16, 64));
    CHECK(!neuron_processes_fit(NEURON_TRAINIUM, 16, 8));
    CHECK(neuron_processes_fit(NEURON_TRAINIUM, 1, 2));
    /* inf1 has 4 cores a device, inf2 2; 12 devices only on inf2.48xlarge
       and inf1.24xlarge. */
    CHECK(neuron_processes_fit(NEURON_INFERENTIA, 4, 16));
    CHECK(neuron_processes_fit(NEURON_INFERENTIA, 4, 8));
    CHECK(!neuron_processes_fit(NEURON_INFERENTIA, 4, 32));
    CHECK(neuron_processes_fit(NEURON_INFERENTIA, 16, 64));
    CHECK(!neuron_processes_fit(NEURON_INFERENTIA, 16, 32)); /* no inf2 holds 16 */
    counts(NEURON_TRAINIUM, 16, "16, 32 or 128");
    counts(NEURON_INFERENTIA, 16, "16 or 64");
    counts(NEURON_INFERENTIA, 2, "2, 4 or 8");

    /* One instance per generation that holds the devices (SkyPilot's candidates). */
    const neuron_instance *fit[4];
    size_t nfit = neuron_generation_fits(NEURON_TRAINIUM, 16, fit, 4);
    CHECK(nfit == 2);
    if (nfit == 2) {
        CHECK_STREQ(fit[0]->name, "trn1.32xlarge");
        CHECK_STREQ(fit[1]->name, "trn2.48xlarge");
        CHECK_STREQ(fit[1]->generation, "Trainium2");
    }
    nfit = neuron_generation_fits(NEURON_INFERENTIA, 2, fit, 4);
    CHECK(nfit == 2);
    if (nfit == 2) {
        CHECK_STREQ(fit[0]->name, "inf2.24xlarge");
        CHECK_STREQ(fit[1]->name, "inf1.6xlarge");
    }
    nfit = neuron_generation_fits(NEURON_INFERENTIA, 16, fit, 4);
    CHECK(nfit == 1 && strcmp(fit[0]->generation, "Inferentia") == 0);
    CHECK(neuron_generation_fits(NEURON_TRAINIUM, 17, fit, 4) == 0);

    strbuf sb = STRBUF_INIT;
    neuron_instance_shapes(&sb, NEURON_TRAINIUM);
    CHECK_STREQ(sb_cstr(&sb), "trn1.2xlarge (1 device), trn1.32xlarge (16 devices), trn1n.32xlarge (16 devices), "
                              "trn2.48xlarge (16 devices)");
    sb_free(&sb);
    return check_summary();
}
