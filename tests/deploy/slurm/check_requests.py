#!/usr/bin/env python3
"""Checks what the batch scripts of a bundle ask Slurm for and how they run
the step, against bundle.yaml (docs/deploy-slurm.md): GPUs untyped
(--gpus-per-node=N) unless @slurm(gpu_type) names the cluster's GRES type
(--gpus-per-node=TYPE:N), never a type made from @resources(gpu_type);
@resources(disk) as --tmp only with @slurm(tmp = true); the step on the
node, or in its image with pyxis (--container-image) or apptainer (--nv
only with GPUs); --constraint from @slurm(constraint) and, for a step with
Neuron devices, @slurm(neuron_constraint), both required (`&`, a side with
`|` in parentheses), and a comment where a Neuron step has no
neuron_constraint. Used by tests/deploy/slurm_scripts.sh.

usage: check_requests.py BUNDLE
"""
import os
import re
import shlex
import sys

import yaml


def main():
    bundle = sys.argv[1]
    with open(os.path.join(bundle, "bundle.yaml"), encoding="utf-8") as f:
        manifest = yaml.load(f, Loader=yaml.BaseLoader)
    errors = []
    for inv in manifest["invocations"]:
        iid = inv["id"]
        with open(os.path.join(bundle, "slurm", iid + ".sbatch"), encoding="utf-8") as f:
            text = f.read()
        res = inv.get("resources") or {}
        slurm = inv.get("slurm") or {}
        extra = set(slurm.get("extra") or [])
        # The #SBATCH lines of the script, less those @slurm(extra) wrote.
        lines = [l[len("#SBATCH "):] for l in text.splitlines() if l.startswith("#SBATCH ")]
        lines = [l for l in lines if l not in extra]

        def has(pattern):
            return [l for l in lines if re.fullmatch(pattern, l)]

        gpu = int(res.get("gpu", "0"))
        gres_type = slurm.get("gpu_type")
        gpus = has(r"--(gpus-per-node|gres|gpus)=.*")
        if gpu > 0:
            want = f"--gpus-per-node={gres_type}:{gpu}" if gres_type else f"--gpus-per-node={gpu}"
            if gpus != [want]:
                errors.append(f"{iid}: GPU lines {gpus!r}, expected [{want!r}]")
        elif gpus:
            errors.append(f"{iid}: GPU lines {gpus!r} without GPUs")

        neuron = int(res.get("trainium", "0")) + int(res.get("inferentia", "0"))
        wanted = [c for c in (slurm.get("constraint"), slurm.get("neuron_constraint") if neuron else None) if c]
        want = "&".join(f"({c})" if "|" in c and len(wanted) > 1 else c for c in wanted)
        got = [shlex.split(l.split("=", 1)[1])[0] for l in has(r"--constraint=.*")]
        if got != ([want] if want else []):
            errors.append(f"{iid}: --constraint {got!r}, expected {want!r}")
        no_feature = re.search(r"^# \d+ (Trainium|Inferentia) devices? per node: .*neuron_constraint", text, re.M)
        if bool(no_feature) != (neuron > 0 and "neuron_constraint" not in slurm):
            errors.append(f"{iid}: the comment on Neuron nodes without @slurm(neuron_constraint) is "
                          f"{'there' if no_feature else 'missing'} ({neuron} Neuron devices)")

        disk = int(res.get("disk", "0"))
        tmp = has(r"--tmp=.*")
        want_tmp = disk > 0 and slurm.get("tmp") == "true"
        if bool(tmp) != want_tmp or len(tmp) > 1:
            errors.append(f"{iid}: --tmp lines {tmp!r} with disk {disk} and @slurm(tmp) {slurm.get('tmp')!r}")

        container = slurm.get("container", "none")
        pyxis = "--container-image=" in text
        apptainer = re.search(r"^APPTAINER=\(apptainer exec( --nv| --rocm)? ", text, re.M)
        on_node = "EXE=$PIPE_BUNDLE_EXE\n" in text
        if (container, pyxis, bool(apptainer), on_node) not in (
            ("none", False, False, True),
            ("pyxis", True, False, False),
            ("apptainer", False, True, False),
        ):
            errors.append(f"{iid}: @slurm(container) is {container!r}, but the script runs "
                          f"{'in pyxis' if pyxis else 'in apptainer' if apptainer else 'on the node' if on_node else '?'}")
        if apptainer and bool(apptainer.group(1)) != (gpu > 0):
            errors.append(f"{iid}: apptainer's GPU flag {apptainer.group(1)!r} with {gpu} GPUs")
    for e in errors:
        print("FAIL:", os.path.basename(bundle) + ":", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
