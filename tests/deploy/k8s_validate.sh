#!/usr/bin/env bash
# The Kubernetes target (docs/deploy-kubernetes.md), for every example
# (examples/*/*.pipe), the injection corpus (injection/injection.pipe) and
# the golden case of @checkpoint (tests/golden/checkpoint/case.pipe):
#
#   - yamllint on kubernetes/<pipeline>.yaml and on every manifest the
#     Workflow holds;
#   - kubernetes-validate --strict (Kubernetes' own schemas, unknown fields
#     rejected) on every Service and Job: those at the top level, and those
#     the Workflow creates, after Argo's template substitution as its
#     controller does it (a "{{" from the .pipe file that Argo would expand
#     fails the test);
#   - a structural check of the Argo Workflow (a CRD: no schema here);
#   - round trips: every string of the .pipe file that reaches the file
#     (namespace, service account, node selector, tolerations, GPU model,
#     description) parses back byte-identical, with the YAML 1.1 rules
#     kubectl's go-yaml and Argo use; each Job's argv is exactly
#     `step ID --run-id $(PIPE_RUN_ID) --store /pipe-store`;
#   - names: Kubernetes names and Argo task names are DNS labels within their
#     limits, distinct, and the same on a second build;
#   - @checkpoint (tests/golden/checkpoint/case.pipe): the pods' grace period
#     is the grace plus 15 s, and the Job's podFailurePolicy ignores
#     disruptions; other Jobs have neither.
#
#   k8s_validate.sh PIPEC REPO_ROOT
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
"""Checks one kubernetes/<pipeline>.yaml; see k8s_validate.sh."""
import os
import re
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
DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
WF_NAME = "wf-abcde"
PARAMS = {"store-claim": "pipe-store", "image-prefix": ""}


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


def argo_render(text):
    """Argo's substitution of a resource manifest: "{{" ... "}}" tags, the
    end being the first "}}" after the start. Only pipec's own tags may be
    there; anything else would be expanded by Argo."""
    parts, i = [], 0
    while True:
        j = text.find("{{", i)
        if j < 0:
            parts.append(text[i:])
            return "".join(parts)
        parts.append(text[i:j])
        k = text.find("}}", j + 2)
        if k < 0:
            raise ValueError(f"an unclosed '{{{{' in a manifest: {text[j:j + 60]!r}")
        tag = text[j + 2:k]
        if tag == "='{'+'{'":
            parts.append("{{")
        elif tag == "workflow.name":
            parts.append(WF_NAME)
        elif tag.startswith("workflow.parameters.") and tag[20:] in PARAMS:
            parts.append(PARAMS[tag[20:]])
        else:
            raise ValueError(f"Argo would expand {{{{{tag}}}}} in a manifest")
        i = k + 2


bundle = yaml.load(open(os.path.join(out, "bundle.yaml"), encoding="utf-8"), Loader=yaml.BaseLoader)
pl = bundle["pipeline"]
steps = {s["name"]: s for s in bundle["steps"]}
invs = {v["id"]: v for v in bundle["invocations"]}
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


def machines(inv):
    return int(inv.get("accelerate", {}).get("num_machines", "1"))


def quantity_ok(q):
    return isinstance(q, str) and re.fullmatch(r"[0-9]+(m|k|Ki|M|Mi|G|Gi|T|Ti|P|Pi)?", q)


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
    if args != ["step", inv_id, "--run-id", "$(PIPE_RUN_ID)", "--store", "/pipe-store"]:
        fail(f"{where}: args {args!r}")
    if "command" in c or len(pod["containers"]) != 1:
        fail(f"{where}: one container, no command (the image's ENTRYPOINT is the bundle)")
    # REGISTRY/NAME:TAG, the tag a digest of the image's inputs (never `latest`);
    # without --registry the registry is the placeholder submit scripts replace.
    if not re.fullmatch(r"PIPE_REGISTRY/[a-z0-9][-a-z0-9_.]*:[0-9a-f]{16}", c["image"]):
        fail(f"{where}: image {c['image']!r}")
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
    if ("timeout_ms" in inv) != ("activeDeadlineSeconds" in spec):
        fail(f"{where}: activeDeadlineSeconds and @timeout disagree")
    elif "timeout_ms" in inv and spec["activeDeadlineSeconds"] * 1000 < (int(inv["timeout_ms"]) + grace * 1000) * (retry + 1):
        fail(f"{where}: activeDeadlineSeconds {spec['activeDeadlineSeconds']} ends the attempts @retry allows")
    n = machines(inv)
    env = {e["name"]: e for e in c["env"]}
    if env.get("PIPE_STORE", {}).get("value") != "/pipe-store":
        fail(f"{where}: PIPE_STORE")
    if env.get("PIPE_RUN_ID", {}).get("valueFrom", {}).get("configMapKeyRef", {}).get("key") != "run-id":
        fail(f"{where}: PIPE_RUN_ID does not come from the run's ConfigMap")
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
    vendor = k8s.get("gpu_vendor", "nvidia")
    gpu_key = "amd.com/gpu" if vendor == "amd" else "nvidia.com/gpu"
    if gpu > 0 and r.get("limits", {}).get(gpu_key) != str(gpu):
        fail(f"{where}: limits.{gpu_key} is not {gpu}")
    if gpu == 0 and any(k.endswith("/gpu") for k in r.get("limits", {})):
        fail(f"{where}: GPUs in the limits of a step without")
    if int(res["memory"]) and "memory" not in r.get("requests", {}):
        fail(f"{where}: no memory request")
    selector = pod.get("nodeSelector", {})
    user_sel = k8s.get("node_selector", {})
    product = "amd.com/gpu.product-name" if vendor == "amd" else "nvidia.com/gpu.product"
    if "gpu_type" in res and gpu > 0 and product not in user_sel:
        same_string(f"{where}: nodeSelector {product}", selector.get(product), res["gpu_type"])
    for k, v in user_sel.items():
        same_string(f"{where}: nodeSelector key", k if k in selector else None, k)
        same_string(f"{where}: nodeSelector[{k!r}]", selector.get(k), v)
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

# The Workflow.
wf = docs[-1]
core = [d for d in docs if d.get("kind") in ("Service", "Job")]
manifests = []
try:
    if wf.get("apiVersion") != "argoproj.io/v1alpha1" or wf.get("kind") != "Workflow":
        raise ValueError("the last document is no argoproj.io/v1alpha1 Workflow")
    if set(wf) != {"apiVersion", "kind", "metadata", "spec"} or not wf["metadata"]["generateName"].endswith("-"):
        raise ValueError("Workflow: unexpected top-level fields or no generateName")
    wspec = wf["spec"]
    if set(wspec) - {"entrypoint", "arguments", "templates"}:
        raise ValueError(f"Workflow spec: unexpected fields {set(wspec)}")
    params = {p["name"]: p["value"] for p in wspec["arguments"]["parameters"]}
    if params != PARAMS:
        fail(f"Workflow parameters {params!r}")
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
        manifests.append(raw)
        obj = yaml.safe_load(argo_render(raw))
        if obj["kind"] == "Service":
            top = services.get(obj["metadata"]["name"])
            if res_t["action"] != "apply" or obj != top:
                fail(f"task {name}: the Service differs from the top-level one, or is not applied")
            core.append(obj)
            continue
        inv_id = obj["spec"]["template"]["spec"]["containers"][0]["args"][1]
        task_of[inv_id] = name
        top = job_of.get(inv_id)
        inv = invs[inv_id]
        if res_t["action"] != "create":
            fail(f"task {name}: action {res_t['action']!r}")
        if res_t.get("successCondition") != f"status.succeeded > {machines(inv) - 1}":
            fail(f"task {name}: successCondition {res_t.get('successCondition')!r}")
        if res_t.get("failureCondition") != f"status.failed > {inv['retry']['max']}":
            fail(f"task {name}: failureCondition {res_t.get('failureCondition')!r}")
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
        cont = o["spec"]["template"]["spec"]["containers"][0]
        run_env = [e for e in cont["env"] if e["name"] == "PIPE_RUN_ID"][0]
        if run_env.pop("value", None) != WF_NAME:
            fail(f"task {name}: PIPE_RUN_ID is not the Workflow's name")
        t2 = yaml.safe_load(yaml.safe_dump(top))
        t2["metadata"].pop("name")
        t2_env = [e for e in t2["spec"]["template"]["spec"]["containers"][0]["env"] if e["name"] == "PIPE_RUN_ID"][0]
        run_env["valueFrom"] = t2_env["valueFrom"]
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
except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
    fail(f"Workflow: {type(e).__name__}: {e}")

# kubernetes-validate on every core object; yamllint on the file and the manifests.
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
lint = [path]
for i, m in enumerate(manifests):
    mp = os.path.join(work, f"manifest-{i}.yaml")
    with open(mp, "w", encoding="utf-8") as f:
        f.write("---\n" + m)
    lint.append(mp)
p = subprocess.run([os.path.join(venv, "yamllint"), "-s", "-d", lint_config] + lint, capture_output=True, text=True)
if p.returncode != 0:
    fail(f"yamllint:\n{p.stdout}{p.stderr}")

for e in errors:
    print(f"FAIL {os.path.basename(pipe)}: {e}")
print(f"{os.path.basename(pipe)}: {len(jobs)} Jobs, {len(services)} Services, {len(core)} objects validated, "
      f"{len(errors)} problems")
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
        build() { (cd "$(dirname "$pipe")" && "$pipec" build "$(basename "$pipe")" --pipeline "$pl" -o "$1" --target kubernetes); }
        if ! build "$out" 2>"$out.err"; then
            echo "FAIL: pipec build $pipe --pipeline $pl"
            cat "$out.err"
            status=1
            continue
        fi
        # Deterministic: a second build gives the same bytes.
        build "$out.again" 2>/dev/null
        if ! diff -r "$out/kubernetes" "$out.again/kubernetes" >/dev/null; then
            echo "FAIL: $pipe --pipeline $pl: a second build wrote a different kubernetes/"
            status=1
        fi
        "$venv/python" "$work/check.py" "$pipe" "$out" "$out.work" "$venv" "$deploy_yamllint_config" || status=1
    done
done
[ $status = 0 ] && echo "k8s_validate: ok ($checked pipelines)"
exit $status
