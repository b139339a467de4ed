#!/usr/bin/env bash
# The main job: install what is missing, build pipec, and show it at work on
# the single-GPU example. Each section is one function called from main();
# building and running the bundle will be one more section.
#
#   bash scripts/demo.sh
#   EXAMPLE=examples/multi-node/pretrain.pipe bash scripts/demo.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

EXAMPLE=${EXAMPLE:-examples/single-gpu/train.pipe}
BUILD_DIR=build
PIPEC=$BUILD_DIR/compiler/pipec

section() { printf '\n== %s\n' "$*"; }
# show CMD...: print the command, then run it.
show() {
    printf '$ %s\n' "$*"
    "$@"
}
die() { printf 'demo.sh: error: %s\n' "$*" >&2; exit 1; }

install_deps() {
    section "Install missing dependencies"
    bash scripts/install-deps.sh
}

build_pipec() {
    section "Build pipec into $BUILD_DIR/"
    local -a gen=()
    if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
        command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
        gen+=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
    fi
    show cmake -S . -B "$BUILD_DIR" --log-level=WARNING ${gen[@]+"${gen[@]}"}
    show cmake --build "$BUILD_DIR" -j "$(nproc 2>/dev/null || echo 2)"
    [ -x "$PIPEC" ] || die "the build finished but $PIPEC is missing"
}

check_example() {
    section "Check $EXAMPLE: names, types, decorators, resources, images"
    show "$PIPEC" check "$EXAMPLE"
    echo "pipec check: ok (exit 0)"
}

graph_example() {
    section "The pipeline's graph: invocations and the artifacts between them"
    show "$PIPEC" graph "$EXAMPLE"
}

# Next section (a later issue): pipec build "$EXAMPLE" -o out/..., build the
# bundle with CMake, make data, run it locally and print its report.

main() {
    [ -f "$EXAMPLE" ] || die "no such example: $EXAMPLE"
    install_deps
    build_pipec
    check_example
    graph_example
    printf '\ndemo.sh: done\n'
}

main "$@"
