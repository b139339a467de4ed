#!/usr/bin/env bash
# Where the images are pushed and pulled from (docs/deploy-docker.md,
# "The registry"):
# - without a registry, `pipec build` writes every target, exits 0 and warns
#   once per target that pulls images (kubernetes, skypilot), never for the
#   others, and `pipec check` says nothing; every reference is
#   PIPE_REGISTRY/NAME:TAG;
# - docker/build.sh then refuses to run until PIPE_REGISTRY is set, and
#   builds and pushes with podman or docker, whichever it finds (stand-ins
#   here record what they are asked);
# - @docker(registry) names it in every file, `pipec build --registry`
#   overrides it (and only the registry part of the references changes), and
#   a registry that images cannot be named under is refused.
#
#   docker_registry.sh PIPEC REPO_ROOT WORK_DIR
set -u
pipec=$(realpath "$1")
work=$3/docker-registry
rm -rf "$work"
mkdir -p "$work/bin"
status=0
fail() {
    echo "FAIL: $*"
    status=1
}
ok() { echo "ok   $*"; }

cd "$work" || exit 1
echo 'int s(void *ctx, const void *args) { (void)ctx; (void)args; return 0; }' >s.c
write_pipe() { # DECORATOR_LINE
    printf '%s\nstep s() {\n    source = "s.c"\n}\n\n@docker(apt_packages = ["curl"])\nstep t() {\n    source = "s.c"\n    entry = "s"\n}\n\npipeline p() {\n    s()\n    t()\n}\n' \
        "$1" >p.pipe
}
write_pipe ""

# warnings TARGETS: builds with --target TARGETS and prints the targets it
# warned about, one per line.
warnings() {
    if ! "$pipec" build p.pipe -o "$work/out-$1" --target "$1" >"$work/build.out" 2>"$work/build.err"; then
        cat "$work/build.err"
        fail "pipec build --target $1 failed without a registry"
    fi
    # shellcheck disable=SC2016 # the message's backquotes
    sed -n 's/^pipec: warning: target `\([a-z]*\)` pulls the images from a registry, and none was given$/\1/p' \
        "$work/build.err"
}
expect_warnings() { # TARGETS EXPECTED (space-separated, in table order)
    local got
    got=$(warnings "$1" | tr '\n' ' ')
    got=${got% }
    if [ "$got" = "$2" ]; then
        ok "--target $1 without a registry: exit 0, warnings for: ${2:-none}"
    else
        cat "$work/build.err"
        fail "--target $1: warnings for '$got', expected '$2'"
    fi
    if [ "$(grep -c '^pipec: warning' "$work/build.err")" != "$(wc -w <<<"$2")" ]; then
        fail "--target $1: other warnings than one per image-pulling target"
    fi
}
expect_warnings all "kubernetes skypilot batch"
expect_warnings kubernetes "kubernetes"
expect_warnings local,docker,slurm ""
# shellcheck disable=SC2016 # the message's backquotes
grep -q 'help: give one with `@docker(registry = "ghcr.io/team")` in the .pipe file or `pipec build --registry REGISTRY`' \
    <(warnings skypilot 2>&1; cat "$work/build.err") || fail "the warning's help names neither @docker(registry) nor --registry"
if "$pipec" check p.pipe >"$work/check.out" 2>&1 && [ ! -s "$work/check.out" ]; then
    ok "pipec check says nothing about the registry"
else
    cat "$work/check.out"
    fail "pipec check is not silent"
fi

# Every reference in every file has the placeholder.
out=$work/out-all
refs() { grep -rhoE '[a-zA-Z0-9_.:/-]+/p-[a-z0-9-]+:[0-9a-f]{16}' "$1/kubernetes" "$1/skypilot" | sed 's|^docker:||' | sort -u; }
if [ -n "$(refs "$out")" ] && ! refs "$out" | grep -qv '^PIPE_REGISTRY/'; then
    ok "every reference is PIPE_REGISTRY/NAME:TAG ($(refs "$out" | wc -l) images)"
else
    fail "references without the placeholder: $(refs "$out" | tr '\n' ' ')"
fi

# --- docker/build.sh ------------------------------------------------------
# Stand-ins for podman and docker: each records its arguments.
for engine in podman docker; do
    printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\n' "$engine" "$work" >"$work/bin/$engine"
    chmod 755 "$work/bin/$engine"
done
mkdir -p "$work/only-docker" "$work/none" "$work/basics"
cp "$work/bin/docker" "$work/only-docker/"
# What the script needs besides an engine, and nothing else on PATH.
for tool in sh dirname; do
    ln -s "$(command -v "$tool")" "$work/basics/$tool"
done
base_path=$work/basics
run_script() { # PATH_DIR BUNDLE [ARGS]: runs BUNDLE/docker/build.sh with only PATH_DIR and the basics on PATH
    local dir=$1 bundle=$2
    shift 2
    rm -f "$work/calls"
    env -i PATH="$dir:$base_path" ${REGISTRY:+PIPE_REGISTRY="$REGISTRY"} ${ENGINE:+PIPE_CONTAINER_ENGINE="$ENGINE"} \
        sh "$bundle/docker/build.sh" "$@" >"$work/script.out" 2>&1
}
calls() { cat "$work/calls" 2>/dev/null; }

REGISTRY='' ENGINE='' run_script "$work/bin" "$out"
rc=$?
if [ $rc = 1 ] && grep -q 'PIPE_REGISTRY is not set' "$work/script.out" && [ -z "$(calls)" ]; then
    ok "docker/build.sh refuses without PIPE_REGISTRY (exit 1, nothing built)"
else
    cat "$work/script.out"
    fail "docker/build.sh without PIPE_REGISTRY: exit $rc, calls: $(calls)"
fi
REGISTRY='reg.example.com/a|b' ENGINE='' run_script "$work/bin" "$out"
rc=$?
if [ $rc = 1 ] && grep -q 'is not a registry' "$work/script.out" && [ -z "$(calls)" ]; then
    ok "docker/build.sh refuses a PIPE_REGISTRY that no image name holds"
else
    cat "$work/script.out"
    fail "docker/build.sh with PIPE_REGISTRY='reg.example.com/a|b': exit $rc, calls: $(calls)"
fi
# shellcheck disable=SC2016 # the script's text
names=$(sed -n 's|^image docker/[^ ]*/Dockerfile "\$PIPE_REGISTRY/\(.*\)"$|\1|p' "$out/docker/build.sh")
[ "$(wc -l <<<"$names")" = 2 ] || fail "two images expected in docker/build.sh: $names"
expected=
for n in $names; do
    id=${n%%:*}
    id=${id#p-}
    expected+="podman build -f docker/$id/Dockerfile -t registry.example.com:5000/team/$n .
podman push registry.example.com:5000/team/$n
"
done
REGISTRY=registry.example.com:5000/team/ ENGINE='' run_script "$work/bin" "$out"
if [ "$(calls)" = "${expected%$'\n'}" ]; then
    ok "PIPE_REGISTRY=registry.example.com:5000/team/ docker/build.sh: podman builds and pushes each image"
else
    cat "$work/script.out"
    fail "docker/build.sh with podman called: $(calls); expected: $expected"
fi
REGISTRY=localhost ENGINE='' run_script "$work/bin" "$out" --no-push
if [ "$(calls | grep -c ' build ')" = 2 ] && ! calls | grep -q ' push '; then
    ok "--no-push builds and pushes nothing"
else
    fail "--no-push: $(calls)"
fi
REGISTRY=localhost ENGINE='' run_script "$work/only-docker" "$out"
if [ "$(calls | grep -c '^docker build ')" = 2 ] && [ "$(calls | grep -c '^docker push ')" = 2 ]; then
    ok "docker/build.sh uses docker where podman is missing"
else
    fail "without podman: $(calls)"
fi
REGISTRY=localhost ENGINE=docker run_script "$work/bin" "$out"
[ "$(calls | grep -c '^docker ')" = 4 ] || fail "PIPE_CONTAINER_ENGINE=docker: $(calls)"
REGISTRY=localhost ENGINE='' run_script "$work/none" "$out"
rc=$?
if [ $rc = 1 ] && grep -q 'neither podman nor docker' "$work/script.out"; then
    ok "docker/build.sh says so when neither podman nor docker is installed"
else
    fail "no engine: exit $rc: $(cat "$work/script.out")"
fi

# --- a registry given -------------------------------------------------------
# @docker(registry) on the pipeline applies to both steps.
write_pipe ''
sed -i 's/^pipeline p() {/@docker(registry = "ghcr.io\/acme")\npipeline p() {/' p.pipe
if "$pipec" build p.pipe -o "$work/file" --target all >"$work/file.out" 2>"$work/file.err" &&
    ! grep -q 'warning' "$work/file.err"; then
    ok "@docker(registry): no warning"
else
    cat "$work/file.err"
    fail "pipec build with @docker(registry)"
fi
if [ "$(refs "$work/file" | grep -c '^ghcr.io/acme/p-')" = 2 ] && ! refs "$work/file" | grep -qv '^ghcr.io/acme/'; then
    ok "@docker(registry): every reference is ghcr.io/acme/NAME:TAG"
else
    fail "@docker(registry): references $(refs "$work/file" | tr '\n' ' ')"
fi
if REGISTRY='' ENGINE='' run_script "$work/bin" "$work/file" && [ "$(calls | grep -c "^podman push ghcr.io/acme/p-")" = 2 ]; then
    ok "docker/build.sh pushes to the registry the bundle names, without PIPE_REGISTRY"
else
    cat "$work/script.out"
    fail "docker/build.sh with @docker(registry): $(calls)"
fi
"$pipec" build p.pipe -o "$work/cli" --target all --registry localhost:5000/x >/dev/null 2>"$work/cli.err" ||
    fail "pipec build --registry localhost:5000/x"
if [ "$(refs "$work/cli" | sed 's|^localhost:5000/x/||')" = "$(refs "$work/file" | sed 's|^ghcr.io/acme/||')" ] &&
    ! refs "$work/cli" | grep -qv '^localhost:5000/x/'; then
    ok "--registry overrides @docker(registry), and only the registry part changes"
else
    fail "--registry: $(refs "$work/cli" | tr '\n' ' ') against $(refs "$work/file" | tr '\n' ' ')"
fi
grep -A1 -x '  "--registry"' "$work/cli/pipec-rebuild.cmake" | grep -qx '  "localhost:5000/x"' ||
    fail "pipec-rebuild.cmake does not build again with --registry"

# What is not a registry is refused, naming it.
for bad in "Registry.example.com/Team" "ghcr.io/acme/" "ghcr.io/acme:v1" "a b" "\$(id)" ""; do
    "$pipec" build p.pipe -o "$work/bad" --registry "$bad" >"$work/bad.out" 2>&1
    rc=$?
    if [ $rc != 2 ] || ! grep -qE "is not a registry|needs a registry" "$work/bad.out"; then
        cat "$work/bad.out"
        fail "--registry '$bad': exit $rc, not refused as a usage error naming it"
    fi
done
[ -e "$work/bad" ] && fail "a refused --registry wrote files"
[ $status = 0 ] && echo "docker registry: ok"
exit $status
