#!/usr/bin/env bash
# The rendezvous under attack: a two-machine CPU step (two launchers on
# loopback) completes while 300 hostile connections trickle bytes into
# machine 0's rendezvous port (PIPE_RDZV_PORT, the port above MASTER_PORT:
# the magic, then a byte every 1.5 s), machine
# 0 running under `ulimit -n 400` and machine 1 joining late, into the
# crowd. Machine 0's launcher keeps a bounded number of threads and little
# CPU (read from /proc), and its log says what it turned away.
set -u
work=$1
# shellcheck source=tests/reliability/lib.sh
. "$(dirname "$0")/lib.sh"
exe="$work/build/faults/faults"
dir="$work/attack"
store="$dir/store"
marker="$dir/marker"
rm -rf "$dir"
mkdir -p "$marker"
export PIPE_KILL_GRACE_MS=1000
port=$(free_port)
rdzv_port=$((port + 1)) # pipe's rendezvous: the port above the framework's
args=(--run-id A1 --store "$store" --main-process-ip 127.0.0.1 --param seconds=6 --param "marker=$marker")

(
    ulimit -n 400
    MASTER_PORT=$port exec "$exe" step machines --machine-rank 0 "${args[@]}"
) >"$dir/m0.out" 2>&1 &
m0=$!
for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $rdzv_port), 0.2).close()" 2>/dev/null && break
    sleep 0.1
done
python3 "$(dirname "$0")/trickle.py" 30 300 1.5 "127.0.0.1:$rdzv_port" >"$dir/trickle.out" 2>&1 &
attacker=$!
sleep 2
MASTER_PORT=$port "$exe" step machines --machine-rank 1 "${args[@]}" >"$dir/m1.out" 2>&1 &
m1=$!

# Machine 0's launcher, from /proc while it lives: its threads, its CPU.
hz=$(getconf CLK_TCK)
max_threads=0
ticks=0
start=$(now_ms)
while [ -r "/proc/$m0/stat" ] && [ "$(awk '{print $3}' "/proc/$m0/stat" 2>/dev/null)" != Z ]; do
    t=$(awk '/^Threads:/ {print $2}' "/proc/$m0/status" 2>/dev/null || echo 0)
    [ "${t:-0}" -gt "$max_threads" ] && max_threads=$t
    c=$(awk '{print $14 + $15}' "/proc/$m0/stat" 2>/dev/null || echo "$ticks")
    ticks=${c:-$ticks}
    sleep 0.5
done
wall_ms=$(($(now_ms) - start))
wait "$m0"
status0=$?
wait "$m1"
status1=$?
kill "$attacker" 2>/dev/null
wait "$attacker" 2>/dev/null
cpu_ms=$((ticks * 1000 / hz))

check "[ $status0 = 0 ] && [ $status1 = 0 ]" "both launchers succeed under attack ($status0, $status1)"
check "grep -q '\[rank 0\] world=4 rounds=' '$store/A1/machines/log'" "machine 0's ranks all-reduced"
check "grep -q '\[rank 2\] world=4 rounds=' '$store/A1/machines/log.machine-1'" "machine 1 joined late and all-reduced"
check "[ $max_threads -ge 1 ] && [ $max_threads -le 3 ]" "machine 0's launcher kept a bounded number of threads (at most $max_threads)"
check "[ $((cpu_ms * 100)) -le $((wall_ms * 25)) ]" "machine 0's launcher used little CPU ($cpu_ms ms in $wall_ms ms)"
check "grep -q 'rendezvous: turned away [0-9]* connections' '$store/A1/machines/log'" "the refusals are in the step's log"
check "grep -q 'the server dropped [1-9]' '$dir/trickle.out'" "the trickling connections were dropped"
echo "machine 0: at most $max_threads threads, $cpu_ms ms of CPU in $wall_ms ms; $(cat "$dir/trickle.out")"
if [ "$failed" != 0 ]; then
    for f in "$dir"/m0.out "$dir"/m1.out "$store/A1/machines/log" "$store/A1/machines/log.machine-1"; do
        [ -f "$f" ] && sed "s/^/    $(basename "$f") | /" "$f" | tail -40
    done
fi
sleep 0.3
check "all_dead '$marker'" "no rank left running"
finish
