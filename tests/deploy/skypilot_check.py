"""Checks the skypilot/ folders of built bundles with SkyPilot itself.

    skypilot_check.py WORK YAMLLINT_CONFIG BUNDLE_LIST

BUNDLE_LIST holds one `PIPE_FILE<TAB>BUNDLE_DIR` line per bundle (built with
--target skypilot,docker). Each task file and the chain are loaded with
SkyPilot's own loader (sky.utils.dag_utils.load_chain_dag_from_yaml, what
`sky launch` and `sky jobs launch` run: its schema refuses unknown fields and
wrong types, and sky.Task checks the name), and the Task objects are compared
with bundle.yaml: the image (resources.image_id), accelerators, num_nodes,
the store's file_mounts, envs, job recovery. `setup` and `run` run against
stand-ins, and submit.sh against a stand-in `sky` and `podman`. See
skypilot_validate.sh.
"""
import math
import os
import re
import shlex
import shutil
import subprocess
import sys

import yaml
from sky.data import data_utils
from sky.data import storage as sky_storage
from sky.provision.kubernetes.utils import NEURON_ACCELERATORS
from sky.utils import dag_utils
from sky.utils import registry

from pipe_literals import pipe_literals

WORK, LINT_CONFIG, LIST = sys.argv[1:4]
VENV = os.path.dirname(sys.executable)
STORE_MOUNT = "/pipe-store"
PLACEHOLDER = "PIPE_REGISTRY"
errors = []



# Neuron devices: one candidate per generation of the kind that holds the
# count (compiler/hw/neuron_instances.c), each a name SkyPilot's own
# Neuron support knows (its Kubernetes device-plugin mapping) and a count at
# least the step's, the smallest instance of the generation that holds it.
NEURON_GENERATIONS = {"trainium": {"Trainium": [1, 16], "Trainium2": [16]},
                      "inferentia": {"Inferentia2": [1, 6, 12], "Inferentia": [1, 4, 16]}}


def neuron_kind(res):
    for kind in ("trainium", "inferentia"):
        if int(res.get(kind, "0")) > 0:
            return kind
    return None


def neuron_ok(where, res, accs):
    kind = neuron_kind(res)
    n = int(res[kind])
    want = {}
    for gen, counts in NEURON_GENERATIONS[kind].items():
        fits = [c for c in counts if c >= n]
        if fits:
            want[gen] = min(fits)
    got = {}
    for a in accs:
        for name, count in (a or {}).items():
            got[name] = count
            if name.lower() not in NEURON_ACCELERATORS:
                fail(where, f"accelerator {name!r} is no Neuron accelerator SkyPilot knows ({sorted(NEURON_ACCELERATORS)})")
    if got != want:
        fail(where, f"accelerators {accs!r} for {n} {kind} devices, expected {want!r}")

def fail(where, msg):
    errors.append(f"{where}: {msg}")


def same_string(where, what, got, want, literals):
    """A .pipe string read back by SkyPilot as written (YAML 1.1 reads)."""
    if not isinstance(got, str) or got != want:
        fail(where, f"{what}: {got!r} is not the string {want!r}")
    if want not in literals:
        fail(where, f"{what}: {want!r} is no string of the .pipe file (bundle.yaml changed it?)")


def known_cloud(cloud):
    return cloud is None or cloud.lower() in registry.CLOUD_REGISTRY


def load(path, env=(("PIPE_RUN_ID", "run-1"),)):
    """The tasks of a file as `sky launch` and `sky jobs launch` read it.
    A cloud SkyPilot does not know (the injection corpus' payloads) is
    refused by name by its schema: SkyPilot loads the tasks without it, and
    the round trip of check_task reads it back as written."""
    docs = list(yaml.safe_load_all(open(path, encoding="utf-8")))
    if not all(known_cloud(((d or {}).get("resources") or {}).get("cloud")) for d in docs):
        for d in docs:
            ((d or {}).get("resources") or {}).pop("cloud", None)
        path = os.path.join(WORK, "without-cloud.yaml")
        with open(path, "w", encoding="utf-8") as f:
            yaml.safe_dump_all(docs, f)
    return dag_utils.load_chain_dag_from_yaml(path, env_overrides=list(env))


def store_of(uri):
    """(the bucket SkyPilot mounts, PIPE_STORE) for @skypilot(store)."""
    if uri is None:
        return None, STORE_MOUNT
    m = re.fullmatch(r"(https://[a-z0-9]{3,24}\.blob\.core\.windows\.net/[a-z0-9-]+|[a-z0-9]+://[^/]+)(?:/(.*))?", uri)
    path = (m.group(2) or "").rstrip("/")
    return m.group(1), STORE_MOUNT + ("/" + path if path else "")


def mounts_cached(source):
    """SkyPilot accepts source as a bucket to mount, and mounts its store
    with MOUNT_CACHED (the mode with renames)."""
    try:
        _, local = sky_storage.Storage._validate_source(source, sky_storage.StorageMode.MOUNT_CACHED, True)
    except Exception as e:  # pylint: disable=broad-except
        return f"SkyPilot refuses it: {e}"
    if local:
        return "SkyPilot reads it as a local path"
    if source.startswith("gs://"):
        cls = sky_storage.GcsStore
    elif data_utils.is_az_container_endpoint(source):
        cls = sky_storage.AzureBlobStore
    else:
        kind = sky_storage.StoreType.find_s3_compatible_config_by_prefix(source)
        cls = sky_storage._S3_COMPATIBLE_STORES.get(kind.value) if kind else None  # pylint: disable=protected-access
    if cls is None or cls.mount_cached_command is sky_storage.AbstractStore.mount_cached_command:
        return "SkyPilot has no MOUNT_CACHED for it"
    return None


def submit_images(out):
    """{reference: Dockerfile} of the images submit.sh builds and pushes."""
    text = open(os.path.join(out, "skypilot", "submit.sh"), encoding="utf-8").read()
    block = re.search(r"^IMAGES=\(\n(.*?)^\)", text, re.S | re.M)
    images = {}
    for line in block.group(1).splitlines() if block else []:
        dockerfile, ref = shlex.split(line)
        images[ref] = dockerfile
    return images


def image_ok(where, r, out):
    """docker:<ref>, which SkyPilot reads as a container image, and which
    submit.sh builds from a Dockerfile of the bundle and pushes."""
    image = list((r.image_id or {None: None}).values())[0]
    if not isinstance(image, str) or not image.startswith("docker:"):
        fail(where, f"image_id {image!r} is not docker:<image>")
        return None
    ref = image[len("docker:"):]
    if r.extract_docker_image() != ref:
        fail(where, f"SkyPilot does not read {image!r} as the image {ref!r}")
    dockerfile = submit_images(out).get(ref)
    if not dockerfile or not os.path.isfile(os.path.join(out, dockerfile)):
        fail(where, f"image {ref!r}: submit.sh builds no such image from a Dockerfile of the bundle")
    return ref


# Stand-ins: each records its argv (NUL-separated), in $CALLS.
fakebin = os.path.join(WORK, "bin")
os.makedirs(fakebin, exist_ok=True)
RECORD = """#!/bin/sh
n=$(ls "$CALLS" | wc -l)
f="$CALLS/$n-$(basename "$0")"
for a in "$@"; do printf '%s\\0' "$a"; done >"$f"
"""
for tool in ("apt-get", "cmake", "pip", "python3", "podman", "docker", "sudo"):
    with open(os.path.join(fakebin, tool), "w") as f:
        f.write(RECORD)
        if tool == "sudo":
            f.write('exec "$@"\n')
    os.chmod(os.path.join(fakebin, tool), 0o755)
with open(os.path.join(fakebin, "sky"), "w") as f:  # keeps the file it launches
    f.write(RECORD + 'for last in "$@"; do :; done; cp "$last" "$CALLS/launched.yaml"\n')
os.chmod(os.path.join(fakebin, "sky"), 0o755)


def calls(d):
    out = []
    for f in sorted((x for x in os.listdir(d) if x[0].isdigit()), key=lambda x: int(x.split("-")[0])):
        data = open(os.path.join(d, f), "rb").read().decode("utf-8")
        out.append([f.split("-", 1)[1]] + (data.split("\0")[:-1] if data else []))
    return out


def environment(d):
    """The environment the stand-in executable saw."""
    data = open(os.path.join(d, "env"), "rb").read().decode()
    return dict(e.split("=", 1) for e in data.split("\0")[:-1])


def clear(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)


def sh(script, env, cwd=None, stdin=None):
    return subprocess.run(["bash", "-c", script], env=env, cwd=cwd, capture_output=True, text=True, input=stdin)


def image_root_script(script, root):
    """The script with the image's /opt/pipe moved to root (a stand-in)."""
    return script.replace("/opt/pipe/", root + "/")


def run_scripts(where, inv, task_cfg, task, pl, box, image_env):
    """Runs setup and run against stand-ins: the image's executable (which
    records its argv, its environment and the python3 it finds), its
    Python environment, sudo, apt-get, pip and cmake."""
    root, store, callsdir, home = (os.path.join(box, d) for d in ("image", "store", "calls", "home"))
    for d in (os.path.join(root, "bin"), os.path.join(root, "venv", "bin"), home):
        os.makedirs(d, exist_ok=True)
    clear(callsdir)
    exe = os.path.join(root, "bin", pl)
    with open(exe, "w") as f:
        f.write('#!/bin/sh\nfor a in "$@"; do printf \'%s\\0\' "$a"; done >"$CALLS/argv"\n'
                'env -0 >"$CALLS/env"\ncommand -v python3 >"$CALLS/python3"\nexit "${STEP_STATUS:-0}"\n')
    os.chmod(exe, 0o755)
    shutil.copy(os.path.join(fakebin, "python3"), os.path.join(root, "venv", "bin", "python3"))
    pipe_store = task.envs.get("PIPE_STORE")
    if "PIPE_STORE" not in image_env:
        pipe_store = store + pipe_store  # the node's path, below a folder of the test's own
    env = {"PATH": fakebin + ":" + os.environ["PATH"], "HOME": home, "CALLS": callsdir, "LANG": "C.UTF-8"}
    env.update({k: v for k, v in task.envs.items() if v is not None})
    env["PIPE_STORE"] = pipe_store
    setup = image_root_script(task_cfg["setup"], root)
    p = sh(setup, env, cwd=home)
    if p.returncode != 0:
        fail(where, f"setup failed ({p.returncode}): {p.stderr[-500:]}")
    elif [c for c in calls(callsdir) if c[:2] not in (["sudo", "mkdir"], ["sudo", "chown"])]:
        fail(where, f"setup ran {calls(callsdir)!r}: the image has what the step needs")
    if not os.path.isdir(pipe_store):
        fail(where, f"setup did not make the store {pipe_store}")
    p = sh(image_root_script(task_cfg["setup"], os.path.join(box, "no-image")), env, cwd=home)
    if p.returncode == 0 or "not the image of this task" not in p.stderr:
        fail(where, "setup outside the task's image did not stop with a message")

    n = task.num_nodes
    env_run = dict(env, SKYPILOT_NODE_RANK="1", SKYPILOT_NODE_IPS="10.9.8.7\n10.9.8.6\n", SKYPILOT_NUM_NODES=str(n),
                   SKYPILOT_TASK_ID="sky-2024-01-01-00-00-00-000001_c_1", STEP_STATUS="3")
    for k in [k for k, v in image_env.items() if v == ""]:
        env_run.pop(k, None)
    # Pipeline parameters, one NAME=VALUE a line; values that a shell would run.
    params = ["n=2", "text=$(touch /tmp/pwned) `touch /tmp/pwned` \"dq\" 'sq' ${HOME} \\ ü", "", "x=EOF"]
    env_run["PIPE_PARAMS"] = "\n".join(params)
    # SkyPilot ends `run` with its wait for the store's uploads, which must
    # run and see the step's status: no exec, no exit on the way.
    run = image_root_script(task_cfg["run"], root) + '\nstatus=$?\necho "epilogue saw $status"\nexit "$status"\n'
    p = sh(run, env_run, cwd=home)
    if p.returncode != 3 or "epilogue saw 3" not in p.stdout:
        fail(where, f"run exited {p.returncode} without SkyPilot's epilogue seeing the step's status 3: "
                    f"{p.stdout[-300:]} {p.stderr[-300:]}")
    if not os.path.exists(os.path.join(callsdir, "argv")):
        fail(where, f"run did not start the image's executable: {p.stderr[-500:]}")
        return
    argv = open(os.path.join(callsdir, "argv"), "rb").read().decode().split("\0")[:-1]
    want = ["step", inv["id"], "--run-id", "run-1", "--store", pipe_store]
    for q in params:
        if q:
            want += ["--param", q]
    if argv != want:
        fail(where, f"run started the step with {argv!r}, expected {want!r}")
    py = open(os.path.join(callsdir, "python3")).read().strip()
    if py != os.path.join(root, "venv", "bin", "python3"):
        fail(where, f"the step's python3 is {py!r}, not the image's environment (its requirements, torch)")
    seen = environment(callsdir)
    if n > 1 and (seen.get("PIPE_MACHINE_RANK"), seen.get("MASTER_ADDR")) != ("1", "10.9.8.7"):
        fail(where, f"machine rank {seen.get('PIPE_MACHINE_RANK')!r} and main address {seen.get('MASTER_ADDR')!r}, "
                    "expected 1 and 10.9.8.7")
    if n > 1:
        # Node 0 computes the same token; another run id gives another.
        tokens = [seen.get("PIPE_RDZV_TOKEN")]
        for rank, run_id in (("0", "run-1"), ("1", "run-2")):
            sh(run, dict(env_run, SKYPILOT_NODE_RANK=rank, PIPE_RUN_ID=run_id), cwd=home)
            tokens.append(environment(callsdir).get("PIPE_RDZV_TOKEN"))
        if not re.fullmatch(r"[0-9a-f]{32}", tokens[0] or "") or tokens[1] != tokens[0] or tokens[2] == tokens[0]:
            fail(where, f"rendezvous tokens {tokens!r}: nodes must agree, runs must differ")
    for k, v in image_env.items():
        if seen.get(k) != v:
            fail(where, f"the step sees {k}={seen.get(k)!r}, @docker environment says {v!r}")
    p = sh(run, {k: v for k, v in env.items() if k != "PIPE_RUN_ID"}, cwd=home)
    if p.returncode == 0 or "PIPE_RUN_ID" not in p.stderr:
        fail(where, "run without PIPE_RUN_ID did not fail with a message naming it")
    if shutil.which("shellcheck"):
        for key in ("setup", "run"):
            p = subprocess.run(["shellcheck", "-s", "bash", "-S", "warning", "-"], input=task_cfg[key],
                               capture_output=True, text=True)
            if p.returncode != 0:
                fail(where, f"shellcheck on {key}:\n{p.stdout}")


def check_task(pipe, out, bundle, inv, literals, names):
    where = f"{os.path.basename(pipe)} {bundle['pipeline']}: skypilot/{inv['id']}.yaml"
    path = os.path.join(out, "skypilot", inv["id"] + ".yaml")
    text = open(path, encoding="utf-8").read()
    if not text.startswith(f"# Generated by pipec from {bundle['source']}. DO NOT EDIT.\n"):
        fail(where, "no generated-file banner")
    image_env = inv.get("image", {}).get("environment", {})
    sky = inv.get("skypilot", {})
    try:
        dag = load(path)
    except Exception as e:  # pylint: disable=broad-except
        fail(where, f"SkyPilot refuses it: {e}")
        return None
    if len(dag.tasks) != 1:
        fail(where, f"{len(dag.tasks)} tasks")
        return None
    task = dag.tasks[0]
    if "PIPE_RUN_ID" not in image_env:
        try:
            load(path, env=())
            fail(where, "SkyPilot launches it without PIPE_RUN_ID")
        except ValueError as e:
            if "PIPE_RUN_ID" not in str(e):
                fail(where, f"without PIPE_RUN_ID: {e}")
    names.append(task.name)
    n = int(inv.get("accelerate", {}).get("num_machines", "1"))
    if task.num_nodes != n:
        fail(where, f"num_nodes {task.num_nodes}, num_machines is {n}")
    if task.workdir:
        fail(where, f"workdir {task.workdir!r}: the image holds the bundle")

    res = inv["resources"]
    rs = list(task.resources)
    cloud_known = known_cloud(sky.get("cloud"))
    # Several Resources only for the candidates of a GPU step without a model.
    accs = []
    for r in rs:
        image_ok(where, r, out)
        if cloud_known and "cloud" in sky and str(r.cloud).lower() != sky["cloud"].lower():
            fail(where, f"cloud {r.cloud}, @skypilot says {sky['cloud']!r}")
        if cloud_known and r.region != sky.get("region"):
            fail(where, f"region {r.region!r}, @skypilot says {sky.get('region')!r}")
        if "cloud" not in sky and r.cloud is not None:
            fail(where, f"cloud {r.cloud} nobody asked for")
        if r.use_spot != (sky.get("use_spot", "false") == "true"):
            fail(where, f"use_spot {r.use_spot!r}")
        if "checkpoint" in inv:
            if (r.job_recovery or {}).get("strategy") != "FAILOVER":
                fail(where, f"job_recovery {r.job_recovery!r} for a step with @checkpoint")
        elif r.job_recovery:
            fail(where, "job_recovery without @checkpoint")
        cpu = float(res["cpu"])
        if cpu > 0 and r.cpus != f"{cpu:g}+":
            fail(where, f"cpus {r.cpus!r}, @resources says {res['cpu']}")
        mem = int(res["memory"])
        if mem and r.memory != f"{math.ceil(mem / 2**30)}+":
            fail(where, f"memory {r.memory!r} for {mem} bytes")
        disk = int(res.get("disk", "0"))
        if disk and r.disk_size != math.ceil(disk / 2**30):
            fail(where, f"disk_size {r.disk_size!r} for {disk} bytes")
        overrides = r.cluster_config_overrides or {}
        if "--user=0:0" not in overrides.get("docker", {}).get("run_options", []):
            fail(where, f"the container does not run as root (config: {overrides!r})")
        sc = overrides.get("kubernetes", {}).get("pod_config", {}).get("spec", {}).get("securityContext", {})
        if sc.get("runAsUser") != 0:
            fail(where, f"the pod on Kubernetes does not run as root (config: {overrides!r})")
        accs.append(r.accelerators)
    if "checkpoint" in inv and ("PIPE_STORE is storage\n# that every cluster" in text.split("\n---\n")[0]) != (
            "store" not in sky):
        fail(where, "the comment that a recovered job resumes only on a shared store: there without a store only")
    gpu = int(res["gpu"])
    step = next(s for s in bundle["steps"] if s["name"] == inv["step"])
    m = re.fullmatch(r"accelerators (\S+):(\d+)", step.get("description", ""))
    if m:  # what the task must ask for (tests/deploy/skypilot/gpus.pipe)
        if accs != [{m.group(1): int(m.group(2))}]:
            fail(where, f"accelerators {accs!r}, expected {m.group(1)}:{m.group(2)}")
    if "accelerators" in sky:
        name, _, count = sky["accelerators"].partition(":")
        if accs != [{name: int(count or 1)}]:
            fail(where, f"accelerators {accs!r}, @skypilot says {sky['accelerators']!r}")
        if sky["accelerators"] not in literals:
            fail(where, f"accelerators {sky['accelerators']!r} is no string of the .pipe file")
    elif gpu > 0 and "gpu_type" in res:
        if len(accs) != 1 or not accs[0] or list(accs[0].values()) != [gpu]:
            fail(where, f"accelerators {accs!r}: expected {gpu} GPUs of model {res['gpu_type']!r}")
    elif gpu > 0:
        if len(accs) < 2 or any(a is None or list(a.values()) != [gpu] for a in accs):
            fail(where, f"accelerators {accs!r}: expected candidates with {gpu} GPUs")
    elif neuron_kind(res):
        neuron_ok(where, res, accs)
    elif any(accs):
        fail(where, "accelerators for a step without GPUs")

    # The store: the bucket on every node at /pipe-store, PIPE_STORE in it.
    source, pipe_store = store_of(sky.get("store"))
    mounts = {k: (v.source, v.mode.value) for k, v in task.storage_mounts.items()}
    if task.file_mounts:
        fail(where, f"file_mounts {task.file_mounts!r} copied from this machine")
    if source is None and mounts:
        fail(where, f"a store mounted ({mounts!r}) that nobody asked for")
    if source is not None:
        if mounts != {STORE_MOUNT: (source, "MOUNT_CACHED")}:
            fail(where, f"file_mounts {mounts!r}, expected {source} at {STORE_MOUNT} with MOUNT_CACHED")
        why = mounts_cached(source)
        if why:
            fail(where, f"store {source}: {why}")
    if "PIPE_STORE" not in image_env and task.envs.get("PIPE_STORE") != pipe_store:
        fail(where, f"PIPE_STORE {task.envs.get('PIPE_STORE')!r}, expected {pipe_store!r}")

    cfg = yaml.safe_load(text)  # what SkyPilot reads: PyYAML, YAML 1.1
    for k, v in image_env.items():
        if v == "":
            if k in cfg["envs"]:
                fail(where, f"envs[{k!r}] is empty")
        else:
            same_string(where, f"envs[{k!r}]", cfg["envs"].get(k), v, literals)
    for key in ("cloud", "region"):
        if key in sky:
            same_string(where, f"resources.{key}", cfg["resources"].get(key), sky[key], literals)
    if set(task.envs) - set(image_env) - {"PIPE_RUN_ID", "PIPE_STORE"}:
        fail(where, f"envs {sorted(task.envs)}")
    return task, cfg, image_env


def check_submit(where, out, bundle, tasks, calls_dir):
    """submit.sh: pushes the images and launches the chain, with the
    registry in place of the placeholder; refuses without one."""
    sky_dir = os.path.join(out, "skypilot")
    submit = os.path.join(sky_dir, "submit.sh")
    chain = open(os.path.join(sky_dir, "chain", bundle["pipeline"] + ".yaml"), encoding="utf-8").read()
    env = {"PATH": fakebin + ":" + os.environ["PATH"], "CALLS": calls_dir, "HOME": os.environ["HOME"],
           "LANG": "C.UTF-8"}
    refs = sorted({list((r.image_id or {}).values())[0][len("docker:"):] for t in tasks for r in t.resources})
    if PLACEHOLDER + "/" not in chain:
        # The images name a registry: PIPE_REGISTRY is not needed, the refs stay.
        clear(calls_dir)
        p = subprocess.run([submit, "--run-id", "r-1"], env=env, capture_output=True, text=True)
        launched = os.path.join(calls_dir, "launched.yaml")
        if p.returncode != 0 or not os.path.exists(launched):
            fail(where, f"submit.sh failed ({p.returncode}): {p.stderr[-400:]}")
            return
        got = sorted({list(r.image_id.values())[0][len("docker:"):] for t in load(launched).tasks for r in t.resources})
        if got != refs:
            fail(where, f"submit.sh launched images {got}, the tasks name {refs}")
        # The placeholder's path, on a copy whose images name it.
        copy = os.path.join(calls_dir + "-sim", "skypilot")
        shutil.rmtree(os.path.dirname(copy), ignore_errors=True)
        shutil.copytree(sky_dir, copy)
        os.symlink(os.path.join(out, "docker"), os.path.join(os.path.dirname(copy), "docker"))
        for f in (os.path.join(copy, "submit.sh"), os.path.join(copy, "chain", bundle["pipeline"] + ".yaml")):
            s = open(f, encoding="utf-8").read()
            for ref in refs:
                s = s.replace(ref, PLACEHOLDER + "/" + ref.split("/", 1)[-1])
            open(f, "w", encoding="utf-8").write(s)
        submit = os.path.join(copy, "submit.sh")
        refs = [PLACEHOLDER + "/" + ref.split("/", 1)[-1] for ref in refs]
    clear(calls_dir)
    p = subprocess.run([submit, "--run-id", "r-1"], env=env, capture_output=True, text=True)
    if p.returncode == 0 or "PIPE_REGISTRY" not in p.stderr or calls(calls_dir):
        fail(where, f"submit.sh without PIPE_REGISTRY: exit {p.returncode}, {p.stderr[-300:]!r}, "
                    f"ran {calls(calls_dir)}")
    for bad in ("registry example.com", "reg|x", "$(touch /tmp/pwned)", "Reg.io/Team", "-e/x"):
        clear(calls_dir)
        p = subprocess.run([submit], env=dict(env, PIPE_REGISTRY=bad), capture_output=True, text=True)
        if p.returncode == 0 or calls(calls_dir):
            fail(where, f"submit.sh took PIPE_REGISTRY={bad!r}")
    registry = "registry.example.com:5000/ml-team"
    clear(calls_dir)
    params = [p["name"] for p in bundle.get("params", [])]
    args = ["--run-id", "r-1"] + [a for name in params[:1] for a in ("--param", f"{name}=$(x) y")]
    p = subprocess.run([submit] + args + ["--", "--yes"], env=dict(env, PIPE_REGISTRY=registry + "/"),
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail(where, f"submit.sh with PIPE_REGISTRY failed ({p.returncode}): {p.stderr[-400:]}")
        return
    ran = calls(calls_dir)
    resolved = sorted(registry + "/" + r[len(PLACEHOLDER) + 1:] for r in refs)
    pushed = sorted(c[-1] for c in ran if c[:2] == ["podman", "push"])
    built = sorted(c[c.index("-t") + 1] for c in ran if c[:2] == ["podman", "build"])
    if pushed != resolved or built != resolved:
        fail(where, f"submit.sh built {built} and pushed {pushed}, expected {resolved}")
    sky = [c for c in ran if c[0] == "sky"]
    want = ["sky", "jobs", "launch", "--env", "PIPE_RUN_ID=r-1"]
    if params:
        want += ["--env", f"PIPE_PARAMS={params[0]}=$(x) y\n"]
    if len(sky) != 1 or sky[0][:-1] != want + ["--yes"] or ran[-1][0] != "sky":
        fail(where, f"submit.sh ran {sky}, expected {want} --yes FILE after the pushes")
        return
    dag = load(os.path.join(calls_dir, "launched.yaml"))
    got = sorted({list(r.image_id.values())[0][len("docker:"):] for t in dag.tasks for r in t.resources})
    if got != resolved:
        fail(where, f"the launched chain runs {got}, expected {resolved}")
    if params:
        clear(calls_dir)
        p = subprocess.run([submit, "--param", "no_such_param=1"], env=dict(env, PIPE_REGISTRY=registry),
                           capture_output=True, text=True)
        if p.returncode == 0 or calls(calls_dir):
            fail(where, "submit.sh took an unknown parameter")


def check_bundle(pipe, out, root_literals):
    bundle = yaml.load(open(os.path.join(out, "bundle.yaml"), encoding="utf-8"), Loader=yaml.BaseLoader)
    pl, invs = bundle["pipeline"], bundle["invocations"]
    where = f"{os.path.basename(pipe)} {pl}"
    literals = root_literals(os.path.dirname(os.path.abspath(pipe)))
    sky_dir = os.path.join(out, "skypilot")
    files = sorted(os.path.relpath(os.path.join(d, f), sky_dir) for d, _, fs in os.walk(sky_dir) for f in fs)
    want = sorted([v["id"] + ".yaml" for v in invs] + [f"chain/{pl}.yaml", "submit.sh"])
    if files != want:
        fail(where, f"skypilot/ holds {files}, expected {want}")
        return 0
    names, tasks = [], []
    for i, inv in enumerate(invs):
        got = check_task(pipe, out, bundle, inv, literals, names)
        if got is None:
            continue
        task, cfg, image_env = got
        tasks.append(task)
        run_scripts(f"{where}: skypilot/{inv['id']}.yaml", inv, cfg, task, pl,
                    os.path.join(WORK, "box", f"{os.path.basename(out)}-{i}"), image_env)
    if len(set(names)) != len(names):
        fail(where, f"task names are not distinct: {names}")
    # The chain: the same tasks, in the manifest's order, each after those it needs.
    try:
        dag = load(os.path.join(sky_dir, "chain", pl + ".yaml"))
        if not dag.is_chain() or [t.name for t in dag.tasks] != names:
            fail(where, f"chain {[t.name for t in dag.tasks]}, expected {names}")
        for t, single in zip(dag.tasks, tasks):
            if t.to_yaml_config() != single.to_yaml_config():
                fail(where, f"the chain's task {t.name} differs from skypilot/ its file")
        order = [inv["id"] for inv in invs]
        for i, inv in enumerate(invs):
            if any(order.index(k) >= i for k in inv.get("needs", [])):
                fail(where, f"{inv['id']} comes before an invocation it needs")
    except Exception as e:  # pylint: disable=broad-except
        fail(where, f"SkyPilot refuses the chain: {e}")
    if len(tasks) == len(invs):
        check_submit(f"{where}: skypilot/submit.sh", out, bundle, tasks, os.path.join(WORK, "calls-submit"))
    p = subprocess.run([os.path.join(VENV, "yamllint"), "-s", "-d", LINT_CONFIG] +
                       [os.path.join(sky_dir, f) for f in files if f.endswith(".yaml")], capture_output=True, text=True)
    if p.returncode != 0:
        fail(where, f"yamllint:\n{p.stdout}{p.stderr}")
    if shutil.which("shellcheck"):
        p = subprocess.run(["shellcheck", "-S", "warning", os.path.join(sky_dir, "submit.sh")],
                           capture_output=True, text=True)
        if p.returncode != 0:
            fail(where, f"shellcheck on submit.sh:\n{p.stdout}")
    return len(invs)


def main():
    cache = {}

    def literals(top):
        if top not in cache:
            cache[top] = pipe_literals(top)
        return cache[top]

    pwned_before = os.path.exists("/tmp/pwned")
    n_tasks = n_bundles = 0
    for line in open(LIST, encoding="utf-8"):
        pipe, out = line.rstrip("\n").split("\t")
        n_tasks += check_bundle(pipe, out, literals)
        n_bundles += 1
    if not pwned_before and os.path.exists("/tmp/pwned"):
        fail("corpus", "/tmp/pwned exists: a string of the .pipe file was run")
    for e in errors:
        print(f"FAIL {e}")
    print(f"skypilot_check: {n_bundles} bundles, {n_tasks} tasks loaded by SkyPilot, {len(errors)} problems")
    return 1 if errors else 0


sys.exit(main())
