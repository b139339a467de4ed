#!/usr/bin/env bash
# Per-step overhead of the local runtime: a pipeline of 101 no-op steps in a
# chain, run locally, against spawning /bin/true 101 times, in the same run.
#   bash bench/overhead.sh [N_STEPS] [PIPEC]
# The store is made under $TMPDIR: TMPDIR=/dev/shm (tmpfs) shows the time
# without the disk's fsyncs (docs/performance.md). Each run gets a store of
# its own, and the bundle is compiled with its temporary files on tmpfs:
# on an ext4 without a journal (this project's VMs) every file removed in
# the last minute or more slows each new file's creation (ext4 skips
# recently freed inodes), so the measurement must not follow its own
# deletions. KEEP=1 keeps the folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-101}
pipec=${2:-$root/build/compiler/pipec}
[ -x "$pipec" ] || { echo "build pipec first (cmake --build build)"; exit 2; }
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

mkdir -p "$work/src"
{
    echo "#include \"noop.h\""
    for i in $(seq 0 $((n - 1))); do
        if [ "$i" = 0 ]; then
            echo "int s$i(pipe_ctx *ctx, const noop_s${i}_args *a) { (void)a; FILE *f = pipe_output_open(ctx, \"out\"); return f ? 0 : 1; }"
        else
            echo "int s$i(pipe_ctx *ctx, const noop_s${i}_args *a) { (void)a->data; FILE *f = pipe_output_open(ctx, \"out\"); return f ? 0 : 1; }"
        fi
    done
} > "$work/src/noop.c"
{
    for i in $(seq 0 $((n - 1))); do
        if [ "$i" = 0 ]; then
            echo "step s$i() -> out: blob { source = \"src/noop.c\" }"
        else
            echo "step s$i(data: blob) -> out: blob { source = \"src/noop.c\" }"
        fi
    done
    echo "pipeline noop() {"
    echo "    a0 = s0()"
    for i in $(seq 1 $((n - 2))); do echo "    a$i = s$i(data = a$((i - 1)))"; done
    echo "    a$((n - 1)) = s$((n - 1))(data = a$((n - 2)))"
    echo "}"
} > "$work/noop.pipe"
# The last output is unused (W0404, a warning) by design.
"$pipec" build "$work/noop.pipe" -o "$work/bundle" --target local
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
shm=/dev/shm
[ -d "$shm" ] && [ -w "$shm" ] || shm=${TMPDIR:-/tmp}
TMPDIR=$shm cmake -S "$work/bundle" -B "$work/bundle/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
TMPDIR=$shm cmake --build "$work/bundle/build" >/dev/null
exe="$work/bundle/build/noop"

best() { python3 "$root/bench/best_of.py" -r "${RUNS:-3}" -- "$@"; }
t_true=$(best bash -c "for i in \$(seq $n); do /bin/true; done")
mkdir "$work/stores"
t_run=$(best sh -c "exec '$exe' run --no-cache --jobs 1 --store \"\$(mktemp -d -p '$work/stores')\"")
python3 - "$n" "$t_true" "$t_run" <<'PY'
import sys
n, t_true, t_run = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
print(f"{n} sequential no-op steps, best of runs")
print(f"  spawn /bin/true x{n} (baseline): {t_true:8.3f} s  = {t_true / n * 1e3:7.2f} ms per process")
print(f"  pipeline run --jobs 1          : {t_run:8.3f} s  = {t_run / n * 1e3:7.2f} ms per step")
print(f"  per-step overhead ratio        : {t_run / t_true:8.1f}x the cost of spawning /bin/true")
PY
