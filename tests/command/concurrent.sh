#!/usr/bin/env bash
# Two accelerated invocations of a torch.distributed program at the same
# time on one machine, no port given: each gets free ports, both succeed,
# and they did overlap. Given one port (MASTER_PORT), they take turns.
set -u
# shellcheck source=tests/command/lib.sh
. "$(dirname "$0")/lib.sh"
build_bundle "$src_dir/concurrent.pipe" concurrent -DPIPE_WITH_CUDA=OFF
store="$work/store"
export PIPE_LOCAL_CPUS=8 # room for both at once, whatever this machine has

# overlap RUN: "yes" when the invocations' process groups were up at the same time.
overlap() {
    local a="$store/$1/hold/outputs/out" b="$store/$1/hold_2/outputs/out"
    "$venv/bin/python" - "$a" "$b" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
print("yes" if a["start"] < b["end"] and b["start"] < a["end"] else "no", a["port"], b["port"])
PY
}

"$exe" run --run-id free --store "$store" --no-cache >"$work/free.out" 2>&1
check "[ $? = 0 ]" "free ports: both invocations succeed ($(tail -3 "$work/free.out" | tr '\n' ' '))"
read -r both port_a port_b <<<"$(overlap free)"
check "[ '$both' = yes ]" "free ports: the two ran at the same time"
check "[ '$port_a' != '$port_b' ]" "free ports: different MASTER_PORTs ($port_a, $port_b)"

port=$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])')
MASTER_PORT=$port "$exe" run --run-id fixed --store "$store" --no-cache >"$work/fixed.out" 2>&1
check "[ $? = 0 ]" "one port: both invocations succeed ($(tail -3 "$work/fixed.out" | tr '\n' ' '))"
read -r both port_a port_b <<<"$(overlap fixed)"
check "[ '$both' = no ]" "one port: they took turns"
check "[ '$port_a' = '$port' ] && [ '$port_b' = '$port' ]" "one port: MASTER_PORT from the environment wins ($port_a, $port_b)"

finish
