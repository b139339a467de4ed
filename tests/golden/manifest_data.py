"""Every golden bundle.yaml read by two YAML readers, compared with the model.

For each case of tests/golden/ with an expected/bundle.yaml, and the
deploy tests' injection corpus: pipec builds the case as run_golden.sh does, with the hidden `--manifest-json FILE`,
which writes the model the bundle was written from as JSON (each value
typed as the model holds it: strings, integers, numbers, bools). The
golden bundle.yaml (where there is one) and the fresh one are loaded with PyYAML's pure-Python
SafeLoader and with its libyaml-based CSafeLoader (libyaml's parser, the
runtime's manifest loader's), and each must equal the JSON exactly: same
keys in the same order, same types (a bool is not an integer, a string
"yes" is not True), same text. So a writer that leaves a string from the
.pipe file unquoted where YAML reads it as another type, escapes it wrongly,
or drops or renames a key fails here, naming the case, the reader and the
path of the first difference.

    python3 manifest_data.py PIPEC REPO_ROOT
"""

import json
import os
import subprocess
import sys
import tempfile

import yaml


def first_difference(want, got, path="$"):
    """The path and the two values where got first differs from want, or None."""
    if isinstance(want, bool) or isinstance(got, bool):
        same_type = type(want) is type(got)
    elif isinstance(want, (int, float)) and isinstance(got, (int, float)):
        same_type = True  # 1 written plain reads back as the int 1
    else:
        same_type = type(want) is type(got)
    if not same_type:
        return path, want, got
    if isinstance(want, dict):
        if list(want) != list(got):
            return path + " (keys)", list(want), list(got)
        for key in want:
            found = first_difference(want[key], got[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(want, list):
        if len(want) != len(got):
            return path + " (length)", len(want), len(got)
        for i, (w, g) in enumerate(zip(want, got)):
            found = first_difference(w, g, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if want == got else (path, want, got)


def readers():
    out = [("PyYAML", yaml.SafeLoader)]
    if not yaml.__with_libyaml__:
        sys.exit("FAIL: PyYAML has no libyaml binding (CSafeLoader); run scripts/install-deps.sh")
    out.append(("libyaml", yaml.CSafeLoader))
    return out


def golden_case(root, name):
    """(pipe file, pipeline options, golden bundle.yaml) of a golden case, or None."""
    case = os.path.join(root, "tests", "golden", name)
    golden = os.path.join(case, "expected", "bundle.yaml")
    if not os.path.isfile(golden):
        return None
    pipe_path = os.path.join(case, "case.pipe")
    if os.path.isfile(os.path.join(case, "pipe_path")):
        with open(os.path.join(case, "pipe_path")) as f:
            pipe_path = os.path.join(root, f.read().strip())
    select = []
    if os.path.isfile(os.path.join(case, "pipeline")):
        with open(os.path.join(case, "pipeline")) as f:
            select = ["--pipeline", f.read().strip()]
    return pipe_path, select, golden


def check_case(pipec, name, pipe_path, select, golden, work):
    """Readings compared and failures of one pipeline: its golden
    bundle.yaml (when it has one) and the one built now."""
    out = os.path.join(work, name)
    model_json = os.path.join(work, name + ".json")
    env = dict(os.environ, PIPEC_CUDA_VERSION="12.4.1")  # as run_golden.sh
    subprocess.run(
        [pipec, "build", os.path.basename(pipe_path), *select, "-o", out, "--target", "all",
         "--manifest-json", model_json],
        cwd=os.path.dirname(pipe_path), env=env, check=True, stderr=subprocess.DEVNULL)
    with open(model_json, encoding="utf-8") as f:
        model = json.load(f)
    failures = []
    checked = 0
    files = [("fresh", os.path.join(out, "bundle.yaml"))]
    if golden:
        files.insert(0, ("golden", golden))
    for label, path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for reader, loader in readers():
            try:
                data = yaml.load(text, Loader=loader)
            except yaml.YAMLError as e:
                failures.append(f"{name}: {label} bundle.yaml does not parse with {reader}: {e}")
                continue
            found = first_difference(model, data)
            checked += 1
            if found:
                where, want, got = found
                failures.append(f"{name}: {label} bundle.yaml read by {reader} differs from the model at {where}: "
                                f"model {want!r}, read {got!r}")
    return checked, failures


def main():
    pipec, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    names = sorted(os.listdir(os.path.join(root, "tests", "golden")))
    checked, failures = 0, []
    with tempfile.TemporaryDirectory() as work:
        cases = [(name, golden_case(root, name)) for name in names]
        # The deploy tests' injection corpus: every YAML special, quote,
        # newline and non-ASCII text in strings, environment keys and
        # tolerations (no golden; the bundle built now).
        cases.append(("injection", (os.path.join(root, "tests", "deploy", "injection", "injection.pipe"), [], None)))
        for name, case in cases:
            if case:
                n, f = check_case(pipec, name, *case, work)
                checked += n
                failures += f
    for line in failures:
        print("FAIL:", line)
    if checked == 0:
        print("FAIL: no golden bundle.yaml found")
        return 1
    print(f"{checked} readings of golden and fresh bundle.yaml files compared with the model")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
