#!/usr/bin/env bash
# Checks on the repository that keep it true as the code moves:
#
#   repo_check.sh self-contained REPO_ROOT
#       nothing in the repository points at files outside it (the
#       specification's file names, a shared folder of the machine it was
#       written on);
#   repo_check.sh step-api REPO_ROOT
#       every function and type a step uses, declared in
#       runtime/include/pipe/{pipe,npy,precision}.h, is in docs/step-api.md;
#   repo_check.sh no-installs REPO_ROOT
#       no test installs anything (scripts/install-deps.sh does, before the
#       tests run: docs/testing.md);
#   repo_check.sh skips REPO_ROOT
#       scripts/ctest-skips.sh finds skipped and not-run tests in ctest's
#       output, with their reasons, and passes a clean one;
#   repo_check.sh architecture REPO_ROOT LAYERS RUNTIME_LAYERS
#       docs/architecture.md's "pipec, layer by layer" names every source
#       file of compiler/ (a header with no .c of its name included), and
#       its table of layers gives each the links CMake gives its library
#       (LAYERS: build/compiler/pipec_layers.txt); "The runtime, layer by
#       layer" the same for runtime/src/ (RUNTIME_LAYERS:
#       build/runtime/pipe_layers.txt).
set -u
what=$1
root=$2
cd "$root" || exit 2
case "$what" in
self-contained)
    # The names are split so that this file does not match itself.
    pattern='(BUNDLE|LANGUAGE|STYLE)\.md|shared/(spec|notes)|/work/'"shared"
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        hits=$(git grep -nE "$pattern" -- . ':!tests/repo_check.sh')
    else
        hits=$(grep -rnE "$pattern" --exclude-dir=build --exclude-dir='build-*' --exclude=repo_check.sh . )
    fi
    if [ -n "$hits" ]; then
        printf 'FAIL: these lines point at files outside the repository; say it here, or point at docs/:\n%s\n' "$hits"
        exit 1
    fi
    echo "ok: nothing points outside the repository"
    ;;
architecture)
    python3 - "${3:?the layers file of pipec}" "${4:?the layers file of the runtime}" <<'PY'
import os, re, sys
doc = open("docs/architecture.md").read()
failed = False


def check(title, tree, layers_file, prefix):
    """The section titled so names every source file of tree (a header with
    no .c of its name included), and its table of layers gives each the
    links CMake gives its library (layers_file: "PREFIXX: LIBRARY...")."""
    global failed
    start = doc.index("## " + title)
    section = doc[start:doc.index("\n## ", start + 1)]
    missing = []
    for folder, _, files in os.walk(tree):
        for name in sorted(files):
            stem, ext = os.path.splitext(name)
            named = ext in (".c", ".l", ".y", ".def") or (ext == ".h" and stem + ".c" not in files)
            if named and not re.search(r"\b" + re.escape(name) + r"\b", section):
                missing.append(os.path.join(folder, name))
    if missing:
        print("FAIL: docs/architecture.md does not name: " + ", ".join(missing))
        failed = True
    links = {}
    for line in open(layers_file):
        name, _, deps = line.partition(":")
        links[name.strip()] = deps.split()
    layers = {name[len(prefix):] for name in links}
    documented = {}
    for row in re.finditer(r"^\| `(\w+)/` \| ([^|]*) \|$", section, re.M):
        documented[row.group(1)] = set(re.findall(r"`(\w+)`", row.group(2)))
    for layer in sorted(layers | set(documented)):
        built = {d[len(prefix):] if d.startswith(prefix) and d[len(prefix):] in layers else d
                 for d in links.get(prefix + layer, [])}
        built = {d for d in built if d in layers or d == "pipe_base"}
        if documented.get(layer) != built:
            print("FAIL: layer %s of %s links %s in CMake, %s in docs/architecture.md"
                  % (layer, tree, sorted(built), sorted(documented.get(layer, []))))
            failed = True
    return len(layers)


n = check("pipec, layer by layer", "compiler", sys.argv[1], "pipec_")
m = check("The runtime, layer by layer", "runtime/src", sys.argv[2], "pipe_")
if failed:
    sys.exit(1)
print("ok: docs/architecture.md names every file of compiler/ and runtime/src/, and the links of their %d and %d "
      "layers" % (n, m))
PY
    ;;
step-api)
    missing=()
    names=$(sed -n 's/^[^#/ ][^(]*[ *]\(pipe_[a-z0-9_]*\)(.*/\1/p; s/^typedef .* \(pipe_[a-z0-9_]*\);$/\1/p;
                    s/^} \(pipe_[a-z0-9_]*\);$/\1/p' \
        runtime/include/pipe/pipe.h runtime/include/pipe/npy.h runtime/include/pipe/precision.h | sort -u)
    for name in $names; do
        grep -q "\b$name\b" docs/step-api.md || missing+=("$name")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "FAIL: docs/step-api.md does not describe: ${missing[*]}"
        exit 1
    fi
    echo "ok: docs/step-api.md describes all $(wc -w <<<"$names") names"
    ;;
no-installs)
    # A package manager run as a command: at the start of a line, maybe
    # after sudo or env.
    # shellcheck disable=SC2016 # a literal $sudo
    pattern='^[[:space:]]*((sudo|\$sudo|sudo -n)[[:space:]]+)?(env[[:space:]]+[^[:space:]]+[[:space:]]+)?'
    pattern+='(apt-get|apt|pip3?|python3?[[:space:]]+-m[[:space:]]+pip|dnf|yum)[[:space:]]+(-[^[:space:]]+[[:space:]]+)*(install|update)'
    hits=$(grep -rnE "$pattern" tests --include='*.sh' --include='*.py' --include='*.cmake' \
        --include=CMakeLists.txt | grep -v '^tests/golden/')
    if [ -n "$hits" ]; then
        printf 'FAIL: tests install packages; scripts/install-deps.sh must do it (docs/testing.md):\n%s\n' "$hits"
        exit 1
    fi
    echo "ok: no test installs anything"
    ;;
skips)
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    mkdir -p "$work/Testing/Temporary"
    cat >"$work/ctest-output.log" <<'LOG'
 1/4 Test #1: unit.a ...........................   Passed    0.01 sec
 2/4 Test #2: deploy.b .........................***Skipped   0.02 sec
 3/4 Test #3: deploy.c .........................***Not Run   0.00 sec
 4/4 Test #4: runtime.d ........................***Failed    0.01 sec
LOG
    printf 'SKIP: podman cannot use a store here\n' >"$work/Testing/Temporary/LastTest.log"
    if bash scripts/ctest-skips.sh "$work" >"$work/out" 2>&1; then
        cat "$work/out"
        echo "FAIL: ctest-skips.sh passed a run with a skipped and a not-run test"
        exit 1
    fi
    for want in "deploy.b (Skipped)" "deploy.c (Not Run)" "SKIP: podman cannot use a store here"; do
        grep -qF "$want" "$work/out" || { cat "$work/out"; echo "FAIL: ctest-skips.sh does not say \`$want\`"; exit 1; }
    done
    grep -q "runtime.d" "$work/out" && { cat "$work/out"; echo "FAIL: a failed test is not a skip"; exit 1; }
    sed -i '/Skipped\|Not Run/d' "$work/ctest-output.log"
    bash scripts/ctest-skips.sh "$work" >"$work/out" 2>&1 || { cat "$work/out"; echo "FAIL: a run without skips failed"; exit 1; }
    echo "ok: ctest-skips.sh fails on skipped and not-run tests"
    ;;
*)
    echo "usage: repo_check.sh self-contained|step-api|no-installs|skips REPO_ROOT" >&2
    exit 2
    ;;
esac
