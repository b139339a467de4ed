#!/usr/bin/env bash
# The SkyPilot target (docs/deploy-skypilot.md), for every example
# (examples/*/*.pipe), the injection corpus (injection/injection.pipe) and
# the golden case of @checkpoint (tests/golden/checkpoint/case.pipe):
#
#   - yamllint on every skypilot/<invocation>.yaml;
#   - a structural check of each task (the fields SkyPilot's task schema
#     knows, their types), resources from @resources and @skypilot,
#     num_nodes = num_machines, envs; with @checkpoint, resources.job_recovery
#     in the string form every SkyPilot release with managed jobs reads, and
#     a comment that says a recovered job resumes only on a shared store;
#   - round trips: the .pipe strings that reach the file (cloud, region,
#     accelerators, @docker environment) parse back byte-identical under
#     YAML 1.1 (PyYAML, as SkyPilot reads it);
#   - `setup` and `run` are run, with stand-ins for apt-get, pip, cmake and
#     the bundle's executable that record their argv: the argv must be
#     exactly what the .pipe file asks for (requirements arrive as single
#     words, nothing the strings hold is executed), and `run` must give the
#     runtime its machine rank and main address from SKYPILOT_NODE_RANK and
#     the first of SKYPILOT_NODE_IPS; shellcheck checks both when installed.
#
#   skypilot_validate.sh PIPEC REPO_ROOT
set -u
pipec=$(realpath "$1")
root=$(realpath "$2")
# shellcheck source=tests/deploy/k8s_venv.sh
. "$root/tests/deploy/k8s_venv.sh"
deploy_venv || exit 1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PIPEC_CUDA_VERSION=12.4.1

cat >"$work/check.py" <<'PY'
"""Checks the skypilot/ folder of one bundle; see skypilot_validate.sh."""
import math
import os
import re
import shutil
import subprocess
import sys

import yaml

pipe, out, work, venv, lint_config = sys.argv[1:6]
errors = []


def fail(msg):
    errors.append(msg)


def pipe_literals(top):
    """Every string literal of the .pipe files under top, unescaped."""
    lits = set()
    for dirpath, _, files in os.walk(top):
        for f in files:
            if not f.endswith(".pipe"):
                continue
            s = open(os.path.join(dirpath, f), encoding="utf-8").read()
            i, n = 0, len(s)
            while i < n:
                c = s[i]
                if c == "#":
                    j = s.find("\n", i)
                    i = n if j < 0 else j
                elif c == '"':
                    i += 1
                    buf = []
                    while i < n and s[i] not in '"\n':
                        if s[i] == "\\" and i + 1 < n:
                            buf.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(s[i + 1], s[i + 1]))
                            i += 2
                        else:
                            buf.append(s[i])
                            i += 1
                    lits.add("".join(buf))
                    i += 1
                else:
                    i += 1
    return lits


LITERALS = pipe_literals(os.path.dirname(os.path.abspath(pipe)))


def same_string(what, got, want, literal=True):
    if not isinstance(got, str):
        fail(f"{what}: {got!r} reads back as {type(got).__name__}, not as the string {want!r}")
    elif got != want:
        fail(f"{what}: {got!r} is not {want!r}")
    if literal and want not in LITERALS:
        fail(f"{what}: {want!r} is no string of the .pipe file (bundle.yaml changed it?)")


bundle = yaml.load(open(os.path.join(out, "bundle.yaml"), encoding="utf-8"), Loader=yaml.BaseLoader)
pl = bundle["pipeline"]
invs = bundle["invocations"]
sky_dir = os.path.join(out, "skypilot")
files = sorted(os.listdir(sky_dir))
if files != sorted(v["id"] + ".yaml" for v in invs):
    fail(f"skypilot/ holds {files}, not one task per invocation")

TOP = {"name", "workdir", "num_nodes", "resources", "envs", "setup", "run"}
RESOURCES = {"cloud", "region", "cpus", "memory", "disk_size", "accelerators", "use_spot", "job_recovery"}
RECOVERY_STRATEGIES = {"FAILOVER", "EAGER_NEXT_REGION"}  # SkyPilot's recovery strategies
TASK_NAME = re.compile(r"^[a-zA-Z0-9]+(?:[._-]{1,2}[a-zA-Z0-9]+)*$")  # SkyPilot's task name rule
names = []

# Stand-ins: each records its argv (NUL-separated) and, for the bundle's
# executable, the environment the runtime reads.
fakebin = os.path.join(work, "bin")
os.makedirs(fakebin, exist_ok=True)
RECORD = """#!/bin/sh
n=$(ls "$CALLS" | wc -l)
f="$CALLS/$n-$(basename "$0")"
for a in "$@"; do printf '%s\\0' "$a"; done >"$f"
"""
for tool in ("apt-get", "cmake", "python3"):
    with open(os.path.join(fakebin, tool), "w") as f:
        f.write(RECORD)
        if tool == "python3":  # `-m venv DIR` makes DIR/bin/python3, this same stand-in
            f.write('if [ "$1 $2" = "-m venv" ]; then for d in "$@"; do :; done; '
                    'mkdir -p "$d/bin" && cp "$0" "$d/bin/python3"; fi\n')
    os.chmod(os.path.join(fakebin, tool), 0o755)
with open(os.path.join(fakebin, "sudo"), "w") as f:
    f.write('#!/bin/sh\nexec "$@"\n')
os.chmod(os.path.join(fakebin, "sudo"), 0o755)


def calls(d):
    out = []
    for f in sorted(os.listdir(d), key=lambda x: int(x.split("-")[0])):
        data = open(os.path.join(d, f), "rb").read().decode("utf-8")
        out.append([f.split("-", 1)[1]] + (data.split("\0")[:-1] if data else []))
    return out


def run_snippet(what, script, env, cwd):
    p = subprocess.run(["bash", "-c", script], env=env, cwd=cwd, capture_output=True, text=True)
    return p


pwned_before = os.path.exists("/tmp/pwned")
for inv in invs:
    inv_id = inv["id"]
    where = f"skypilot/{inv_id}.yaml"
    path = os.path.join(sky_dir, inv_id + ".yaml")
    text = open(path, encoding="utf-8").read()
    if not text.startswith(f"# Generated by pipec from {bundle['source']}. DO NOT EDIT.\n"):
        fail(f"{where}: no generated-file banner")
    task = yaml.safe_load(text)
    if not isinstance(task, dict) or set(task) - TOP or not {"name", "resources", "envs", "setup", "run"} <= set(task):
        fail(f"{where}: fields {sorted(task) if isinstance(task, dict) else task!r}")
        continue
    names.append(task["name"])
    if not TASK_NAME.match(task["name"]) or len(task["name"]) > 63:
        fail(f"{where}: name {task['name']!r}")
    n = int(inv.get("accelerate", {}).get("num_machines", "1"))
    if task.get("num_nodes") != n:
        fail(f"{where}: num_nodes {task.get('num_nodes')!r}, num_machines is {n}")
    if task.get("workdir") != ".":
        fail(f"{where}: workdir {task.get('workdir')!r}")
    r = task["resources"]
    sky = inv.get("skypilot", {})
    res = inv["resources"]
    if set(r) - RESOURCES:
        fail(f"{where}: resources fields {sorted(r)}")
    for key in ("cloud", "region"):
        if key in sky:
            same_string(f"{where}: resources.{key}", r.get(key), sky[key])
        elif key in r:
            fail(f"{where}: resources.{key} nobody asked for")
    if r.get("use_spot") is not (sky.get("use_spot", "false") == "true"):
        fail(f"{where}: use_spot {r.get('use_spot')!r}")
    if "checkpoint" in inv:
        if r.get("job_recovery") not in RECOVERY_STRATEGIES:
            fail(f"{where}: job_recovery {r.get('job_recovery')!r} for a step with @checkpoint")
        if "PIPE_STORE is storage\n# that every cluster" not in text.split("\n---\n")[0]:
            fail(f"{where}: no comment that a recovered job resumes only on a shared store")
    elif "job_recovery" in r:
        fail(f"{where}: job_recovery without @checkpoint")
    cpu = float(res["cpu"])
    if cpu > 0:
        m = re.fullmatch(r"([0-9.]+)\+", str(r.get("cpus")))
        if not m or abs(float(m.group(1)) - cpu) > 1e-9:
            fail(f"{where}: cpus {r.get('cpus')!r}, @resources says {res['cpu']}")
    mem = int(res["memory"])
    if mem:
        m = re.fullmatch(r"([0-9]+)\+", str(r.get("memory")))
        if not m or int(m.group(1)) != math.ceil(mem / 2**30):
            fail(f"{where}: memory {r.get('memory')!r} for {mem} bytes")
    gpu = int(res["gpu"])
    if "accelerators" in sky:
        same_string(f"{where}: accelerators", r.get("accelerators"), sky["accelerators"])
    elif gpu > 0 and "gpu_type" in res:
        same_string(f"{where}: accelerators", r.get("accelerators"), f"{res['gpu_type']}:{gpu}", literal=False)
        if res["gpu_type"] not in LITERALS:
            fail(f"{where}: gpu_type {res['gpu_type']!r} is no string of the .pipe file")
    elif gpu > 0:
        acc = r.get("accelerators")
        if not isinstance(acc, list) or not all(isinstance(a, str) and a.endswith(f":{gpu}") for a in acc):
            fail(f"{where}: accelerators {acc!r}: expected candidates with {gpu} GPUs")
    elif "accelerators" in r:
        fail(f"{where}: accelerators for a step without GPUs")
    envs = task["envs"]
    image_env = inv.get("image", {}).get("environment", {})
    if not isinstance(envs, dict):
        fail(f"{where}: envs {envs!r}")
        continue
    for k, v in image_env.items():
        if v == "":  # SkyPilot reads "" as "required": the scripts export it
            if k in envs:
                fail(f"{where}: envs[{k!r}] is empty, which SkyPilot reads as required")
        else:
            same_string(f"{where}: envs[{k!r}]", envs.get(k), v)
    if "PIPE_RUN_ID" not in image_env and ("PIPE_RUN_ID" not in envs or envs["PIPE_RUN_ID"] is not None):
        fail(f"{where}: PIPE_RUN_ID is not a required (null) env")
    if "PIPE_STORE" not in image_env and envs.get("PIPE_STORE") != "/pipe-store":
        fail(f"{where}: PIPE_STORE {envs.get('PIPE_STORE')!r}")
    if set(envs) - set(image_env) - {"PIPE_RUN_ID", "PIPE_STORE"}:
        fail(f"{where}: envs {sorted(envs)}")
    for key in ("setup", "run"):
        if not isinstance(task[key], str) or not task[key].endswith("\n"):
            fail(f"{where}: {key} is no script")

    # Run setup and run with stand-ins.
    box = os.path.join(work, "box-" + inv_id)
    wd, store, callsdir = (os.path.join(box, d) for d in ("workdir", "store", "calls"))
    for d in (wd, callsdir, os.path.join(box, "home"), os.path.join(wd, "build-skypilot")):
        os.makedirs(d, exist_ok=True)
    env = {"PATH": fakebin + ":" + os.environ["PATH"], "HOME": os.path.join(box, "home"), "CALLS": callsdir,
           "LANG": "C.UTF-8"}
    env.update({k: v for k, v in envs.items() if v is not None})
    env["PIPE_STORE"] = envs.get("PIPE_STORE") if "PIPE_STORE" in image_env else store
    env["PIPE_RUN_ID"] = "run-1"
    p = run_snippet("setup", task["setup"], env, wd)
    if p.returncode != 0:
        fail(f"{where}: setup failed ({p.returncode}): {p.stderr[-500:]}")
    else:
        got = calls(callsdir)
        # The whole bundle is built: every invocation's packages, each once.
        packages = []
        for other in invs:
            for pkg in other.get("image", {}).get("apt_packages", []):
                if pkg not in packages:
                    packages.append(pkg)
        reqs = inv.get("image", {}).get("requirements", [])
        command = next(s for s in bundle["steps"] if s["name"] == inv["step"]).get("command")
        if reqs:
            packages.append("python3-venv")
        elif command and os.path.basename(command[0]).startswith("python"):
            packages.append("python3")
        want = [["apt-get", "update"],
                ["apt-get", "install", "-y", "--no-install-recommends", "cmake", "build-essential", "pkg-config",
                 "libyaml-dev", "libssl-dev"] + packages]
        for q in reqs:
            if q not in LITERALS:
                fail(f"{where}: requirement {q!r} is no string of the .pipe file")
        venv_dir = os.path.join(env["HOME"], ".pipe-venv")
        if reqs:
            want.append(["python3", "-m", "venv", "--system-site-packages", venv_dir])
            want.append(["python3", "-m", "pip", "install", "--"] + reqs)
        want.append(["cmake", "-S", ".", "-B", "build-skypilot", "-DCMAKE_BUILD_TYPE=Release"])
        want.append(["cmake", "--build", "build-skypilot", "-j", "N"])
        if got and len(got[-1]) == 5 and got[-1][4].isdigit():
            got[-1][4] = "N"  # nproc
        if got != want:
            fail(f"{where}: setup ran {got!r}, expected {want!r}")
        if not os.path.isdir(env["PIPE_STORE"]):
            fail(f"{where}: setup did not make the store {env['PIPE_STORE']}")
    for f in os.listdir(callsdir):
        os.remove(os.path.join(callsdir, f))
    exe = os.path.join(wd, "build-skypilot", pl)
    with open(exe, "w") as f:
        f.write('#!/bin/sh\nfor a in "$@"; do printf \'%s\\0\' "$a"; done >"$CALLS/argv"\n'
                'env -0 >"$CALLS/env"\n')
    os.chmod(exe, 0o755)
    env_run = dict(env, SKYPILOT_NODE_RANK="1", SKYPILOT_NODE_IPS="10.9.8.7\n10.9.8.6\n", SKYPILOT_NUM_NODES=str(n),
                   SKYPILOT_TASK_ID="sky-2024-01-01-00-00-00-000001_c_1")
    for k in [k for k, v in image_env.items() if v == ""]:
        env_run.pop(k, None)
    # Pipeline parameters, one NAME=VALUE a line; values that a shell would run.
    params = ["n=2", "text=$(touch /tmp/pwned) `touch /tmp/pwned` \"dq\" 'sq' ${HOME} \\ ü", "", "x=EOF"]
    env_run["PIPE_PARAMS"] = "\n".join(params)
    p = run_snippet("run", task["run"], env_run, wd)
    if p.returncode != 0:
        fail(f"{where}: run failed ({p.returncode}): {p.stderr[-500:]}")
    else:
        argv = open(os.path.join(callsdir, "argv"), "rb").read().decode().split("\0")[:-1]
        want = ["step", inv_id, "--run-id", "run-1", "--store", env["PIPE_STORE"]]
        for q in params:
            if q:
                want += ["--param", q]
        if argv != want:
            fail(f"{where}: run started the bundle with {argv!r}, expected {want!r}")
        seen = dict(e.split("=", 1) for e in open(os.path.join(callsdir, "env"), "rb").read().decode().split("\0")[:-1])
        if n > 1 and (seen.get("PIPE_MACHINE_RANK"), seen.get("MASTER_ADDR")) != ("1", "10.9.8.7"):
            fail(f"{where}: machine rank {seen.get('PIPE_MACHINE_RANK')!r} and main address "
                 f"{seen.get('MASTER_ADDR')!r}, expected 1 and 10.9.8.7")
        if n > 1:
            # Node 0 computes the same token; another run id gives another.
            tokens = [seen.get("PIPE_RDZV_TOKEN")]
            for rank, run_id in (("0", "run-1"), ("1", "run-2")):
                run_snippet("run", task["run"], dict(env_run, SKYPILOT_NODE_RANK=rank, PIPE_RUN_ID=run_id), wd)
                e0 = dict(e.split("=", 1) for e in open(os.path.join(callsdir, "env"), "rb").read().decode().split("\0")[:-1])
                tokens.append(e0.get("PIPE_RDZV_TOKEN"))
            if not tokens[0] or not re.fullmatch(r"[0-9a-f]{32}", tokens[0]) or tokens[1] != tokens[0] or tokens[2] == tokens[0]:
                fail(f"{where}: rendezvous tokens {tokens!r}: nodes must agree, runs must differ")
        for k, v in image_env.items():
            if seen.get(k) != v:
                fail(f"{where}: the bundle sees {k}={seen.get(k)!r}, @docker environment says {v!r}")
    env_none = {k: v for k, v in env.items() if k != "PIPE_RUN_ID"}
    p = run_snippet("run", task["run"], env_none, wd)
    if p.returncode == 0 or "PIPE_RUN_ID" not in p.stderr:
        fail(f"{where}: run without PIPE_RUN_ID did not fail with a message naming it")
    if shutil.which("shellcheck"):
        for key in ("setup", "run"):
            p = subprocess.run(["shellcheck", "-s", "bash", "-S", "warning", "-"], input=task[key], capture_output=True, text=True)
            if p.returncode != 0:
                fail(f"{where}: shellcheck on {key}:\n{p.stdout}")
    unexpected = set(os.listdir(wd)) - {"build-skypilot"}
    if unexpected:
        fail(f"{where}: setup or run made {sorted(unexpected)} in the workdir")

if len(set(names)) != len(names):
    fail(f"task names are not distinct: {names}")
if not pwned_before and os.path.exists("/tmp/pwned"):
    fail("/tmp/pwned exists: a string of the .pipe file was run")
p = subprocess.run([os.path.join(venv, "yamllint"), "-s", "-d", lint_config] +
                   [os.path.join(sky_dir, f) for f in files], capture_output=True, text=True)
if p.returncode != 0:
    fail(f"yamllint:\n{p.stdout}{p.stderr}")

for e in errors:
    print(f"FAIL {os.path.basename(pipe)}: {e}")
print(f"{os.path.basename(pipe)}: {len(files)} SkyPilot tasks, {len(errors)} problems")
sys.exit(1 if errors else 0)
PY

status=0
pipes=("$root"/examples/*/*.pipe "$root/tests/deploy/injection/injection.pipe" "$root/tests/golden/checkpoint/case.pipe")
checked=0
for pipe in "${pipes[@]}"; do
    # Every pipeline of the file (files with steps only have none).
    mapfile -t pls < <(sed -nE 's/^[[:space:]]*pipeline[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/\1/p' "$pipe" 2>/dev/null)
    for pl in "${pls[@]}"; do
        checked=$((checked + 1))
        out=$work/$(basename "$(dirname "$pipe")")-$(basename "$pipe" .pipe)-$pl
        mkdir -p "$out.work"
        build() { (cd "$(dirname "$pipe")" && "$pipec" build "$(basename "$pipe")" --pipeline "$pl" -o "$1" --target skypilot); }
        if ! build "$out" 2>"$out.err"; then
            echo "FAIL: pipec build $pipe --pipeline $pl"
            cat "$out.err"
            status=1
            continue
        fi
        # Deterministic: a second build gives the same bytes.
        build "$out.again" 2>/dev/null
        if ! diff -r "$out/skypilot" "$out.again/skypilot" >/dev/null; then
            echo "FAIL: $pipe --pipeline $pl: a second build wrote a different skypilot/"
            status=1
        fi
        "$venv/python" "$work/check.py" "$pipe" "$out" "$out.work" "$venv" "$deploy_yamllint_config" || status=1
    done
done
[ $status = 0 ] && echo "skypilot_validate: ok ($checked pipelines)"
exit $status
