/* The Neuron launch environment (private): what each rank of a step with
   AWS Neuron devices (Trainium, Inferentia) gets, as the torchrun recipes
   for Neuron set it; beside CUDA_VISIBLE_DEVICES for GPU steps
   (rank_env_write.c). docs/distributed.md "Neuron devices" has the rules
   and their sources. */
#ifndef PIPE_NEURON_ENV_H
#define PIPE_NEURON_ENV_H

#include <stddef.h>

/* NeuronCores per Neuron device: PIPE_NEURON_CORES_PER_DEVICE (1 to 64)
   when set, else nlocal / devices when the local ranks are a multiple of
   the devices above them (one core a rank, the torchrun recipes' layout),
   else 2 (trn1, trn1n, inf2). The runtime cannot see the instance type. */
int pipe_neuron_cores_per_device(int devices, int nlocal);

/* The cores of local_rank among nlocal on a machine with `devices` Neuron
   devices: "first-last" (or "first") in out for NEURON_RT_VISIBLE_CORES
   when the machine's cores split evenly, else "" and *count for
   NEURON_RT_NUM_CORES (the cores of one rank, at least 1). */
void pipe_neuron_rank_cores(int devices, int local_rank, int nlocal, char *out, size_t size, int *count);

/* In a forked rank: NEURON_RT_NUM_CORES (one local rank) or
   NEURON_RT_VISIBLE_CORES (several; NEURON_RT_NUM_CORES when the cores do
   not split evenly), unless either is set already; with EFA devices
   FI_PROVIDER=efa, FI_EFA_USE_DEVICE_RDMA=1, FI_EFA_FORK_SAFE=1, each
   unless set. Nothing without Neuron devices (EFA alone gets its three). */
void pipe_neuron_env_set(int devices, int efa, int local_rank, int nlocal);

#endif
