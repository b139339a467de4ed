#!/usr/bin/env bash
# The main job: install what is missing, build pipec, check the MNIST-like
# example, compile it into a bundle, build that with CMake and run it here:
# it makes a data set, trains a small MLP and prints its test accuracy. Each
# section is one function called from main(); it exits non-zero when any
# fails.
#
#   bash scripts/demo.sh
#   EXAMPLE=examples/multi-node/pretrain.pipe bash scripts/demo.sh   # also check and graph another
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

MNIST=examples/mnist-like/mnist.pipe
EXAMPLE=${EXAMPLE:-$MNIST}
BUILD_DIR=build
PIPEC=$BUILD_DIR/compiler/pipec
BUNDLE_DIR=$BUILD_DIR/examples/mnist
STORE=$BUNDLE_DIR/store

section() { printf '\n== %s\n' "$*"; }
# show CMD...: print the command, then run it.
show() {
    printf '$ %s\n' "$*"
    "$@"
}
die() { printf 'demo.sh: error: %s\n' "$*" >&2; exit 1; }

install_deps() {
    section "Install missing dependencies"
    bash scripts/install-deps.sh --build-only
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

# check_example FILE: every error and warning, as errors.
check_example() {
    section "Check $1: names, types, decorators, resources, images"
    show "$PIPEC" check -Werror "$1"
    echo "pipec check: ok (exit 0)"
}

graph_example() {
    section "The pipeline's graph: invocations and the artifacts between them"
    show "$PIPEC" graph "$1"
}

build_bundle() {
    section "Compile $MNIST into a bundle in $BUNDLE_DIR/, build it with CMake"
    local -a gen=()
    command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
    show "$PIPEC" build "$MNIST" -o "$BUNDLE_DIR" --target local
    show cmake -S "$BUNDLE_DIR" -B "$BUNDLE_DIR/build" --log-level=WARNING ${gen[@]+"${gen[@]}"} \
        -DCMAKE_BUILD_TYPE=Release
    show cmake --build "$BUNDLE_DIR/build" -j "$(nproc 2>/dev/null || echo 2)"
    [ -x "$BUNDLE_DIR/build/mnist" ] || die "the build finished but $BUNDLE_DIR/build/mnist is missing"
}

# The accuracy evaluate recorded (metrics.csv: name,step,value,time_s) in the
# one run of the fresh store.
accuracy() {
    local csv
    csv=$(find "$STORE" -path '*/evaluate/metrics.csv' -print -quit)
    [ -n "$csv" ] && awk -F, '$1 == "accuracy" { v = $3 } END { if (v != "") printf "%.4f", v }' "$csv"
}

run_bundle() {
    section "Run it here: make_data, train, evaluate (a fresh store in $STORE/)"
    rm -rf "$STORE"
    show "$BUNDLE_DIR/build/mnist" run --store "$STORE" || die "the pipeline run failed"
    ACCURACY=$(accuracy) || true
    [ -n "$ACCURACY" ] || die "the run did not record an accuracy"

    section "The report: what ran, how long, with which parameters, how the loss fell"
    show "$BUNDLE_DIR/build/mnist" report --store "$STORE" || die "the report could not be written"
    REPORT=$(find "$STORE" -mindepth 2 -maxdepth 2 -name report.html -print -quit)
    echo "Open it in a browser: file://$(cd "$(dirname "$REPORT")" && pwd)/report.html"

    section "Run it again: every step is cached"
    show "$BUNDLE_DIR/build/mnist" run --store "$STORE" || die "the second run failed"
    echo "Try: $BUNDLE_DIR/build/mnist run --store $STORE --param epochs=3"
}

main() {
    [ -f "$EXAMPLE" ] || die "no such example: $EXAMPLE"
    install_deps
    build_pipec
    check_example "$MNIST"
    graph_example "$MNIST"
    if [ "$EXAMPLE" != "$MNIST" ]; then
        check_example "$EXAMPLE"
        graph_example "$EXAMPLE"
    fi
    build_bundle
    run_bundle
    printf '\ndemo.sh: done: the MNIST-like model reached a test accuracy of %s\n' "$ACCURACY"
}

main "$@"
