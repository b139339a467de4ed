#!/usr/bin/env bash
# Logs are bounded (the flood pipeline, scripts/flood.py; docs/runtime.md,
# "Logs"):
#   1. a step that prints 8 times PIPE_LOG_MAX_SIZE leaves a log of at most
#      the bound and a marker line: its first lines, the line that says what
#      was cut (which lines, how much), its last lines; the failure's
#      "last lines of its output" still come from the end of the output;
#   2. `logs` prints a 150 MB log whole in a few MB of memory (before, it
#      read the whole file: its peak was the log's size);
#   3. `logs RUN INV --follow` prints a running step's lines as they come
#      and ends, status 0, once the step has ended, with its last line;
#      SIGINT ends it with status 130 and nothing on stderr.
set -u
work=$1
# shellcheck source=tests/reliability/lib.sh
. "$(dirname "$0")/lib.sh"
dir="$work/logs"
store="$dir/store"
rm -rf "$dir"
mkdir -p "$dir"
exe="$work/build/flood/flood"

# 1. A flood of 8 MiB under a bound of 1 MiB.
PIPE_LOG_MAX_SIZE=1MiB "$exe" run --store "$store" --run-id L1 --param bytes=8388608 >"$dir/L1.out" 2>&1
check "[ $? = 0 ]" "a flood under the bound succeeds"
log="$store/L1/flood_writer/log"
size=$(stat -c %s "$log")
check "[ $size -le $((1048576 + 200)) ]" "the log is at most the bound and a marker ($size bytes)"
check "[ $size -ge $((1048576 - 20000)) ]" "the log keeps nearly the bound ($size bytes)"
check "grep -q '^\[rank 0\] line 1 x' '$log'" "the log keeps the first lines"
check "tail -2 '$log' | grep -q '\[rank 0\] flood done: '" "the log keeps the last lines"
marker=$(grep -n '^\[pipe: .* of output cut here (lines [0-9]*-[0-9]*); the log keeps the first .* and the last .*\]$' "$log")
check "[ \$(printf '%s\n' '$marker' | grep -c .) = 1 ]" "one line says what was cut ($marker)"
# Line numbers: the log's line N is the step's line N-1 (the first is the
# supervisor's); the marker names the log's lines it replaces.
at=${marker%%:*}
range=$(printf '%s' "$marker" | sed -n 's/.*(lines \([0-9]*\)-\([0-9]*\)).*/\1 \2/p')
read -r from to <<<"$range"
before=$(sed -n "$((at - 1))p" "$log" | awk '{print $4}')
after=$(sed -n "$((at + 1))p" "$log" | awk '{print $4}')
check "[ '$from' = '$at' ] && [ '$before' = $((from - 2)) ] && [ '$after' = '$to' ]" \
    "the marker names the lines cut (marker at $at: $from-$to; around it $before and $after)"
check "[ -z \"\$(find '$store/L1' -name '.*tail*')\" ]" "the ring file is gone"
PIPE_LOG_MAX_SIZE=1MiB "$exe" run --store "$store" --run-id L2 --param bytes=8388608 --param code=3 >"$dir/L2.out" 2>&1
check "[ $? = 1 ]" "a failed flood fails the run"
check "grep -q 'flood done: ' '$store/L2/flood_writer/step.yaml'" "the failure shows the last lines of the output"
check "[ \$(stat -c %s '$store/L2/flood_writer/log') -le $((1048576 + 200)) ]" "a failed step's log is bounded too"
"$exe" step flood_writer --store "$store" --run-id L3 --param bytes=1000 >"$dir/L3.out" 2>&1 &&
    PIPE_LOG_MAX_SIZE=lots "$exe" step flood_writer --store "$store" --run-id L4 >"$dir/L4.out" 2>&1
check "[ $? = 1 ] && grep -q 'PIPE_LOG_MAX_SIZE: .lots. is not a size' '$dir/L4.out'" "a bound that is not a size is refused"

# 2. `logs` on a 150 MB log: its peak memory (ru_maxrss of the child, KiB).
python3 - "$log" <<'PY'
import sys
line = b"[rank 0] " + b"y" * 90 + b"\n"
with open(sys.argv[1], "wb") as f:
    block = line * 10000
    for _ in range(150):
        f.write(block)
PY
big=$(stat -c %s "$log")
peak() { # peak KiB of: $exe logs ARGS >$dir/big.out
    python3 - "$dir/big.out" "$@" <<'PY'
import resource, subprocess, sys
with open(sys.argv[1], "wb") as out:
    rc = subprocess.run(sys.argv[2:], stdout=out).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
read -r rc kib < <(peak "$exe" logs L1 flood_writer --store "$store")
check "[ $rc = 0 ] && [ \$(stat -c %s '$dir/big.out') = $big ]" "logs prints the whole $big-byte log (status $rc)"
check "[ $kib -lt 65536 ]" "logs prints it in bounded memory (peak $kib KiB for $big bytes)"
read -r rc kib < <(peak "$exe" logs L1 flood_writer --rank 0 --store "$store")
check "[ $rc = 0 ] && [ \$(stat -c %s '$dir/big.out') = $big ] && [ $kib -lt 65536 ]" \
    "logs --rank 0 too (status $rc, peak $kib KiB)"
rm -f "$dir/big.out" "$log"

# 3. --follow: 40 lines, 100 ms apart.
"$exe" run --store "$store" --run-id F1 --param bytes=4000 --param sleep_ms=100 >"$dir/F1.out" 2>&1 &
runner=$!
wait_for "$store/F1/flood_writer/log" 200
"$exe" logs F1 flood_writer --follow --store "$store" >"$dir/follow.out" 2>"$dir/follow.err" &
follower=$!
sleep 1.5
check "grep -q '\[rank 0\] line 2 ' '$dir/follow.out' && ! grep -q 'flood done' '$dir/follow.out'" \
    "--follow prints the lines as they come"
check "kill -0 $follower 2>/dev/null" "--follow waits while the step runs"
for _ in $(seq 300); do kill -0 "$follower" 2>/dev/null || break; sleep 0.1; done
wait "$follower"
status=$?
wait "$runner"
check "[ $status = 0 ]" "--follow ends with status 0 when the step ends (status $status)"
check "grep -q 'flood done: 40 lines' '$dir/follow.out' && tail -1 '$dir/follow.out' | grep -q '\[pipe\] done in'" \
    "--follow prints the step's output to its end"
check "cmp -s '$dir/follow.out' '$store/F1/flood_writer/log'" "--follow printed the log as it is"
"$exe" run --store "$store" --run-id F2 --param bytes=4000 --param sleep_ms=100 >"$dir/F2.out" 2>&1 &
runner=$!
wait_for "$store/F2/flood_writer/log" 200
"$exe" logs F2 flood_writer -f --store "$store" >"$dir/follow2.out" 2>"$dir/follow2.err" &
follower=$!
sleep 0.5
kill -INT "$follower"
wait "$follower"
status=$?
check "[ $status = 130 ] && [ ! -s '$dir/follow2.err' ]" "SIGINT ends --follow quietly (status $status)"
wait "$runner"
"$exe" logs F2 --follow --store "$store" >"$dir/follow3.out" 2>&1
check "[ $? = 2 ] && grep -q 'follows one invocation' '$dir/follow3.out'" "--follow without an invocation says why"

if [ "$failed" != 0 ]; then
    for f in "$dir"/*.out "$dir"/*.err; do sed "s/^/    $(basename "$f") | /" "$f" | tail -4 | cut -c1-200; done
fi
finish
