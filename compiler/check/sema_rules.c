/* Rules over decorator options: the accelerate launcher's constraints, and
   those that depend on the options in force for an invocation (a pipeline's
   defaults merged with the step's own), the deploy targets' own among them
   (each in its targets/<name>/, handed over in check_options.rules). */
#include <stdio.h>
#include <string.h>

#include "util/images.h"
#include "neuron_rules.h"
#include "sema.h"

/* The option's own span when it was written, else the decorator's name. */
static span option_span(const decorator_inst *inst, int opt)
{
    const opt_value *v = &inst->opts[opt];
    return v->set ? v->arg_sp : inst->decl->name.sp;
}

static opt_value acc(const decorator_inst *inst, int opt)
{
    const opt_value *v = &inst->opts[opt];
    return v->set && v->valid ? *v : option_default(DEC_ACCELERATE, opt);
}

void sema_check_accelerate(sema *s, step_info *st)
{
    diag_engine *d = s->pg->diag;
    const decorator_inst *inst = st->decorators.by_id[DEC_ACCELERATE];
    if (!inst)
        return;
    int64_t np = acc(inst, ACC_NUM_PROCESSES).i, nm = acc(inst, ACC_NUM_MACHINES).i;
    bool multi_gpu = acc(inst, ACC_MULTI_GPU).b, cpu = acc(inst, ACC_CPU).b;
    const char *mp = acc(inst, ACC_MIXED_PRECISION).s;
    int64_t port = acc(inst, ACC_MAIN_PROCESS_PORT).i;
    /* A rule that reads an option whose value is unsure (reported already)
       says nothing. */
    bool u_np = option_uncertain(inst, ACC_NUM_PROCESSES), u_nm = option_uncertain(inst, ACC_NUM_MACHINES);
    bool u_multi = option_uncertain(inst, ACC_MULTI_GPU), u_cpu = option_uncertain(inst, ACC_CPU);
    bool u_mp = option_uncertain(inst, ACC_MIXED_PRECISION), u_port = option_uncertain(inst, ACC_MAIN_PROCESS_PORT);

    if (cpu && multi_gpu && !u_cpu && !u_multi) {
        diagnostic *dg =
            diag_report(d, option_span(inst, ACC_CPU), DIAG_E0304, "`cpu = true` together with `multi_gpu = true`");
        diag_label(d, dg, "runs on CPUs only");
        diag_note(d, dg, option_span(inst, ACC_MULTI_GPU), "`multi_gpu = true` is set here");
        diag_help(d, dg, "choose one: remove `cpu = true` to train on GPUs, or `multi_gpu = true` to train on CPUs");
    }
    if (cpu && mp && (strcmp(mp, "fp16") == 0 || strcmp(mp, "fp8") == 0) && !u_cpu && !u_mp) {
        diagnostic *dg = diag_report(d, option_span(inst, ACC_MIXED_PRECISION), DIAG_E0306,
                                     "`mixed_precision = \"%s\"` needs a GPU, but the step runs with `cpu = true`", mp);
        diag_label(d, dg, "%s is a GPU precision", mp);
        diag_note(d, dg, option_span(inst, ACC_CPU), "`cpu = true` is set here");
        diag_help(d, dg, "use `mixed_precision = \"bf16\"` or `\"no\"` on CPUs");
    }
    if (np % nm != 0 && !u_np && !u_nm) {
        span at = inst->opts[ACC_NUM_PROCESSES].set ? option_span(inst, ACC_NUM_PROCESSES)
                                                     : option_span(inst, ACC_NUM_MACHINES);
        diagnostic *dg =
            diag_report(d, at, DIAG_E0307, "`num_processes = %lld` is not a multiple of `num_machines = %lld`",
                        (long long)np, (long long)nm);
        diag_label(d, dg, "must divide evenly across machines");
        diag_help(d, dg, "num_processes counts processes on all machines together; use %lld or %lld",
                  (long long)(np / nm > 0 ? np / nm * nm : nm), (long long)((np / nm + 1) * nm));
    }
    if (multi_gpu && np < 2 && !u_multi && !u_np) {
        diagnostic *dg = diag_report(d, option_span(inst, ACC_MULTI_GPU), DIAG_E0309,
                                     "`multi_gpu = true` with %lld process", (long long)np);
        diag_label(d, dg, "needs at least 2 processes");
        diag_help(d, dg, "set `num_processes = 2` or more, or remove `multi_gpu = true` for a single-GPU run");
    }
    /* Not given, the port is PIPE_DEFAULT_MAIN_PROCESS_PORT across machines:
       only a written 0 is wrong. */
    if (port == 0 && inst->opts[ACC_MAIN_PROCESS_PORT].set && nm > 1 && !u_port && !u_nm) {
        diagnostic *dg = diag_report(d, option_span(inst, ACC_MAIN_PROCESS_PORT), DIAG_E0310,
                                     "`main_process_port = 0` with %lld machines", (long long)nm);
        diag_label(d, dg, "other machines cannot find a port picked at random");
        diag_help(d, dg, "give a fixed port, e.g. `main_process_port = %d`", PIPE_DEFAULT_MAIN_PROCESS_PORT);
    }
}

static span value_span(const opt_value *v) { return v->expr ? v->expr->sp : v->name_sp; }

static void check_gpu_count(sema *s, step_info *st, const effective_options *eff, int64_t gpu, bool neuron)
{
    diag_engine *d = s->pg->diag;
    const decorator_inst *inst = st->decorators.by_id[DEC_ACCELERATE];
    if (!inst)
        return;
    int64_t np = acc(inst, ACC_NUM_PROCESSES).i, nm = acc(inst, ACC_NUM_MACHINES).i;
    bool multi_gpu = acc(inst, ACC_MULTI_GPU).b, cpu = acc(inst, ACC_CPU).b;
    if (!multi_gpu || cpu)
        return; /* E0304 says what is wrong with cpu = true */
    if (option_uncertain(inst, ACC_NUM_PROCESSES) || option_uncertain(inst, ACC_NUM_MACHINES) ||
        option_uncertain(inst, ACC_MULTI_GPU) || option_uncertain(inst, ACC_CPU) ||
        effective_uncertain(eff, DEC_RESOURCES, RES_GPU))
        return;
    /* With a process count that E0307 or E0309 rejects, only "no GPU at all"
       is certain. */
    bool counts_ok = np >= 2 && np % nm == 0;
    int64_t per_machine = counts_ok ? np / nm : 0;
    if (gpu > 0 && (!counts_ok || gpu >= per_machine))
        return;
    span at = inst->opts[ACC_NUM_PROCESSES].set ? option_span(inst, ACC_NUM_PROCESSES)
                                                 : option_span(inst, ACC_MULTI_GPU);
    opt_value g = effective_opt(eff, DEC_RESOURCES, RES_GPU);
    diagnostic *dg;
    if (gpu == 0)
        dg = diag_report(d, at, DIAG_E0305, "`multi_gpu = true` but step `%s` has no GPU", st->name);
    else
        dg = diag_report(d, at, DIAG_E0305, "%lld process%s per machine need %lld GPUs, but step `%s` has %lld",
                         (long long)per_machine, per_machine == 1 ? "" : "es", (long long)per_machine, st->name,
                         (long long)gpu);
    if (gpu == 0 && neuron) {
        /* multi_gpu is CUDA's: Neuron ranks get their NeuronCores from the
           Neuron runtime. */
        diag_label(d, dg, "one GPU per process");
        diag_help(d, dg, "remove `multi_gpu = true`: the processes of a step with Neuron devices run on its "
                         "NeuronCores without it");
        return;
    }
    if (!counts_ok) {
        diag_label(d, dg, "one GPU per process");
        if (g.set)
            diag_note(d, dg, g.arg_sp, "the GPU count comes from here");
        diag_help(d, dg, "give the step one GPU per process on each machine, e.g. `@resources(gpu = 2)`");
        return;
    }
    diag_label(d, dg, "one GPU per process");
    if (g.set)
        diag_note(d, dg, g.arg_sp, "the GPU count comes from here");
    if (nm > 1)
        diag_help(d, dg, "set `@resources(gpu = %lld)` (GPUs per machine), or lower `num_processes`",
                  (long long)per_machine);
    else
        diag_help(d, dg, "set `@resources(gpu = %lld)`, or lower `num_processes`", (long long)per_machine);
}

static void check_images(sema *s, step_info *st, const effective_options *eff, bool needs_gpu, bool gpu_unsure)
{
    diag_engine *d = s->pg->diag;
    opt_value parent = effective_opt(eff, DEC_DOCKER, DOCKER_PARENT_IMAGE);
    opt_value build = effective_opt(eff, DEC_DOCKER, DOCKER_BUILD_IMAGE);
    bool image_unsure = effective_uncertain(eff, DEC_DOCKER, DOCKER_PARENT_IMAGE);
    if (gpu_unsure || image_unsure) {
        /* no W0401: what it would say is not known */
    } else if (needs_gpu && parent.set && !image_is_cuda(parent.s)) {
        diagnostic *dg = diag_report(d, value_span(&parent), DIAG_W0401,
                                     "step `%s` needs a GPU but image \"%s\" is not CUDA-enabled", st->name,
                                     parent.s);
        diag_label(d, dg, "no CUDA in this image");
        diag_help(d, dg, "use a CUDA image, e.g. `parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\"`");
    } else if (needs_gpu && !parent.set && s->opts->container_targets) {
        diagnostic *dg = diag_report(d, st->decl->name.sp, DIAG_W0401,
                                     "step `%s` needs a GPU but has no image for the container targets", st->name);
        diag_label(d, dg, "no @docker(parent_image = ...)");
        diag_help(d, dg, "add `@docker(parent_image = \"nvidia/cuda:12.4.1-runtime-ubuntu22.04\")` to the step or "
                         "the pipeline");
        diag_note_plain(d, dg, "pipec uses its default CUDA image, pinned for the drivers in use (docs/deploy-docker.md)");
    }
    int pma, pmi, bma, bmi;
    if (parent.set && build.set && !image_unsure && !effective_uncertain(eff, DEC_DOCKER, DOCKER_BUILD_IMAGE) &&
        image_cuda_version(parent.s, &pma, &pmi) &&
        image_cuda_version(build.s, &bma, &bmi) && (pma != bma || pmi != bmi)) {
        diagnostic *dg = diag_report(d, value_span(&build), DIAG_W0402,
                                     "build image has CUDA %d.%d but the parent image has CUDA %d.%d", bma, bmi,
                                     pma, pmi);
        diag_label(d, dg, "CUDA %d.%d", bma, bmi);
        diag_note(d, dg, value_span(&parent), "the parent image is set here");
        diag_help(d, dg, "code built against a newer CUDA may not load in the runtime image: use the same "
                         "version in both");
    }
}

/* W0403: the memory cleanup works on GPUs and the profiler samples GPUs
   and Neuron devices (neuron-monitor); a step with neither gets nothing
   from the first and only CPU and memory charts from the second. */
static void check_gpu_decorators(sema *s, step_info *st, bool needs_gpu, bool neuron)
{
    if (needs_gpu || neuron)
        return;
    static const decorator_id gpu_only[] = {DEC_CLEANUP_MEMORY, DEC_GPU_PROFILE};
    for (size_t i = 0; i < sizeof gpu_only / sizeof gpu_only[0]; i++) {
        const decorator_inst *inst = st->decorators.by_id[gpu_only[i]];
        if (!inst)
            continue;
        diagnostic *dg = diag_report(s->pg->diag, inst->decl->name.sp, DIAG_W0403,
                                     "@%s on step `%s`, which uses no GPU and no Neuron device",
                                     inst->schema->name, st->name);
        if (gpu_only[i] == DEC_GPU_PROFILE) {
            diag_label(s->pg->diag, dg, "records only CPU and memory without an accelerator");
            diag_help(s->pg->diag, dg,
                      "the report gets the step's CPU and memory charts (profile/process.csv) and no GPU ones; "
                      "give the step a GPU with `@resources(gpu = 1)` or a Neuron device with "
                      "`@resources(trainium = 1)` for those");
        } else {
            diag_label(s->pg->diag, dg, "has no effect without an accelerator");
            diag_help(s->pg->diag, dg,
                      "give the step a GPU with `@resources(gpu = 1)` or a Neuron device with "
                      "`@resources(trainium = 1)`, or remove @%s",
                      inst->schema->name);
        }
    }
}

/* W0406: `cpu = true` wins over the step's GPUs, which then sit idle. */
static void check_cpu_with_gpus(sema *s, step_info *st, const effective_options *eff, int64_t gpu)
{
    diag_engine *d = s->pg->diag;
    const decorator_inst *inst = st->decorators.by_id[DEC_ACCELERATE];
    if (!inst || gpu <= 0 || !acc(inst, ACC_CPU).b || option_uncertain(inst, ACC_CPU))
        return;
    if (acc(inst, ACC_MULTI_GPU).b)
        return; /* E0304 says what is wrong */
    opt_value g = effective_opt(eff, DEC_RESOURCES, RES_GPU);
    diagnostic *dg = diag_report(d, option_span(inst, ACC_CPU), DIAG_W0406,
                                 "`cpu = true` on step `%s`, which asks for %lld GPU%s", st->name, (long long)gpu,
                                 gpu == 1 ? "" : "s");
    diag_label(d, dg, "its ranks run on the CPU and see no GPU");
    if (g.set)
        diag_note(d, dg, g.arg_sp, "the GPU count comes from here");
    diag_help(d, dg, "the GPUs are still reserved and sit idle: remove `gpu = %lld`, or remove `cpu = true` to run on "
                     "them",
              (long long)gpu);
}

void sema_check_effective(sema *s, step_info *st, const effective_options *eff, bool damaged)
{
    if (damaged)
        return; /* a decorator may have been lost: the options in force are not known */
    int64_t gpu = effective_opt(eff, DEC_RESOURCES, RES_GPU).i;
    const decorator_inst *accel = st->decorators.by_id[DEC_ACCELERATE];
    /* `cpu = true` wins over a GPU count: such a step needs no GPU. */
    bool cpu_only = accel && acc(accel, ACC_CPU).b;
    bool needs_gpu = (gpu > 0 && !cpu_only) || (accel && acc(accel, ACC_MULTI_GPU).b);
    /* Whether it uses a GPU is not known when the values that say so were
       given wrong (reported): the warnings about GPUs wait for a fix. */
    bool gpu_unsure = effective_uncertain(eff, DEC_RESOURCES, RES_GPU) || option_uncertain(accel, ACC_MULTI_GPU) ||
                      option_uncertain(accel, ACC_CPU);
    opt_value from;
    bool neuron = neuron_devices(eff, NEURON_TRAINIUM, &from) > 0 || neuron_devices(eff, NEURON_INFERENTIA, &from) > 0;
    check_gpu_count(s, st, eff, gpu, neuron && !neuron_uncertain(eff));
    if (!effective_uncertain(eff, DEC_RESOURCES, RES_GPU))
        check_cpu_with_gpus(s, st, eff, gpu);
    /* The deploy targets' own rules (targets/<name>/), whatever --target says. */
    for (size_t i = 0; i < s->opts->nrules; i++)
        if (s->opts->rules[i]->step)
            s->opts->rules[i]->step(s->pg->diag, st, eff);
    check_neuron_step(s->pg->diag, st, eff);
    check_images(s, st, eff, needs_gpu, gpu_unsure);
    if (!gpu_unsure && !neuron_uncertain(eff))
        check_gpu_decorators(s, st, needs_gpu, neuron);
}

void sema_check_pipeline_rules(sema *s, const pipeline_info *pl)
{
    for (size_t i = 0; i < s->opts->nrules; i++)
        if (s->opts->rules[i]->pipeline)
            s->opts->rules[i]->pipeline(s->pg->diag, pl);
}
