#!/usr/bin/env python3
"""Every golden case's bundle.yaml, and the injection corpus's, read by
YAML's own readers gives exactly pipec's model: pipec writes bundle.yaml
with its own writer (compiler/gen/yaml_direct.c), so this checks that what
PyYAML's pure-Python loader and its libyaml loader load is the data pipec
meant, key for key in order, type for type (a string "no" is not false, a
string "1" is not 1), text for text. pipec's hidden `build --manifest-json
FILE` writes the model as JSON next to the bundle.

usage: manifest_data.py PIPEC REPO_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

import yaml


def cases(root):
    """(name, .pipe path, pipeline or None) of every golden case and the
    injection corpus."""
    golden = os.path.join(root, 'tests', 'golden')
    for name in sorted(os.listdir(golden)):
        case = os.path.join(golden, name)
        if os.path.isfile(os.path.join(case, 'pipe_path')):
            with open(os.path.join(case, 'pipe_path')) as f:
                pipe = os.path.join(root, f.read().strip())
        elif os.path.isfile(os.path.join(case, 'case.pipe')):
            pipe = os.path.join(case, 'case.pipe')
        else:
            continue
        pipeline = None
        if os.path.isfile(os.path.join(case, 'pipeline')):
            with open(os.path.join(case, 'pipeline')) as f:
                pipeline = f.read().strip()
        yield name, pipe, pipeline
    yield 'injection', os.path.join(root, 'tests', 'deploy', 'injection', 'injection.pipe'), None


def differences(want, got, path='$'):
    """Where got differs from want: keys in order, types, values."""
    if type(want) is not type(got):
        return ['%s: %s %r, read as %s %r' % (path, type(want).__name__, want, type(got).__name__, got)]
    if isinstance(want, dict):
        if list(want) != list(got):
            return ['%s: keys %s, read as %s' % (path, list(want), list(got))]
        out = []
        for k in want:
            out += differences(want[k], got[k], '%s.%s' % (path, k))
        return out
    if isinstance(want, list):
        if len(want) != len(got):
            return ['%s: %d items, read as %d' % (path, len(want), len(got))]
        out = []
        for i, (w, g) in enumerate(zip(want, got)):
            out += differences(w, g, '%s[%d]' % (path, i))
        return out
    return [] if want == got else ['%s: %r, read as %r' % (path, want, got)]


def main(pipec, root):
    if not yaml.__with_libyaml__:
        print('manifest_data.py: this PyYAML has no libyaml loader (python3-yaml from Debian has it)')
        return 1
    loaders = [('PyYAML', yaml.SafeLoader), ('libyaml', yaml.CSafeLoader)]
    failed = checked = 0
    with tempfile.TemporaryDirectory() as work:
        for name, pipe, pipeline in cases(root):
            out = os.path.join(work, name)
            model_json = out + '.json'
            cmd = [pipec, 'build', os.path.basename(pipe), '-o', out, '--target', 'local',
                   '--manifest-json', model_json]
            if pipeline:
                cmd += ['--pipeline', pipeline]
            run = subprocess.run(cmd, cwd=os.path.dirname(pipe), capture_output=True, text=True)
            if run.returncode != 0:
                print('FAIL %s: pipec build failed:\n%s' % (name, run.stderr))
                failed += 1
                continue
            with open(model_json) as f:
                model = json.load(f)
            with open(os.path.join(out, 'bundle.yaml')) as f:
                text = f.read()
            for loader_name, loader in loaders:
                diffs = differences(model, yaml.load(text, Loader=loader))
                checked += 1
                if diffs:
                    failed += 1
                    print('FAIL %s (%s): bundle.yaml does not read as the model:' % (name, loader_name))
                    for d in diffs[:10]:
                        print('  ' + d)
    print('manifest_data: %d readings, %d failed' % (checked, failed))
    return 1 if failed or checked == 0 else 0


if __name__ == '__main__':
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])))
