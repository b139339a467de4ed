"""Checks the AWS Batch target's files (batch_validate.sh): every job
definition and every submit-job call, offline, with botocore's own service
model (a current botocore from build/venv-aws: ParamValidator on the
RegisterJobDefinition and SubmitJob input shapes), then what that shape
check does not see:

  - each definition's name is its file's, a Batch name, and carries the
    digest of its content (an unchanged definition keeps its name);
  - type, platformCapabilities, resourceRequirements (VCPU rounded up,
    MEMORY in MiB rounded up, GPU), sharedMemorySize, Neuron and EFA
    devices (/dev/neuron0..N-1 READ/WRITE, /dev/infiniband/uverbs0..M-1
    READ/WRITE/MKNOD; counts within the largest instance of their kind),
    tmpfs mounts, jobRoleArn, retries and timeout, from bundle.yaml;
  - multi-node jobs: mainNode below numNodes, node ranges that cover every
    node exactly once, no containerProperties beside nodeProperties;
  - the calls of submit.sh: every definition registered before a job uses
    it, one submit-job per invocation in bundle.yaml's (DAG) order, with
    dependsOn naming the jobs of exactly the invocations it needs, its
    queue (@batch(queue), else the run's), and parameters that, put in the
    command's Ref:: places as Batch does, give `step ID --run-id RUN
    --store /pipe-store --param NAME=VALUE...` with the run's values;
  - registry and execution role put in place of their placeholders.

  batch_check.py RUNS_FILE
RUNS_FILE: one JSON object a line: {"bundle", "calls" (a list of argv lists,
with "files": the file:// texts), "run_id", "queue", "params" (given),
"registry", "role"}.
"""
import hashlib
import json
import math
import os
import re
import shlex
import sys

import botocore.session
import botocore.validate
import yaml

MIB = 1024 * 1024
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")
STORE = "/pipe-store"
# The most Neuron devices one instance of each kind has (trn1.32xlarge,
# trn2.48xlarge; inf1.24xlarge).
MAX_TRAINIUM = 16
MAX_INFERENTIA = 16
FARGATE_VCPU = {"0.25", "0.5", "1", "2", "4", "8", "16"}

SESSION = botocore.session.get_session()
MODEL = SESSION.get_service_model("batch")
VALIDATOR = botocore.validate.ParamValidator()

errors = []


def fail(where, msg):
    errors.append(f"{where}: {msg}")


def shape_check(where, operation, params):
    shape = MODEL.operation_model(operation).input_shape
    report = VALIDATOR.validate(params, shape)
    if report.has_errors():
        fail(where, f"botocore refuses the {operation} input:\n{report.generate_report()}")


def ceil_div(a, b):
    return -(-a // b)


def expected_devices(prefix, count, perms):
    return [{"hostPath": f"{prefix}{i}", "containerPath": f"{prefix}{i}", "permissions": perms}
            for i in range(count)]


def check_container(where, c, inv, platform):
    res = inv.get("resources", {})
    batch = inv.get("batch", {}) or {}
    req = {r["type"]: r["value"] for r in c.get("resourceRequirements", [])}
    cpu = float(res.get("cpu", 0) or 0)
    mem = int(res.get("memory", 0) or 0)
    if platform == "FARGATE":
        if req.get("VCPU") not in FARGATE_VCPU or float(req["VCPU"]) < cpu:
            fail(where, f"Fargate VCPU {req.get('VCPU')} for cpu {cpu}")
        if int(req.get("MEMORY", 0)) < ceil_div(mem, MIB):
            fail(where, f"Fargate MEMORY {req.get('MEMORY')} below the step's {ceil_div(mem, MIB)} MiB")
        for key in ("executionRoleArn", "networkConfiguration", "fargatePlatformConfiguration"):
            if key not in c:
                fail(where, f"a Fargate job without {key}")
        if "linuxParameters" in c or "volumes" in c:
            fail(where, "Fargate takes no linuxParameters or host volumes")
    else:
        want_cpu = str(math.ceil(cpu - 1e-9)) if cpu > 0 else "1"
        if req.get("VCPU") != want_cpu:
            fail(where, f"VCPU {req.get('VCPU')}, expected {want_cpu} (cpu {cpu} rounded up)")
        want_mem = str(ceil_div(mem, MIB)) if mem else "2048"
        if req.get("MEMORY") != want_mem:
            fail(where, f"MEMORY {req.get('MEMORY')}, expected {want_mem} MiB")
        gpu = int(res.get("gpu", 0) or 0)
        if gpu > 0 and req.get("GPU") != str(gpu):
            fail(where, f"GPU {req.get('GPU')}, expected {gpu}")
        if gpu == 0 and "GPU" in req and not inv.get("accelerate", {}).get("multi_gpu"):
            fail(where, "a GPU for a step without one")
        mounts = c.get("mountPoints", [])
        if not any(m.get("containerPath") == STORE for m in mounts):
            fail(where, f"the store is not mounted at {STORE}")
    env = {e["name"]: e["value"] for e in c.get("environment", [])}
    if env.get("PIPE_STORE") != STORE:
        fail(where, f"PIPE_STORE is {env.get('PIPE_STORE')}")
    if batch.get("job_role") != c.get("jobRoleArn"):
        fail(where, f"jobRoleArn {c.get('jobRoleArn')}, @batch(job_role) {batch.get('job_role')}")
    # Linux parameters: shared memory, devices, tmpfs.
    lp = c.get("linuxParameters", {})
    if platform != "FARGATE":
        shm = int(res.get("shm", 0) or 0)
        if (lp.get("sharedMemorySize") or 0) != ceil_div(shm, MIB):
            fail(where, f"sharedMemorySize {lp.get('sharedMemorySize')}, shm {shm}")
        trn = max(int(res.get("trainium", 0) or 0), int(batch.get("trainium", 0) or 0))
        inf = max(int(res.get("inferentia", 0) or 0), int(batch.get("inferentia", 0) or 0))
        if trn > MAX_TRAINIUM or inf > MAX_INFERENTIA:
            fail(where, f"{trn} Trainium / {inf} Inferentia devices: more than any instance has")
        efa = int(batch.get("efa", 0) or 0)
        want = expected_devices("/dev/neuron", trn + inf, ["READ", "WRITE"]) + \
            expected_devices("/dev/infiniband/uverbs", efa, ["READ", "WRITE", "MKNOD"])
        if lp.get("devices", []) != want:
            fail(where, f"devices {lp.get('devices')}, expected {trn + inf} Neuron and {efa} EFA devices")
        want_tmpfs = []
        for m in batch.get("tmpfs", []) or []:
            t = {"containerPath": m["path"], "size": ceil_div(size_bytes(m["size"]), MIB)}
            if m.get("options"):
                t["mountOptions"] = m["options"]
            want_tmpfs.append(t)
        if lp.get("tmpfs", []) != want_tmpfs:
            fail(where, f"tmpfs {lp.get('tmpfs')}, expected {want_tmpfs}")


UNITS = {"KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15,
         "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40, "PIB": 2**50}


def size_bytes(text):
    m = re.fullmatch(r"\s*([0-9]+)\s*([A-Za-z]+)\s*", str(text))
    return int(m.group(1)) * UNITS[m.group(2).upper()]


def check_definition(where, d, inv, bundle, registry, role):
    """d: the definition as registered."""
    platform = (inv.get("batch", {}) or {}).get("platform", "EC2")
    machines = int(inv.get("accelerate", {}).get("num_machines", 1) or 1)
    if d.get("platformCapabilities") != ["FARGATE" if platform == "FARGATE" else "EC2"]:
        fail(where, f"platformCapabilities {d.get('platformCapabilities')} for platform {platform}")
    if machines > 1:
        if d.get("type") != "multinode" or "containerProperties" in d:
            fail(where, "a multi-node step is not a multinode job")
            return
        np_ = d["nodeProperties"]
        if np_["numNodes"] != machines:
            fail(where, f"numNodes {np_['numNodes']}, num_machines {machines}")
        if not 0 <= np_["mainNode"] < np_["numNodes"]:
            fail(where, f"mainNode {np_['mainNode']} not below numNodes {np_['numNodes']}")
        covered = [0] * np_["numNodes"]
        for r in np_["nodeRangeProperties"]:
            lo, _, hi = r["targetNodes"].partition(":")
            lo = int(lo) if lo else 0
            hi = int(hi) if hi else np_["numNodes"] - 1
            for i in range(lo, hi + 1):
                if i >= np_["numNodes"]:
                    fail(where, f"node range {r['targetNodes']} beyond numNodes")
                    break
                covered[i] += 1
            check_container(f"{where} nodes {r['targetNodes']}", r["container"], inv, platform)
        if covered != [1] * np_["numNodes"]:
            fail(where, f"node ranges cover the nodes {covered} times")
        containers = [r["container"] for r in np_["nodeRangeProperties"]]
    else:
        if d.get("type") != "container" or "nodeProperties" in d:
            fail(where, "a one-machine step is not a container job")
            return
        check_container(where, d["containerProperties"], inv, platform)
        containers = [d["containerProperties"]]
    retry = inv.get("retry", {}).get("max", 0)
    if retry > 0 and d.get("retryStrategy") != {"attempts": min(retry + 1, 10)}:
        fail(where, f"retryStrategy {d.get('retryStrategy')} for @retry(max = {retry})")
    if retry == 0 and "retryStrategy" in d:
        fail(where, "a retryStrategy without @retry")
    timeout_ms = inv.get("timeout_ms", 0)
    if timeout_ms:
        s = d.get("timeout", {}).get("attemptDurationSeconds", 0)
        if s < max(60, ceil_div(timeout_ms, 1000)):
            fail(where, f"attemptDurationSeconds {s} for a timeout of {timeout_ms} ms")
    for c in containers:
        if c["image"].startswith("PIPE_REGISTRY/") or (role and c.get("executionRoleArn", role) != role):
            fail(where, "a placeholder left in the registered definition")
    return containers


def check_file(where, path, text):
    """The file as the bundle holds it: a valid input, named by its digest."""
    d = json.loads(text)
    name = d.get("jobDefinitionName", "")
    if os.path.basename(path) != f"{name}.json":
        fail(where, f"{path} holds the definition {name}")
    if not NAME_RE.match(name):
        fail(where, f"{name} is not a Batch name")
    prefix = "{\n  " + json.dumps("jobDefinitionName") + ": " + json.dumps(name)
    if not text.startswith(prefix):
        fail(where, "the name does not come first")
    else:
        digest = hashlib.sha256(("{" + text[len(prefix):]).encode()).hexdigest()
        if not name.endswith("-" + digest[:16]):
            fail(where, f"{name} does not end in the digest of its content ({digest[:16]})")
    shape_check(where, "RegisterJobDefinition", d)


def arg(argv, opt):
    return argv[argv.index(opt) + 1] if opt in argv else None


def substitute(command, params):
    return [params.get(w[len("Ref::"):], w) if w.startswith("Ref::") else w for w in command]


def check_run(run):
    bundle = run["bundle"]
    with open(f"{bundle}/bundle.yaml", encoding="utf-8") as f:
        mf = yaml.safe_load(f)
    invs = mf["invocations"]
    defaults = {p["name"]: p.get("default") for p in mf.get("params", [])}
    values = {**defaults, **run["params"]}
    registered = {}  # ARN or name -> definition
    job_of = {}  # invocation id -> job id
    submits = []
    for call in run["calls"]:
        argv, files = call["argv"], call.get("files", {})
        where = f"{bundle}: aws {' '.join(argv[:2])}"
        if argv[:2] == ["batch", "register-job-definition"]:
            src = arg(argv, "--cli-input-json")
            text = files.get(src)
            if text is None:
                with open(src[len("file://"):], encoding="utf-8") as f:
                    text = f.read()
            d = json.loads(text)
            shape_check(where, "RegisterJobDefinition", d)
            arn = f"arn:aws:batch:us-east-1:123456789012:job-definition/{d['jobDefinitionName']}:1"
            registered[arn] = registered[d["jobDefinitionName"]] = d
        elif argv[:2] == ["batch", "submit-job"]:
            submits.append(argv)
        elif argv[:2] != ["batch", "describe-job-definitions"]:
            fail(where, "an unexpected call")
    if len(submits) != len(invs):
        fail(bundle, f"{len(submits)} submit-job calls for {len(invs)} invocations")
        return
    for inv, argv in zip(invs, submits):
        where = f"{bundle}: submit-job of {inv['id']}"
        params = {
            "jobName": arg(argv, "--job-name"),
            "jobQueue": arg(argv, "--job-queue"),
            "jobDefinition": arg(argv, "--job-definition"),
            "parameters": json.loads(arg(argv, "--parameters")),
        }
        if "--depends-on" in argv:
            params["dependsOn"] = json.loads(arg(argv, "--depends-on"))
        shape_check(where, "SubmitJob", params)
        if not NAME_RE.match(params["jobName"] or ""):
            fail(where, f"job name {params['jobName']}")
        queue = (inv.get("batch", {}) or {}).get("queue") or run["queue"]
        if params["jobQueue"] != queue:
            fail(where, f"queue {params['jobQueue']}, expected {queue}")
        deps = sorted(x["jobId"] for x in params.get("dependsOn", []))
        want = sorted(job_of[n] for n in inv.get("needs", []))
        if deps != want:
            fail(where, f"dependsOn {deps}, expected the jobs of {inv.get('needs')}: {want}")
        job_of[inv["id"]] = run["job_id"](inv["id"], params["jobName"])
        d = registered.get(params["jobDefinition"])
        if d is None:
            fail(where, f"{params['jobDefinition']} was not registered before")
            continue
        containers = check_definition(where, d, inv, bundle, run["registry"], run["role"]) or []
        want_cmd = ["step", inv["id"], "--run-id", run["run_id"], "--store", STORE]
        for p in mf.get("params", []):
            want_cmd += ["--param", f"{p['name']}={values[p['name']]}"]
        for c in containers:
            got = substitute(c["command"], params["parameters"])
            if got != want_cmd:
                fail(where, f"the command as Batch runs it is {got}, expected {want_cmd}")


def load_calls(run):
    """The aws calls of a run: recorded by the stand-in, or the lines
    `aws batch ...` that --dry-run printed."""
    if run.get("dry_run_output"):
        calls = []
        with open(run["dry_run_output"], encoding="utf-8") as f:
            for line in f:
                words = shlex.split(line)
                if words and words[0] == "aws":
                    calls.append({"argv": words[1:]})
        return calls
    with open(run["aws_log"], encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    n = 0
    with open(sys.argv[1], encoding="utf-8") as f:
        runs = [json.loads(line) for line in f if line.strip()]
    for run in runs:
        dry = bool(run.get("dry_run_output"))
        run["job_id"] = (lambda inv_id, name: f"dry-run-job-of-{inv_id}") if dry else \
            (lambda inv_id, name: f"job-{name}")
        run["calls"] = load_calls(run)
        batch_dir = os.path.join(run["bundle"], "batch")
        for name in sorted(os.listdir(batch_dir)):
            if name.endswith(".json"):
                with open(os.path.join(batch_dir, name), encoding="utf-8") as f:
                    check_file(run["bundle"], os.path.join(batch_dir, name), f.read())
        registers = [c for c in run["calls"] if c["argv"][:2] == ["batch", "register-job-definition"]]
        files = [x for x in os.listdir(batch_dir) if x.endswith(".json")]
        if len(registers) != len(files):
            fail(run["bundle"], f"{len(registers)} definitions registered, {len(files)} in batch/")
        check_run(run)
        n += 1
    for e in errors:
        print("FAIL:", e)
    print(f"batch_check: {n} runs, {len(errors)} problems")
    return 1 if errors else 0


sys.exit(main())
