#!/usr/bin/env bash
# Bounded inputs and waiting for resources:
#   - `run --config /dev/zero` and a 5 MiB config file are refused at once
#     with a clear error (a config file is at most 4 MiB);
#   - a parameter value of 100 KiB is refused (at most 64 KiB), one of
#     60 KiB is accepted, and a 50 MB one in a config file is refused;
#   - under `ulimit -n 30`, 32 invocations ready at once all succeed: they
#     wait for descriptors instead of failing with "Too many open files"
#     (before, 10 of the 32 failed so).
set -u
work=$1
# shellcheck source=tests/reliability/lib.sh
. "$(dirname "$0")/lib.sh"
dir="$work/limits"
store="$dir/store"
rm -rf "$dir"
mkdir -p "$dir"
faults="$work/build/faults/faults"
wide="$work/build/wide/wide"

# --config /dev/zero: bounded in time and memory (ulimit -v: 1 GiB).
start=$(now_ms)
( ulimit -v 1048576; timeout 20 "$wide" run --store "$store" --config /dev/zero ) >"$dir/zero.out" 2>&1
status=$?
elapsed=$(($(now_ms) - start))
check "[ $status = 2 ]" "--config /dev/zero: usage error (status $status)"
check "[ $elapsed -lt 5000 ]" "--config /dev/zero: refused at once ($elapsed ms)"
check "grep -q 'larger than 4194304 bytes (a configuration file is at most 4 MiB)' '$dir/zero.out'" \
    "--config /dev/zero: says why"
head -c $((5 << 20)) /dev/zero | tr '\0' '#' >"$dir/huge.yaml"
"$wide" run --store "$store" --config "$dir/huge.yaml" >"$dir/huge.out" 2>&1
check "[ $? = 2 ] && grep -q 'huge.yaml is larger than' '$dir/huge.out'" "a 5 MiB config file is refused"

# Parameter values: 64 KiB at most.
big=$(head -c 102400 /dev/zero | tr '\0' 'x')
"$faults" step hang --run-id P1 --store "$store" --param "mode=$big" >"$dir/p1.out" 2>&1
check "[ $? = 2 ] && grep -q 'parameter .mode.: the value is 102400 bytes, above the limit of 65536 bytes' '$dir/p1.out'" \
    "a 100 KiB parameter is refused"
check "[ ! -e '$store/P1' ]" "a refused parameter creates no run"
ok_value=$(head -c 61440 /dev/zero | tr '\0' 'x')
"$faults" step hang --run-id P2 --store "$store" --param "mode=$ok_value" >"$dir/p2.out" 2>&1
check "[ $? = 0 ]" "a 60 KiB parameter is accepted"
python3 -c "print('params:'); print('  sleep_ms: 1' + ' ' * 0); print('  x: ' + 'y' * 50000000)" >"$dir/fifty.yaml"
"$wide" run --store "$store" --config "$dir/fifty.yaml" >"$dir/fifty.out" 2>&1
check "[ $? = 2 ] && grep -q 'fifty.yaml is larger than' '$dir/fifty.out'" "a 50 MB parameter in a config file is refused"

# Out of descriptors: wait, do not fail.
(
    ulimit -n 30
    PIPE_LOCAL_CPUS=64 exec "$wide" run --store "$store" --run-id W1 --param sleep_ms=300
) >"$dir/wide.out" 2>&1
status=$?
check "[ $status = 0 ]" "under ulimit -n 30, the 32 invocations succeed (status $status)"
done=$(grep -c 'status: done' "$store"/W1/*/step.yaml 2>/dev/null | awk -F: '{s += $2} END {print s + 0}')
check "[ $done = 32 ]" "all 32 are done ($done)"
check "! grep -q 'Too many open files' '$dir/wide.out'" "nothing failed for want of descriptors"
if [ "$failed" != 0 ]; then
    for f in "$dir"/*.out; do sed "s/^/    $(basename "$f") | /" "$f" | tail -8; done
fi
finish
