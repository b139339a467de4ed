"""Checks one bundle's Kubernetes files: kubernetes/<pipeline>.yaml, its
prerequisites and submit.sh; see k8s_validate.sh.

    k8s_check.py PIPE OUT WORK VENV_BIN YAMLLINT_CONFIG PIPEC
"""
import os
import re
import shutil
import subprocess
import sys

import yaml
from hera.workflows.models import Workflow as HeraWorkflow

import k8s_emulate as emu

pipe, out, work, venv, lint_config, pipec = sys.argv[1:7]
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
DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
WF_NAME = "wf-abcde"
RUN_ID = "20260101-000000-abcdef"
PLACEHOLDER = "PIPE_REGISTRY"
REGISTRY = "registry.example.com:5000/team"
SECURITY = {"runAsNonRoot": True, "runAsUser": 10001, "runAsGroup": 10001, "fsGroup": 10001,
            "fsGroupChangePolicy": "OnRootMismatch"}
GFD, AMD = "nvidia.com/gpu.product", "amd.com/gpu.product-name"
GPU_LABEL_KEYS = {GFD, AMD, "cloud.google.com/gke-accelerator", "karpenter.k8s.aws/instance-gpu-name"}
# One spelling each known model must be matched by (GPU Feature Discovery's
# and AMD's labeller's names of the device), as the .pipe files write them.
KNOWN_GPUS = {"H100": (GFD, "NVIDIA-H100-80GB-HBM3"), "L4": (GFD, "NVIDIA-L4"),
              "A100-80GB": (GFD, "NVIDIA-A100-SXM4-80GB"), "a100-80gb": (GFD, "NVIDIA-A100-SXM4-80GB"),
              "MI300X": (AMD, "AMD_Instinct_MI300X_OAM")}
# A value of each type for `--param` and `argo submit -p`: a string holds
# what YAML, the shell, Kubernetes' $(VAR) and Argo's {{ }} would read.
TEST_VALUES = {"int": "7", "float": "2.5", "bool": "true",
               "string": "v \"dq\" 'sq' $(PIPE_RUN_ID) $$ ${HOME} `id` {{workflow.name}} \\ : {x} # ü <&>\nline2"}


def same_string(what, got, want):
    """got (typed YAML) must be the string want (from bundle.yaml, read as
    text), and want a literal of the .pipe file."""
    if not isinstance(got, str):
        fail(f"{what}: {got!r} reads back as {type(got).__name__}, not as the string {want!r}")
    elif got != want:
        fail(f"{what}: {got!r} is not {want!r}")
    if want not in LITERALS:
        fail(f"{what}: {want!r} is no string of the .pipe file (bundle.yaml changed it?)")


def same_value(what, got, want):
    """A literal of any type: want is bundle.yaml's text of it."""
    if isinstance(want, dict):
        if not isinstance(got, dict) or list(got) != list(want):
            fail(f"{what}: keys {list(got) if isinstance(got, dict) else got!r} are not {list(want)}")
            return
        for k in want:
            if k not in LITERALS:
                fail(f"{what}: key {k!r} is no string of the .pipe file")
            same_value(f"{what}.{k}", got[k], want[k])
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            fail(f"{what}: {got!r} is not a list of {len(want)}")
            return
        for i, (g, w) in enumerate(zip(got, want)):
            same_value(f"{what}[{i}]", g, w)
    elif isinstance(got, str):
        same_string(what, got, want)
    elif isinstance(got, bool):
        if str(got).lower() != want:
            fail(f"{what}: {got!r} is not {want}")
    elif str(got) != want:
        fail(f"{what}: {got!r} is not {want}")


def machines(inv):
    return int(inv.get("accelerate", {}).get("num_machines", "1"))


def quantity_ok(q):
    return isinstance(q, str) and re.fullmatch(r"[0-9]+(m|k|Ki|M|Mi|G|Gi|T|Ti|P|Pi)?", q)


def needs_gpu(inv):
    acc = inv.get("accelerate", {})
    return (int(inv["resources"]["gpu"]) > 0 and acc.get("cpu") != "true") or acc.get("multi_gpu") == "true"


def gpu_vendor(inv):
    """@kubernetes(gpu_vendor), else the known model's vendor, else NVIDIA."""
    k8s = inv.get("kubernetes", {})
    if "gpu_vendor" in k8s:
        return k8s["gpu_vendor"]
    known = KNOWN_GPUS.get(inv["resources"].get("gpu_type"))
    return "amd" if known and known[0] == AMD else "nvidia"


bundle = yaml.load(open(os.path.join(out, "bundle.yaml"), encoding="utf-8"), Loader=yaml.BaseLoader)
pl = bundle["pipeline"]
steps = {s["name"]: s for s in bundle["steps"]}
invs = {v["id"]: v for v in bundle["invocations"]}
params = bundle.get("params", [])
param_values = {p["name"]: TEST_VALUES[p["type"]] for p in params}
path = os.path.join(out, "kubernetes", pl + ".yaml")
text = open(path, encoding="utf-8").read()
if not text.startswith(f"# Generated by pipec from {bundle['source']}. DO NOT EDIT.\n"):
    fail("the file does not start with the generated-file banner")
docs = list(yaml.safe_load_all(text))
kinds = [d.get("kind") for d in docs]
services = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "Service"}
jobs = [d for d in docs if d.get("kind") == "Job"]
if kinds != ["Service"] * len(services) + ["Job"] * len(jobs) + ["Workflow"]:
    fail(f"documents are {kinds}: expected Services, Jobs, then one Workflow")
if len(jobs) != len(invs):
    fail(f"{len(jobs)} Jobs for {len(invs)} invocations")
k8s_files = sorted(os.listdir(os.path.join(out, "kubernetes")))
if k8s_files != sorted([pl + ".yaml", "prerequisites", "submit.sh"]):
    fail(f"kubernetes/ holds {k8s_files}: one .yaml, prerequisites/ and submit.sh expected")

# The namespace of the store: the one every invocation shares, else the
# pipeline's (W0409 warned).
namespaces = {inv.get("kubernetes", {}).get("namespace") for inv in invs.values()}
store_ns = namespaces.pop() if len(namespaces) == 1 else None

# ---- the prerequisites ----------------------------------------------------

pre_path = os.path.join(out, "kubernetes", "prerequisites", pl + ".yaml")
pre = []
if os.path.exists(pre_path):
    pre = [d for d in yaml.safe_load_all(open(pre_path, encoding="utf-8")) if d]
else:
    fail("no kubernetes/prerequisites/<pipeline>.yaml")
pre_kinds = [d.get("kind") for d in pre]
if pre_kinds != ["PersistentVolumeClaim", "ConfigMap", "ServiceAccount", "Role", "RoleBinding"]:
    fail(f"prerequisites: documents are {pre_kinds}")
pre_by_kind = {d["kind"]: d for d in pre}
claim = pre_by_kind.get("PersistentVolumeClaim", {})
run_cm = pre_by_kind.get("ConfigMap", {})
account = pre_by_kind.get("ServiceAccount", {}).get("metadata", {}).get("name")
if claim.get("metadata", {}).get("name") != "pipe-store" or claim.get("spec", {}).get("accessModes") != ["ReadWriteMany"]:
    fail("prerequisites: the store is no ReadWriteMany claim named pipe-store")
if not quantity_ok(claim.get("spec", {}).get("resources", {}).get("requests", {}).get("storage")):
    fail("prerequisites: the claim asks for no storage")
for d in pre:
    if d["metadata"].get("namespace") != store_ns:
        fail(f"prerequisites: {d['kind']} in namespace {d['metadata'].get('namespace')!r}, the store's is {store_ns!r}")
    if not DNS_LABEL.match(d["metadata"]["name"]) or len(d["metadata"]["name"]) > 63:
        fail(f"prerequisites: {d['kind']} name {d['metadata']['name']!r}")
want_data = {"run-id": "manual"}
want_data.update({f"param-{p['name']}": p["default"] for p in params if "default" in p})
if run_cm.get("data") != want_data:
    fail(f"prerequisites: ConfigMap data {run_cm.get('data')!r}, expected {want_data!r}")
role = pre_by_kind.get("Role", {})
granted = {(g, r, v) for rule in role.get("rules", []) for g in rule["apiGroups"] for r in rule["resources"]
           for v in rule["verbs"]}
needed = {("argoproj.io", "workflowtaskresults", v) for v in ("create", "patch")}
needed |= {("batch", "jobs", v) for v in ("create", "get", "watch", "delete")}
if services:
    needed |= {("", "services", v) for v in ("get", "create", "patch")}
if needed - granted:
    fail(f"prerequisites: the Role lacks {sorted(needed - granted)}")
binding = pre_by_kind.get("RoleBinding", {})
if binding.get("roleRef") != {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role.get("metadata", {}).get("name")}:
    fail(f"prerequisites: the RoleBinding binds {binding.get('roleRef')!r}")
if binding.get("subjects") != [{"kind": "ServiceAccount", "name": account, "namespace": store_ns or "default"}]:
    fail(f"prerequisites: the RoleBinding's subjects {binding.get('subjects')!r}")

# ---- the top-level Jobs ---------------------------------------------------


def check_affinity(where, pod, inv):
    """gpu_type: a required node affinity over the model's label spellings;
    node_selector stays a nodeSelector map."""
    k8s = inv.get("kubernetes", {})
    user_sel = k8s.get("node_selector", {})
    selector = pod.get("nodeSelector")
    if user_sel:
        same_value(f"{where}: nodeSelector", selector, user_sel)
    elif selector is not None:
        fail(f"{where}: a nodeSelector {selector!r} nobody asked for")
    gpu_type = inv["resources"].get("gpu_type")
    affinity = pod.get("affinity")
    if not gpu_type or not needs_gpu(inv):
        if affinity is not None:
            fail(f"{where}: an affinity without a GPU model")
        return
    if any(k in GPU_LABEL_KEYS for k in user_sel):
        if affinity is not None:
            fail(f"{where}: node_selector picks the GPU nodes, yet an affinity {affinity!r}")
        return
    try:
        if set(affinity) != {"nodeAffinity"} or \
                set(affinity["nodeAffinity"]) != {"requiredDuringSchedulingIgnoredDuringExecution"}:
            raise ValueError("more than a required node affinity")
        terms = affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        labels = {}
        for t in terms:
            (e,) = t["matchExpressions"]
            if set(t) != {"matchExpressions"} or e["operator"] != "In" or not e["values"] or e["key"] in labels:
                raise ValueError(f"term {t!r}")
            labels[e["key"]] = e["values"]
    except (KeyError, TypeError, ValueError) as e:
        fail(f"{where}: gpu_type {gpu_type!r}: no required node affinity over its labels ({type(e).__name__}: {e})")
        return
    if gpu_type in KNOWN_GPUS:
        key, value = KNOWN_GPUS[gpu_type]
        if value not in labels.get(key, []) or set(labels) - GPU_LABEL_KEYS:
            fail(f"{where}: gpu_type {gpu_type!r}: the affinity {labels!r} misses {key}={value}")
    else:
        key = GFD if gpu_vendor(inv) == "nvidia" else AMD
        if set(labels) != {key} or len(labels[key]) != 1:
            fail(f"{where}: unknown gpu_type {gpu_type!r}: affinity {labels!r}, expected {key} as written")
        else:
            same_string(f"{where}: the GPU model's label value", labels[key][0], gpu_type)


def check_options(where, pod, c, inv):
    """@kubernetes(secrets, volumes, image_pull_secrets)."""
    k8s = inv.get("kubernetes", {})
    secrets = k8s.get("secrets", [])
    got = [e.get("secretRef", {}).get("name") for e in c.get("envFrom", [])]
    same_value(f"{where}: envFrom", got, secrets)
    pulls = k8s.get("image_pull_secrets", [])
    same_value(f"{where}: imagePullSecrets", [s.get("name") for s in pod.get("imagePullSecrets", [])], pulls)
    vols = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["name"]: m for m in c["volumeMounts"]}
    for v in k8s.get("volumes", []):
        name = v["name"]
        vol, mnt = vols.get(name), mounts.get(name)
        if vol is None or mnt is None:
            fail(f"{where}: volume {name!r} is not in the pod")
            continue
        same_string(f"{where}: volume {name} mountPath", mnt["mountPath"], v["path"])
        ro = v.get("read_only") == "true"
        if mnt.get("readOnly", False) != ro:
            fail(f"{where}: volume {name} readOnly {mnt.get('readOnly')!r}")
        if "claim" in v:
            same_string(f"{where}: volume {name} claimName", vol.get("persistentVolumeClaim", {}).get("claimName"), v["claim"])
        else:
            same_string(f"{where}: volume {name} hostPath", vol.get("hostPath", {}).get("path"), v["host_path"])
    own = 1 + (1 if int(inv["resources"]["shm"]) else 0) + len(k8s.get("volumes", []))
    if len(vols) != own or len(mounts) != own:
        fail(f"{where}: {len(vols)} volumes and {len(mounts)} mounts, expected {own}")


job_of = {}
for job in jobs:
    meta, spec = job["metadata"], job["spec"]
    pod = spec["template"]["spec"]
    c = pod["containers"][0]
    args = c.get("args")
    inv_id = args[1] if isinstance(args, list) and len(args) > 1 else None
    if inv_id not in invs:
        fail(f"Job {meta.get('name')}: args {args!r} name no invocation")
        continue
    job_of[inv_id] = job
    inv = invs[inv_id]
    k8s = inv.get("kubernetes", {})
    res = inv["resources"]
    where = f"Job of `{inv_id}`"
    want_args = ["step", inv_id, "--run-id", "$(PIPE_RUN_ID)", "--store", "/pipe-store"]
    for p in params:
        want_args += ["--param", f"{p['name']}=$(PIPE_RUN_PARAM_{p['name']})"]
    if args != want_args:
        fail(f"{where}: args {args!r}, expected {want_args!r}")
    if "command" in c or len(pod["containers"]) != 1:
        fail(f"{where}: one container, no command (the image's ENTRYPOINT is the bundle)")
    image = c.get("image")
    if not isinstance(image, str) or not re.fullmatch(r"[^\s\"'{}$]+/[^\s\"'{}$]+", image):
        fail(f"{where}: image {image!r}")
    if "imagePullPolicy" in c:
        fail(f"{where}: imagePullPolicy {c['imagePullPolicy']!r}: the tag digests the image, Kubernetes' default is right")
    if not re.search(r'^ +image: "' + re.escape(image) + '"$', text, re.M):
        fail(f"{where}: the image is not on a double-quoted `image:` line (submit.sh rewrites those)")
    if pod.get("securityContext") != SECURITY:
        fail(f"{where}: securityContext {pod.get('securityContext')!r}, expected {SECURITY!r}")
    check_affinity(where, pod, inv)
    check_options(where, pod, c, inv)
    if not DNS_LABEL.match(meta["name"]) or len(meta["name"]) > 46:
        fail(f"{where}: name {meta['name']!r} is no DNS label of at most 46 characters")
    for k, v in list(meta["labels"].items()) + list(spec["template"]["metadata"]["labels"].items()):
        if not isinstance(v, str) or len(v) > 63 or not re.fullmatch(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]", v):
            fail(f"{where}: label {k}={v!r} is no label value")
    if meta["labels"]["pipec/pipeline"] != spec["template"]["metadata"]["labels"]["pipec/pipeline"]:
        fail(f"{where}: pod labels differ from the Job's")
    if "namespace" in k8s:
        same_string(f"{where}: namespace", meta.get("namespace"), k8s["namespace"])
    elif "namespace" in meta:
        fail(f"{where}: a namespace nobody asked for")
    if "service_account" in k8s:
        same_string(f"{where}: serviceAccountName", pod.get("serviceAccountName"), k8s["service_account"])
    if meta["annotations"].get("pipec/step") != inv["step"]:
        fail(f"{where}: annotation pipec/step")
    desc = steps[inv["step"]].get("description")
    if desc is not None:
        same_string(f"{where}: annotation pipec/description", meta["annotations"].get("pipec/description"), desc)
    if pod.get("restartPolicy") != "Never":
        fail(f"{where}: restartPolicy {pod.get('restartPolicy')!r}")
    retry = int(inv["retry"]["max"])
    if spec.get("backoffLimit") != retry:
        fail(f"{where}: backoffLimit {spec.get('backoffLimit')!r}, @retry max is {retry}")
    # @checkpoint: the grace (whole seconds) and 15 s for the runtime before
    # the kubelet's SIGKILL; disruptions do not count against backoffLimit.
    grace = -(-int(inv["checkpoint"]["grace_ms"]) // 1000) if "checkpoint" in inv else 0
    if grace:
        if pod.get("terminationGracePeriodSeconds") != grace + 15:
            fail(f"{where}: terminationGracePeriodSeconds {pod.get('terminationGracePeriodSeconds')!r}, "
                 f"@checkpoint's grace is {grace} s")
        want = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]}
        if spec.get("podFailurePolicy") != want:
            fail(f"{where}: podFailurePolicy {spec.get('podFailurePolicy')!r}, not {want!r}")
    elif "terminationGracePeriodSeconds" in pod or "podFailurePolicy" in spec:
        fail(f"{where}: a grace period or a pod failure policy without @checkpoint")
    # Every Job has a deadline (no state keeps a Workflow waiting): @timeout
    # per attempt, else 7 days, times the attempts.
    deadline = spec.get("activeDeadlineSeconds")
    attempt_ms = int(inv["timeout_ms"]) if "timeout_ms" in inv else 7 * 24 * 3600 * 1000
    if not isinstance(deadline, int) or deadline <= 0:
        fail(f"{where}: no activeDeadlineSeconds")
    elif deadline * 1000 < (attempt_ms + grace * 1000) * (retry + 1):
        fail(f"{where}: activeDeadlineSeconds {deadline} ends the attempts @retry allows")
    elif deadline * 1000 > (attempt_ms + grace * 1000 + 60000) * (retry + 1) + int(inv["retry"]["delay_ms"]) * retry + 1000:
        fail(f"{where}: activeDeadlineSeconds {deadline} is longer than the attempts take")
    n = machines(inv)
    env = {e["name"]: e for e in c["env"]}
    if env.get("PIPE_STORE", {}).get("value") != "/pipe-store":
        fail(f"{where}: PIPE_STORE")
    run_cm_name = run_cm.get("metadata", {}).get("name")
    if env.get("PIPE_RUN_ID", {}).get("valueFrom", {}).get("configMapKeyRef") != {"name": run_cm_name, "key": "run-id"}:
        fail(f"{where}: PIPE_RUN_ID does not come from the run's ConfigMap {run_cm_name}")
    for p in params:
        ref = env.get(f"PIPE_RUN_PARAM_{p['name']}", {}).get("valueFrom", {}).get("configMapKeyRef")
        if ref != {"name": run_cm_name, "key": f"param-{p['name']}"}:
            fail(f"{where}: parameter {p['name']} does not come from the run's ConfigMap: {ref!r}")
    if n > 1:
        svc_name = pod.get("subdomain")
        if (spec.get("completionMode"), spec.get("completions"), spec.get("parallelism")) != ("Indexed", n, n):
            fail(f"{where}: not an Indexed Job of {n} completions and parallelism")
        if svc_name not in services:
            fail(f"{where}: subdomain {svc_name!r} names no Service")
        else:
            svc = services[svc_name]
            sel = svc["spec"]["selector"]
            pod_labels = spec["template"]["metadata"]["labels"]
            if any(pod_labels.get(k) != v for k, v in sel.items()) or svc["spec"].get("clusterIP") != "None":
                fail(f"{where}: Service {svc_name} is not headless or does not select the Job's pods")
            if svc["metadata"].get("namespace") != meta.get("namespace"):
                fail(f"{where}: Service {svc_name} is in another namespace")
            if not DNS_LABEL.match(svc_name) or len(svc_name) > 63:
                fail(f"{where}: Service name {svc_name!r}")
            # Both ports: MASTER_PORT (the step's framework) and the one above it (pipe's rendezvous).
            port = int(inv["accelerate"]["main_process_port"])
            ports = {p["name"]: p["port"] for p in svc["spec"].get("ports", [])}
            if ports != {"main-process": port, "rendezvous": port + 1}:
                fail(f"{where}: Service {svc_name} ports {ports!r}, expected {port} and {port + 1}")
        if env.get("MASTER_ADDR", {}).get("value") != f"$(PIPE_JOB_NAME)-0.{svc_name}":
            fail(f"{where}: MASTER_ADDR {env.get('MASTER_ADDR')!r}")
        if env.get("PIPE_JOB_NAME", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") != "metadata.labels['job-name']":
            fail(f"{where}: PIPE_JOB_NAME")
        if env.get("PIPE_RDZV_TOKEN", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") != "metadata.labels['controller-uid']":
            fail(f"{where}: PIPE_RDZV_TOKEN is not the Job's uid")
        names = list(env)
        if names.index("PIPE_JOB_NAME") > names.index("MASTER_ADDR"):
            fail(f"{where}: $(PIPE_JOB_NAME) is used before it is defined")
        if env.get("MASTER_PORT", {}).get("value") != inv["accelerate"]["main_process_port"]:
            fail(f"{where}: MASTER_PORT")
    elif "completionMode" in spec or "subdomain" in pod:
        fail(f"{where}: one machine, yet an Indexed Job")
    # Resources.
    r = c.get("resources", {})
    for kind in ("requests", "limits"):
        for k, v in r.get(kind, {}).items():
            if not quantity_ok(v):
                fail(f"{where}: {kind}.{k} = {v!r} is no quantity string")
    gpu = int(res["gpu"])
    gpu_key = "amd.com/gpu" if gpu_vendor(inv) == "amd" else "nvidia.com/gpu"
    if gpu > 0 and r.get("limits", {}).get(gpu_key) != str(gpu):
        fail(f"{where}: limits.{gpu_key} is not {gpu}")
    if gpu == 0 and any(k.endswith("/gpu") for k in r.get("limits", {})):
        fail(f"{where}: GPUs in the limits of a step without")
    if int(res["memory"]) and "memory" not in r.get("requests", {}):
        fail(f"{where}: no memory request")
    if "tolerations" in k8s:
        same_value(f"{where}: tolerations", pod.get("tolerations"), k8s["tolerations"])
    shm = int(res["shm"])
    vols = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    if vols.get(mounts.get("/pipe-store"), {}).get("persistentVolumeClaim", {}).get("claimName") != "pipe-store":
        fail(f"{where}: the store is not the PersistentVolumeClaim pipe-store at /pipe-store")
    if shm:
        ed = vols.get(mounts.get("/dev/shm"), {}).get("emptyDir", {})
        if ed.get("medium") != "Memory" or not quantity_ok(ed.get("sizeLimit")):
            fail(f"{where}: /dev/shm is not a memory-backed emptyDir with a size limit")
    elif "/dev/shm" in mounts:
        fail(f"{where}: /dev/shm without shm")

names = [j["metadata"]["name"] for j in jobs]
if len(set(names)) != len(names):
    fail(f"Job names are not distinct: {names}")

# ---- the Workflow ---------------------------------------------------------


def pipeline_edges():
    """`pipec graph --format dot`: the data flow between invocations."""
    p = subprocess.run([pipec, "graph", os.path.basename(pipe), "--pipeline", pl, "--format", "dot"],
                       cwd=os.path.dirname(os.path.abspath(pipe)), capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"pipec graph: {p.stderr}")
        return set()
    quoted = r'"((?:[^"\\]|\\.)*)"'
    return {(a, b) for a, b in re.findall(r"^\s*" + quoted + " -> " + quoted, p.stdout, re.M)}


def hera_round_trip(wf):
    """hera's models of the Workflow (Argo's own schema, as Python): the
    Workflow reads into them and back unchanged (a field they do not know is
    dropped, and so differs)."""
    try:
        back = HeraWorkflow.model_validate(wf).model_dump(by_alias=True, exclude_none=True, mode="json")
    except Exception as e:  # pydantic's ValidationError and kin
        fail(f"hera: the Workflow does not read into Argo's models: {e}")
        return
    if back != wf:
        fail("hera: the Workflow changes in a round trip through Argo's models (a field they do not know?)")


def check_conditions(name, res_t, inv):
    """No state a Job ends in leaves the task waiting; no running one ends it."""
    for state, (obj, want) in emu.job_states(machines(inv), int(inv["retry"]["max"])).items():
        try:
            got = emu.resource_outcome(res_t.get("successCondition"), res_t.get("failureCondition"), obj)
        except ValueError as e:
            fail(f"task {name}: Argo refuses its conditions: {e}")
            return
        if got != want:
            fail(f"task {name}: a Job {state} leaves the task {got}, expected {want}")


wf = docs[-1]
core = [d for d in docs if d.get("kind") in ("Service", "Job")]
manifests = []
argo_params = {"store-claim": "pipe-store", **param_values}
try:
    if wf.get("apiVersion") != "argoproj.io/v1alpha1" or wf.get("kind") != "Workflow":
        raise ValueError("the last document is no argoproj.io/v1alpha1 Workflow")
    if set(wf) != {"apiVersion", "kind", "metadata", "spec"} or not wf["metadata"]["generateName"].endswith("-"):
        raise ValueError("Workflow: unexpected top-level fields or no generateName")
    hera_round_trip(wf)
    if wf["metadata"].get("namespace") != store_ns:
        fail(f"Workflow: namespace {wf['metadata'].get('namespace')!r}, the store's is {store_ns!r}")
    wspec = wf["spec"]
    if set(wspec) - {"entrypoint", "arguments", "templates", "serviceAccountName"}:
        raise ValueError(f"Workflow spec: unexpected fields {set(wspec)}")
    if wspec.get("serviceAccountName") != account:
        fail(f"Workflow: serviceAccountName {wspec.get('serviceAccountName')!r}, the prerequisites' is {account!r}")
    want_args = [{"name": "store-claim", "value": "pipe-store"}]
    want_args += [{"name": p["name"], **({"value": p["default"]} if "default" in p else {})} for p in params]
    if wspec["arguments"]["parameters"] != want_args:
        fail(f"Workflow parameters {wspec['arguments']['parameters']!r}, expected {want_args!r}")
    templates = {}
    for t in wspec["templates"]:
        if t["name"] in templates:
            raise ValueError(f"template {t['name']} twice")
        if not DNS_LABEL.match(t["name"]) or len(t["name"]) > 63:
            fail(f"template name {t['name']!r} is no DNS label")
        templates[t["name"]] = t
    dag = templates[wspec["entrypoint"]]
    if set(dag) != {"name", "dag"}:
        raise ValueError("the entrypoint is no DAG template")
    tasks = {}
    for t in dag["dag"]["tasks"]:
        if set(t) - {"name", "template", "dependencies"} or t["name"] in tasks or t["template"] not in templates:
            raise ValueError(f"DAG task {t!r}")
        tasks[t["name"]] = t
    for t in tasks.values():
        for d in t.get("dependencies", []):
            if d not in tasks:
                raise ValueError(f"task {t['name']} depends on unknown {d}")
    # Acyclic, in file order.
    seen = set()
    for t in dag["dag"]["tasks"]:
        if any(d not in seen for d in t.get("dependencies", [])):
            fail(f"task {t['name']} comes before a task it depends on")
        seen.add(t["name"])
    task_of = {}
    for name, t in tasks.items():
        res_t = templates[t["template"]].get("resource")
        if not res_t or set(templates[t["template"]]) != {"name", "resource"}:
            raise ValueError(f"template {t['template']} is no resource template")
        if set(res_t) - {"action", "setOwnerReference", "successCondition", "failureCondition", "manifest"}:
            raise ValueError(f"template {t['template']}: fields {set(res_t)}")
        raw = res_t["manifest"]
        # The conditions first: they do not depend on Argo's substitution.
        m = re.search(r'^ +args: \[step, "?([A-Za-z_][A-Za-z0-9_]*)"?,', raw, re.M)
        if res_t.get("action") == "create" and m and m.group(1) in invs:
            check_conditions(name, res_t, invs[m.group(1)])
        rendered = emu.argo_render(raw, WF_NAME, argo_params)
        manifests.append(rendered)
        obj = yaml.safe_load(rendered)
        if obj["kind"] == "Service":
            top = services.get(obj["metadata"]["name"])
            if res_t["action"] != "apply" or obj != top:
                fail(f"task {name}: the Service differs from the top-level one, or is not applied")
            core.append(obj)
            continue
        cont = obj["spec"]["template"]["spec"]["containers"][0]
        inv_id = cont["args"][1]
        task_of[inv_id] = name
        top = job_of.get(inv_id)
        inv = invs[inv_id]
        if res_t["action"] != "create":
            fail(f"task {name}: action {res_t['action']!r}")
        if not isinstance(obj["spec"].get("activeDeadlineSeconds"), int):
            fail(f"task {name}: its Job has no deadline")
        # Each parameter reaches the step's command: the template reads it,
        # and the argv Kubernetes builds from it is the value as given.
        if emu.param_tags(raw) != set(param_values):
            fail(f"task {name}: the manifest reads parameters {sorted(emu.param_tags(raw))}, "
                 f"the pipeline has {sorted(param_values)}")
        argv = emu.container_argv(cont, {}, {})
        want_argv = ["step", inv_id, "--run-id", WF_NAME, "--store", "/pipe-store"]
        for p in params:
            want_argv += ["--param", f"{p['name']}={param_values[p['name']]}"]
        if argv != want_argv:
            fail(f"task {name}: with argo submit -p, the step runs {argv!r}, expected {want_argv!r}")
        core.append(obj)
        if top is None:
            continue
        # The created Job is the top-level one, but for what belongs to the run.
        o = yaml.safe_load(yaml.safe_dump(obj))
        if o["metadata"].pop("generateName") != top["metadata"]["name"] + "-":
            fail(f"task {name}: generateName is not the Job's name")
        for labels in (o["metadata"]["labels"], o["spec"]["template"]["metadata"]["labels"]):
            if labels.pop("pipec/run-id", None) != WF_NAME:
                fail(f"task {name}: no run label")
        t2 = yaml.safe_load(yaml.safe_dump(top))
        t2["metadata"].pop("name")
        for job_obj in (o, t2):
            for e in job_obj["spec"]["template"]["spec"]["containers"][0]["env"]:
                if e["name"] == "PIPE_RUN_ID" or e["name"].startswith("PIPE_RUN_PARAM_"):
                    e.pop("value", None)
                    e.pop("valueFrom", None)
        if o != t2:
            fail(f"task {name}: the Job it creates differs from the top-level Job `{inv_id}`")
    for inv_id, inv in invs.items():
        name = task_of.get(inv_id)
        if name is None:
            fail(f"no task creates the Job of `{inv_id}`")
            continue
        want = {task_of[d] for d in inv["needs"]}
        got = set(tasks[name].get("dependencies", []))
        svc_tasks = {d for d in got if templates[tasks[d]["template"]]["resource"]["action"] == "apply"}
        if got - svc_tasks != want or len(svc_tasks) != (1 if machines(inv) > 1 else 0):
            fail(f"task {name}: dependencies {sorted(got)}, the DAG says {sorted(want)}")
    if len(set(task_of.values())) != len(task_of):
        fail("two invocations share a task")
    # The DAG's edges are the pipeline's data flow, as `pipec graph` shows it.
    inv_of_task = {v: k for k, v in task_of.items()}
    dag_edges = {(inv_of_task[d], inv_of_task[t["name"]]) for t in tasks.values() if t["name"] in inv_of_task
                 for d in t.get("dependencies", []) if d in inv_of_task}
    graph_edges = pipeline_edges()
    if dag_edges != graph_edges:
        fail(f"the Workflow's DAG edges {sorted(dag_edges)} are not pipec graph's {sorted(graph_edges)}")
except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
    fail(f"Workflow: {type(e).__name__}: {e}")

# ---- submit.sh ------------------------------------------------------------


def run_submit(k8s_dir, args, registry):
    env = dict(os.environ)
    env.pop("PIPE_REGISTRY", None)
    if registry is not None:
        env["PIPE_REGISTRY"] = registry
    return subprocess.run(["bash", os.path.join(k8s_dir, "submit.sh")] + args, env=env, capture_output=True,
                          text=True)


def image_after(image, registry):
    return registry + image[len(PLACEHOLDER):] if image.startswith(PLACEHOLDER + "/") else image


def check_submit():
    """submit.sh --render: the Jobs with the registry in the images' names,
    the run's ConfigMap with the parameters given, each Job's command with
    them; the Workflow alike; no registry, no submission."""
    submit = os.path.join(out, "kubernetes", "submit.sh")
    if not os.path.exists(submit):
        fail("no kubernetes/submit.sh")
        return
    p = subprocess.run(["shellcheck", "-x", submit], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"shellcheck kubernetes/submit.sh:\n{p.stdout}{p.stderr}")
    has_placeholder = f'image: "{PLACEHOLDER}/' in text
    registry = REGISTRY if has_placeholder else None
    given = []
    for p in params:
        given += ["--param", f"{p['name']}={param_values[p['name']]}"]
    render = os.path.join(work, "render-jobs")
    r = run_submit(os.path.join(out, "kubernetes"), ["--jobs", "--render", render, "--run-id", RUN_ID] + given,
                   registry)
    if r.returncode != 0:
        fail(f"submit.sh --jobs --render: {r.returncode}: {r.stderr}")
        return
    cm = yaml.safe_load(open(os.path.join(render, "run-configmap.yaml"), encoding="utf-8"))
    want = {"run-id": RUN_ID, **{f"param-{k}": v for k, v in param_values.items()}}
    if cm["data"] != want or cm["metadata"]["name"] != run_cm["metadata"]["name"] or \
            cm["metadata"].get("namespace") != store_ns:
        fail(f"submit.sh: the run's ConfigMap {cm!r}, expected data {want!r}")
    core.append(cm)
    rendered_jobs = sorted(os.listdir(os.path.join(render, "jobs")))
    if len(rendered_jobs) != len(invs):
        fail(f"submit.sh: {len(rendered_jobs)} Job files for {len(invs)} invocations")
    for i, (inv_id, inv) in enumerate(invs.items()):
        f = os.path.join(render, "jobs", f"{i:03d}-{inv_id}.yaml")
        if not os.path.exists(f):
            fail(f"submit.sh: no {os.path.relpath(f, render)}")
            continue
        objs = [d for d in yaml.safe_load_all(open(f, encoding="utf-8")) if d]
        top = job_of.get(inv_id)
        if top is None:
            continue
        want_objs = [services[top["spec"]["template"]["spec"]["subdomain"]]] if machines(inv) > 1 else []
        want_job = yaml.safe_load(yaml.safe_dump(top))
        for cont in want_job["spec"]["template"]["spec"]["containers"]:
            cont["image"] = image_after(cont["image"], REGISTRY)
        if objs != want_objs + [want_job]:
            fail(f"submit.sh: {os.path.basename(f)} is not the invocation's Service and Job, registry in place")
            continue
        core.extend(objs)
        argv = emu.container_argv(objs[-1]["spec"]["template"]["spec"]["containers"][0],
                                  {cm["metadata"]["name"]: cm["data"]}, {})
        want_argv = ["step", inv_id, "--run-id", RUN_ID, "--store", "/pipe-store"]
        for p in params:
            want_argv += ["--param", f"{p['name']}={param_values[p['name']]}"]
        if argv != want_argv:
            fail(f"submit.sh --jobs: the step of `{inv_id}` runs {argv!r}, expected {want_argv!r}")
    # Argo: the Workflow alone, registry in place.
    render = os.path.join(work, "render-argo")
    r = run_submit(os.path.join(out, "kubernetes"), ["--render", render] + given, registry)
    if r.returncode != 0:
        fail(f"submit.sh --render: {r.returncode}: {r.stderr}")
        return
    wf_text = open(os.path.join(render, "workflow.yaml"), encoding="utf-8").read()
    want_text = re.sub(r'^( +image: ")' + PLACEHOLDER + "/", lambda m: m.group(1) + REGISTRY + "/",
                       text, flags=re.M)
    if list(yaml.safe_load_all(wf_text)) != [list(yaml.safe_load_all(want_text))[-1]]:
        fail("submit.sh --render: workflow.yaml is not the Workflow with the registry in place")
    # No registry: no submission. A file without the placeholder (a registry
    # given at build time) gets one planted.
    planted = os.path.join(work, "planted")
    shutil.copytree(os.path.join(out, "kubernetes"), planted)
    planted_file = os.path.join(planted, pl + ".yaml")
    t = open(planted_file, encoding="utf-8").read()
    if not has_placeholder:
        t = re.sub(r'^( +image: ")', lambda m: m.group(1) + PLACEHOLDER + "/", t, flags=re.M)
        open(planted_file, "w", encoding="utf-8").write(t)
    for registry_value, why in ((None, "unset"), ("bad registry $(id)", "malformed")):
        r = run_submit(planted, ["--jobs", "--render", os.path.join(work, "refused")] + given, registry_value)
        if r.returncode == 0 or "PIPE_REGISTRY" not in r.stderr:
            fail(f"submit.sh with PIPE_REGISTRY {why}: exit {r.returncode}, {r.stderr!r}: it must refuse")
    r = run_submit(planted, ["--jobs", "--render", os.path.join(work, "planted-out")] + given, REGISTRY)
    images = re.findall(r'^ +image: "([^"]*)"', open(os.path.join(work, "planted-out", pl + ".yaml"),
                                                       encoding="utf-8").read(), re.M)
    if r.returncode != 0 or not images or any(not i.startswith(REGISTRY + "/") for i in images):
        fail(f"submit.sh with PIPE_REGISTRY: images {images!r}")
    # A parameter it does not know, or a required one missing: refused.
    r = run_submit(os.path.join(out, "kubernetes"), ["--render", os.path.join(work, "x"), "--param", "nope=1"],
                   registry)
    if r.returncode != 2:
        fail(f"submit.sh --param nope=1: exit {r.returncode}")
    required = [p["name"] for p in params if "default" not in p]
    if required:
        r = run_submit(os.path.join(out, "kubernetes"), ["--render", os.path.join(work, "y")], registry)
        if r.returncode != 2 or required[0] not in r.stderr:
            fail(f"submit.sh without required parameter {required[0]}: exit {r.returncode}")


check_submit()

# ---- Kubernetes' and yamllint's word -------------------------------------

core.extend(pre)
core_path = os.path.join(work, "core.yaml")
with open(core_path, "w", encoding="utf-8") as f:
    yaml.safe_dump_all(core, f, allow_unicode=True)
for version in ("1.27.0", None):
    cmd = [os.path.join(venv, "kubernetes-validate"), "--strict", "--quiet", core_path]
    if version:
        cmd[1:1] = ["-k", version]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"kubernetes-validate --strict {'-k ' + version if version else ''}:\n{p.stdout}{p.stderr}")
lint = [path] + ([pre_path] if pre else [])
for i, m in enumerate(manifests):
    mp = os.path.join(work, f"manifest-{i}.yaml")
    with open(mp, "w", encoding="utf-8") as f:
        f.write("---\n" + m)
    lint.append(mp)
p = subprocess.run([os.path.join(venv, "yamllint"), "-s", "-d", lint_config] + lint, capture_output=True, text=True)
if p.returncode != 0:
    fail(f"yamllint:\n{p.stdout}{p.stderr}")

for e in errors:
    print(f"FAIL {os.path.basename(pipe)} ({pl}): {e}")
print(f"{os.path.basename(pipe)} ({pl}): {len(jobs)} Jobs, {len(services)} Services, {len(core)} objects validated, "
      f"{len(errors)} problems")
sys.exit(1 if errors else 0)
