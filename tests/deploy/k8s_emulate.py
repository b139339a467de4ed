"""What Argo Workflows and Kubernetes do to the generated objects, done as
their code does it, for tests/deploy/k8s_check.py:

- Argo's template substitution of a resource manifest (util/template: simple
  tags, and expression tags whose result is JSON-escaped, as
  expressionReplace does), for the tags pipec writes;
- Kubernetes' $(VAR) expansion of a container's env values and args
  (third_party/forked/golang/expansion), with env from ConfigMaps and the
  downward API;
- Argo's success and failure conditions of a resource template: a
  Kubernetes label selector (apimachinery labels.Parse, keys validated as
  label keys) whose keys are gjson paths into the object (executor's
  gjsonLabels), failure requirements ORed, success requirements ANDed
  (executor's matchConditions).
"""
import json
import re

# ---- Argo's substitution -------------------------------------------------

PARAM_TAG = re.compile(r"=toJson\(sprig\.replace\('\$', '\$\$', workflow\.parameters\['([A-Za-z_][A-Za-z0-9_]*)'\]\)\)")


def go_json_string(s):
    """encoding/json.Marshal of a Go string: HTML characters and the line and
    paragraph separators escaped, invalid UTF-8 as U+FFFD."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20 or ch in "<>&" or o in (0x2028, 0x2029):
            out.append("\\u%04x" % o)
        elif 0xD800 <= o <= 0xDFFF:  # a lone surrogate: invalid UTF-8 in Go
            out.append("\ufffd")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def argo_render(text, wf_name, params):
    """The manifest after Argo's substitution; params maps every workflow
    parameter (store-claim included) to its value. A tag pipec does not
    write raises ValueError: Argo would expand something of the .pipe file."""
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
        m = PARAM_TAG.fullmatch(tag)
        if tag == "='{'+'{'":
            parts.append("{{")
        elif tag == "workflow.name":
            parts.append(wf_name)
        elif tag.startswith("workflow.parameters.") and tag[20:] in params:
            parts.append(params[tag[20:]])
        elif m and m.group(1) in params:
            parts.append(go_json_string(params[m.group(1)].replace("$", "$$")))
        else:
            raise ValueError(f"Argo would expand {{{{{tag}}}}} in a manifest")
        i = k + 2


def param_tags(text):
    """The parameters a manifest's expression tags read."""
    tags = (PARAM_TAG.fullmatch(t) for t in re.findall(r"\{\{(.*?)\}\}", text))
    return {m.group(1) for m in tags if m}


# ---- Kubernetes' $(VAR) expansion ---------------------------------------


def k8s_expand(s, mapping):
    """expansion.Expand: $(NAME) from mapping (unknown names stay as
    written), $$ is $, any other $ stays."""
    out, checkpoint, cursor = [], 0, 0
    while cursor < len(s):
        if s[cursor] == "$" and cursor + 1 < len(s):
            out.append(s[checkpoint:cursor])
            rest = s[cursor + 1:]
            if rest[0] == "$":
                read, is_var, advance = "$", False, 1
            elif rest[0] == "(":
                close = rest.find(")", 1)
                if close >= 0:
                    read, is_var, advance = rest[1:close], True, close + 1
                else:
                    read, is_var, advance = "$(", False, 1
            else:
                read, is_var, advance = "$" + rest[0], False, 1
            out.append(mapping.get(read, f"$({read})") if is_var else read)
            cursor += advance
            checkpoint = cursor + 1
        cursor += 1
    return "".join(out) + s[checkpoint:]


def container_argv(container, configmaps, fields):
    """The container's args as the kubelet starts it: env resolved in order
    (values expanded against the variables before them, valueFrom taken as
    it is), then args expanded against all of them. configmaps: name ->
    data; fields: fieldPath -> value."""
    env = {}
    for e in container.get("env", []):
        if "valueFrom" in e:
            src = e["valueFrom"]
            if "configMapKeyRef" in src:
                ref = src["configMapKeyRef"]
                data = configmaps.get(ref["name"])
                if data is None or ref["key"] not in data:
                    raise KeyError(f"env {e['name']}: ConfigMap {ref['name']} has no key {ref['key']} "
                                   "(the pod would wait in CreateContainerConfigError)")
                env[e["name"]] = data[ref["key"]]
            elif "fieldRef" in src:
                env[e["name"]] = fields.get(src["fieldRef"]["fieldPath"], "")
        else:
            env[e["name"]] = k8s_expand(e.get("value", ""), env)
    return [k8s_expand(a, env) for a in container.get("args", [])]

# ---- Argo's resource conditions -----------------------------------------


QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
SPECIAL = "!=(),<>"


def _valid_key(key):
    prefix, _, name = key.rpartition("/")
    if "/" in key and (not prefix or len(prefix) > 253 or not DNS_SUBDOMAIN.fullmatch(prefix)):
        return False
    return len(name) <= 63 and bool(QUALIFIED_NAME.fullmatch(name))


def _lex(text):
    toks, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith(("==", "!="), i):
            toks.append(text[i:i + 2])
            i += 2
        elif c in SPECIAL:
            toks.append(c)
            i += 1
        else:
            j = i
            while j < len(text) and not text[j].isspace() and text[j] not in SPECIAL:
                j += 1
            toks.append(("id", text[i:j]))
            i = j
    return toks


def parse_selector(text):
    """labels.Parse: a list of (key, op, values); ValueError as it refuses."""
    toks, reqs, i = _lex(text), [], 0

    def ident(t):
        return isinstance(t, tuple)
    while i < len(toks):
        negate = toks[i] == "!"
        if negate:
            i += 1
        if i >= len(toks) or not ident(toks[i]):
            raise ValueError(f"found {toks[i] if i < len(toks) else 'EOS'!r}, expected: identifier")
        key = toks[i][1]
        if not _valid_key(key):
            raise ValueError(f"invalid label key {key!r}")
        i += 1
        if negate or i >= len(toks) or toks[i] == ",":
            reqs.append((key, "!" if negate else "exists", []))
        else:
            op = toks[i]
            i += 1
            if op in ("=", "==", "!="):
                if i < len(toks) and ident(toks[i]):
                    value = toks[i][1]
                    i += 1
                else:
                    value = ""
                if not LABEL_VALUE.fullmatch(value) or len(value) > 63:
                    raise ValueError(f"invalid label value {value!r}")
                reqs.append((key, "!=" if op == "!=" else "=", [value]))
            elif op in (">", "<"):
                if i >= len(toks) or not ident(toks[i]) or not re.fullmatch(r"-?[0-9]+", toks[i][1]):
                    raise ValueError("for 'gt', 'lt' operators, exactly one integer value is required")
                reqs.append((key, op, [int(toks[i][1])]))
                i += 1
            elif ident(op) and op[1] in ("in", "notin"):
                raise ValueError("set-based requirements are not used by pipec")
            else:
                raise ValueError(f"found {op!r}, expected an operator")
        if i < len(toks):
            if toks[i] != ",":
                raise ValueError(f"found {toks[i]!r}, expected: ','")
            i += 1
    return reqs


def gjson_get(obj, path):
    """gjson.Get for dotted paths (array items by index): (exists, String())."""
    cur = obj
    for part in path.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return False, ""
    if isinstance(cur, str):
        return True, cur
    if isinstance(cur, bool):
        return True, "true" if cur else "false"
    if cur is None:
        return True, ""
    return True, json.dumps(cur, separators=(",", ":")) if isinstance(cur, (dict, list)) else str(cur)


def requirement_matches(req, obj):
    key, op, values = req
    has, got = gjson_get(obj, key)
    if op == "exists":
        return has
    if op == "!":
        return not has
    if op == "=":
        return has and got in values
    if op == "!=":
        return not has or got not in values
    if not has or not re.fullmatch(r"-?[0-9]+", got):
        return False
    return int(got) > values[0] if op == ">" else int(got) < values[0]


def resource_outcome(success, failure, obj):
    """'failed', 'succeeded' or 'waiting', as Argo's executor decides."""
    for req in parse_selector(failure) if failure else []:
        if requirement_matches(req, obj):
            return "failed"
    reqs = parse_selector(success) if success else []
    if all(requirement_matches(r, obj) for r in reqs):
        return "succeeded"
    return "waiting"


def job_states(completions, backoff_limit):
    """Job objects in the states a Job ends in (and one it waits in), as the
    Job controller writes their status, Kubernetes 1.27 to 1.33: name ->
    (object, expected outcome)."""
    cond = lambda t, reason="": {"type": t, "status": "True", "reason": reason}  # noqa: E731
    base = {"kind": "Job", "spec": {"completions": completions, "backoffLimit": backoff_limit}}
    states = {
        "running": ({"active": completions, "startTime": "t0"}, "waiting"),
        "complete": ({"succeeded": completions, "completionTime": "t1", "conditions": [cond("Complete")]},
                     "succeeded"),
        "complete, success criteria first (1.31+)": (
            {"succeeded": completions, "completionTime": "t1",
             "conditions": [cond("SuccessCriteriaMet"), cond("Complete")]}, "succeeded"),
        "backoff limit exceeded": (
            {"failed": backoff_limit + 1, "conditions": [cond("Failed", "BackoffLimitExceeded")]}, "failed"),
        "failure target first (1.31+)": (
            {"failed": backoff_limit + 1,
             "conditions": [cond("FailureTarget", "BackoffLimitExceeded"), cond("Failed", "BackoffLimitExceeded")]},
            "failed"),
        # An Indexed Job past its deadline after some pods succeeded: the
        # others were killed, which counts less than backoffLimit.
        "deadline, some pods succeeded": (
            {"succeeded": max(completions - 1, 0), "failed": 1,
             "conditions": [cond("Failed", "DeadlineExceeded")]}, "failed"),
        # A pod that never started (no ConfigMap, no image): no pod failed.
        "deadline, pod never started": ({"conditions": [cond("Failed", "DeadlineExceeded")]}, "failed"),
        "suspended once, then failed": (
            {"failed": 1, "conditions": [{"type": "Suspended", "status": "False"},
                                         cond("FailureTarget", "PodFailurePolicy"),
                                         cond("Failed", "PodFailurePolicy")]}, "failed"),
    }
    return {name: (dict(base, status=status), want) for name, (status, want) in states.items()}
