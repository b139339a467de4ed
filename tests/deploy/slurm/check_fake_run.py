#!/usr/bin/env python3
"""Checks what a submit.sh run against the fake Slurm tools (fake/) recorded:
every value arrived exactly as bundle.yaml says, through sbatch, the batch
script, srun and the executable. Used by tests/deploy/slurm_scripts.sh.

usage: check_fake_run.py BUNDLE LOG STORE RUN_ID EXE STDOUT PARAM...
"""
import os
import re
import sys

import yaml


def nul_list(path):
    with open(path, "rb") as f:
        data = f.read()
    parts = data.split(b"\0")
    if parts[-1] != b"":
        raise SystemExit(f"{path}: not NUL-terminated")
    return [p.decode("utf-8", "surrogateescape") for p in parts[:-1]]


def env_of(path):
    env = {}
    for entry in nul_list(path):
        key, _, value = entry.partition("=")
        env[key] = value
    return env


def main():
    bundle, log, store, run_id, exe, stdout_path = sys.argv[1:7]
    params = sys.argv[7:]
    with open(os.path.join(bundle, "bundle.yaml"), encoding="utf-8") as f:
        # Every scalar as text: the runtime reads `on` as a name, not YAML 1.1's boolean.
        manifest = yaml.load(f, Loader=yaml.BaseLoader)
    invocations = manifest["invocations"]
    errors = []

    def expect(cond, what):
        if not cond:
            errors.append(what)

    with open(os.path.join(log, "count")) as f:
        count = int(f.read())
    expect(count == len(invocations), f"sbatch ran {count} times for {len(invocations)} invocations")

    job_ids = {}
    output = store.replace("%", "%%") + f"/{run_id}/slurm/%x-%j.out"
    for n, inv in enumerate(invocations, start=1):
        iid = inv["id"]
        job = 1000 + n
        job_ids[iid] = job
        args = nul_list(os.path.join(log, f"sbatch.{n}"))
        script = os.path.join(bundle, "slurm", iid + ".sbatch")
        if script not in args:
            errors.append(f"sbatch call {n} does not name {script}: {args!r}")
            continue
        i = args.index(script)
        options, rest = args[:i], args[i + 1 :]
        expect(rest == params, f"{iid}: script arguments {rest!r}, expected {params!r}")
        for opt in ("--parsable", "--export=ALL", "--kill-on-invalid-dep=yes", "--output=" + output):
            expect(opt in options, f"{iid}: sbatch lacks {opt!r}: {options!r}")
        deps = [o for o in options if o.startswith("--dependency=")]
        if inv["needs"]:
            want = "--dependency=afterok:" + ":".join(str(job_ids[d]) for d in inv["needs"])
            expect(deps == [want], f"{iid}: dependency {deps!r}, expected {want!r}")
        else:
            expect(deps == [], f"{iid}: dependency {deps!r} on a first invocation")

        exe_args = nul_list(os.path.join(log, f"exe.{job}.args"))
        want = ["step", iid, "--run-id", run_id, "--store", store, "--echo"] + params
        expect(exe_args == want, f"{iid}: executable arguments {exe_args!r}, expected {want!r}")
        srun = nul_list(os.path.join(log, f"srun.{job}"))
        expect(srun[:3] == ["--ntasks-per-node=1", "--kill-on-bad-exit=1", "--cpus-per-task=1"] and srun[3] == exe,
               f"{iid}: srun arguments {srun!r}")

        env = env_of(os.path.join(log, f"exe.{job}.env"))
        for key, value in (("PIPE_STORE", store), ("PIPE_RUN_ID", run_id), ("PIPE_BUNDLE_EXE", exe)):
            expect(env.get(key) == value, f"{iid}: {key}={env.get(key)!r}, expected {value!r}")
        image_env = (inv.get("image") or {}).get("environment") or {}
        for key, value in image_env.items():
            expect(env.get(key) == value, f"{iid}: environment {key}={env.get(key)!r}, expected {value!r}")
        machines = int((inv.get("accelerate") or {}).get("num_machines", "1"))
        if machines > 1:
            expect(env.get("MASTER_ADDR") == "10.0.0.1", f"{iid}: MASTER_ADDR={env.get('MASTER_ADDR')!r}")
            expect(re.fullmatch(r"[0-9a-f]{32}", env.get("PIPE_RDZV_TOKEN", "")) is not None,
                   f"{iid}: PIPE_RDZV_TOKEN={env.get('PIPE_RDZV_TOKEN')!r}")
        else:
            expect("PIPE_RDZV_TOKEN" not in env, f"{iid}: a rendezvous token on a one-machine step")

    lines = [f"{inv['id']} {job_ids[inv['id']]}" for inv in invocations]
    with open(stdout_path, encoding="utf-8") as f:
        got = f.read().splitlines()
    expect(got == lines, f"submit.sh printed {got!r}, expected {lines!r}")
    jobs_file = os.path.join(store, run_id, "slurm", "jobs")
    with open(jobs_file, encoding="utf-8") as f:
        got = f.read().splitlines()
    expect(got == lines, f"{jobs_file} holds {got!r}, expected {lines!r}")

    for e in errors:
        print("FAIL:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
