/* The AWS instances with Neuron devices (Trainium, Inferentia), their
   device counts and NeuronCores per device: what the checker holds a
   step's `trainium`/`inferentia` count and process count against (E0402,
   W0411) and what a target that picks or describes an instance reads. A
   step asks for one kind, `@resources(trainium = N)` or
   `@resources(inferentia = N)`, per machine; the instance's generation
   (trn1 or trn2, inf1 or inf2) is the queue's, node pool's or cloud's
   choice. */
#ifndef PIPEC_NEURON_INSTANCES_H
#define PIPEC_NEURON_INSTANCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

typedef enum { NEURON_TRAINIUM, NEURON_INFERENTIA } neuron_kind;

typedef struct neuron_instance {
    const char *name;       /* the EC2 instance type: "trn1.32xlarge" */
    neuron_kind kind;
    const char *generation; /* "Trainium", "Trainium2", "Inferentia", "Inferentia2": SkyPilot's
                               accelerator names (its AWS catalog's) */
    int devices;            /* Neuron devices on one instance */
    int cores_per_device;   /* NeuronCores on one device */
} neuron_instance;

/* Every instance, by kind, then generation, then size. */
extern const neuron_instance neuron_instances[];
extern const size_t neuron_instance_count;

/* The option that counts the kind's devices: "trainium" or "inferentia". */
const char *neuron_kind_option(neuron_kind k);
/* The kind as messages name it: "Trainium" or "Inferentia". */
const char *neuron_kind_name(neuron_kind k);
/* The most devices one instance of the kind has. */
int neuron_max_devices(neuron_kind k);
/* The smallest instance of the kind with at least `devices` devices, or NULL. */
const neuron_instance *neuron_smallest_instance(neuron_kind k, int64_t devices);
/* Per generation of the kind (table order: trn1 before trn2, inf2 before
   inf1), the smallest instance with at least `devices` devices: the
   machines a cloud can give the step. Fills out[0..max), returns the count. */
size_t neuron_generation_fits(neuron_kind k, int64_t devices, const neuron_instance **out, size_t max);
/* Whether a machine with `devices` devices of the kind runs `per_machine`
   processes as Neuron launchers do: one per device, or one per NeuronCore
   (devices x cores per device of an instance of the kind that has them). */
bool neuron_processes_fit(neuron_kind k, int64_t devices, int64_t per_machine);
/* "trn1.2xlarge (1 device), trn1.32xlarge (16 devices), ...": the kind's
   instances, for a diagnostic's help. */
void neuron_instance_shapes(strbuf *out, neuron_kind k);
/* "1 or 2 or 8": the process counts per machine that fit `devices`, for a
   diagnostic's help (neuron_processes_fit). */
void neuron_process_counts(strbuf *out, neuron_kind k, int64_t devices);

#endif
