#!/usr/bin/env bash
# The distributed launcher end to end: build tests/launcher/launch.pipe into
# a bundle with pipec and CMake, then run its accelerated steps with `step`:
# worlds of 1-8 ranks and their environment, a rank that exits 3, a rank
# killed by SIGKILL, SIGTERM to the launcher, max_restarts, two machines on
# one host over loopback, a rendezvous that times out, mixed precision.
set -u
pipec=$1
src_dir=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

"$pipec" build "$src_dir/launch.pipe" -o "$work/bundle" --target local 2>/dev/null || { echo "pipec build failed"; exit 1; }
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
{ cmake -S "$work/bundle" -B "$work/bundle/build" "${generator[@]}" -DPIPE_WITH_CUDA=OFF >/dev/null &&
    cmake --build "$work/bundle/build" >/dev/null; } || { echo "bundle build failed"; exit 1; }
exe="$work/bundle/build/launch"
store="$work/store"
unset MASTER_PORT # single-machine steps get free ports by default: tests may run side by side
export PIPE_KILL_GRACE_MS=1000

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
field() { sed -n "s/^$2: //p" "$store/$1/step.yaml" | head -1; }
# entries DIR: how many entries DIR holds, hidden ones left out (as `ls DIR | wc -l`)
entries() { find "$1" -mindepth 1 -maxdepth 1 -name '[!.]*' | wc -l; }
all_dead() { # every pid written under $1 is gone
    local f
    for f in "$1"/*-pid-*; do
        [ -e "$f" ] || continue
        kill -0 "$(cat "$f")" 2>/dev/null && return 1
    done
    return 0
}

# 1. Worlds of 1 to 8 ranks: collectives and the environment contract.
for n in 1 2 3 4 8; do
    run="W$n"
    "$exe" step "ranks_$n" --run-id "$run" --store "$store" >"$work/$run.out" 2>&1
    check "[ $? = 0 ]" "ranks_$n exits 0"
    check "grep -q 'world=$n sum=$((n * (n + 1) / 2))' '$store/$run/ranks_$n/outputs/out'" "ranks_$n output"
    log="$store/$run/ranks_$n/log"
    for r in $(seq 0 $((n - 1))); do
        check "grep -q '\[rank $r\] env RANK=$r LOCAL_RANK=$r WORLD_SIZE=$n LOCAL_WORLD_SIZE=$n MASTER_ADDR=127.0.0.1 MASTER_PORT=[0-9]' '$log'" \
            "ranks_$n: rank $r environment"
        check "grep -q '\[rank $r\] sum=' '$log'" "ranks_$n: rank $r collectives"
    done
done
# OMP_NUM_THREADS as torchrun sets it: unset for one rank, 1 for several
# without a CPU count, the CPUs per local rank (at least 1) with one; the
# user's (the step's environment map, the caller's environment) stands.
check "grep -q 'OMP_NUM_THREADS=(unset)' '$store/W1/ranks_1/log'" "OMP_NUM_THREADS: unset for one rank"
check "[ \$(grep -c 'OMP_NUM_THREADS=1\$' '$store/W2/ranks_2/log') = 2 ]" "OMP_NUM_THREADS: 1 for 2 ranks without cpu"
check "[ \$(grep -c 'OMP_NUM_THREADS=3\$' '$store/W3/ranks_3/log') = 3 ]" "OMP_NUM_THREADS: the step's environment map stands"
check "grep -q 'OMP_NUM_THREADS=1' '$store/W4/ranks_4/log'" "OMP_NUM_THREADS from cpu / local ranks"
check "[ \$(grep -c 'OMP_NUM_THREADS=2\$' '$store/W8/ranks_8/log') = 8 ]" "OMP_NUM_THREADS: 16 CPUs / 8 ranks"
OMP_NUM_THREADS=5 "$exe" step ranks_2 --run-id W2u --store "$store" --no-cache >"$work/W2u.out" 2>&1
check "[ $? = 0 ] && [ \$(grep -c 'OMP_NUM_THREADS=5\$' '$store/W2u/ranks_2/log') = 2 ]" "OMP_NUM_THREADS: the caller's stands"
# One machine, no port given: two free ports, MASTER_PORT for the framework and another for pipe.
ports=$(sed -n 's/.*\[rank 0\] ports MASTER_PORT=\([0-9]*\) PIPE_RDZV_PORT=\([0-9]*\).*/\1 \2/p' "$store/W2/ranks_2/log")
check "[ -n '$ports' ] && [ \$(echo $ports | tr ' ' '\n' | sort -u | wc -l) = 2 ]" "free ports: MASTER_PORT and PIPE_RDZV_PORT differ ($ports)"

# 2. A rank exits 3: the step fails quickly, naming the rank; nothing survives.
mkdir -p "$work/m2"
start=$(date +%s%N)
"$exe" step ranks_4 --run-id F1 --store "$store" --param mode=exit3 --param "marker=$work/m2" >"$work/F1.out" 2>&1
status=$?
elapsed=$((($(date +%s%N) - start) / 1000000))
check "[ $status = 1 ]" "exit3: status 1 (got $status)"
check "[ $elapsed -lt 5000 ]" "exit3: failed within 5 s (took $elapsed ms)"
check "grep -q 'rank 1 (machine 0, host' '$store/F1/ranks_4/step.yaml'" "exit3: the error names rank 1"
check "grep -q 'returned 3' '$store/F1/ranks_4/step.yaml'" "exit3: the error gives the status"
check "grep -q 'last lines of rank 1' '$store/F1/ranks_4/step.yaml'" "exit3: the error shows the rank's log"
sleep 0.2
check "all_dead '$work/m2'" "exit3: no rank left running"

# 3. A rank killed by SIGKILL.
mkdir -p "$work/m3"
start=$(date +%s%N)
"$exe" step ranks_3 --run-id F2 --store "$store" --param mode=sigkill --param "marker=$work/m3" >"$work/F2.out" 2>&1
status=$?
elapsed=$((($(date +%s%N) - start) / 1000000))
check "[ $status = 1 ]" "sigkill: status 1"
check "[ $elapsed -lt 5000 ]" "sigkill: failed within 5 s (took $elapsed ms)"
check "grep -q 'rank 2 (machine 0' '$store/F2/ranks_3/step.yaml' && grep -q 'killed by SIGKILL' '$store/F2/ranks_3/step.yaml'" \
    "sigkill: the error names rank 2 and the signal"
sleep 0.2
check "all_dead '$work/m3'" "sigkill: no rank left running"

# 3b. A NULL pointer dereferenced: the signal by name, the backtrace with
# the function's name (addr2line), and the `step` command that does it
# again, which works when pasted.
"$exe" step ranks_1 --run-id S1 --store "$store" --param mode=segv >"$work/S1.out" 2>&1
status=$?
check "[ $status = 1 ] && grep -q 'was killed by SIGSEGV (segmentation fault): backtrace, innermost call first' '$work/S1.out'" \
    "segv: the signal's name and meaning ($(head -2 "$work/S1.out" | tr '\n' ' '))"
check "grep -q '^    dereference_null (ranks.c' '$work/S1.out' && grep -q '^    body (ranks.c' '$work/S1.out' &&
    grep -q 'dereference_null' '$store/S1/ranks_1/step.yaml' && ! grep -q 'pipe_worker_run' '$work/S1.out'" \
    "segv: the backtrace names the functions of the step, not the runtime's"
# shellcheck disable=SC2016 # the backquotes are the message's, not the shell's
again=$(sed -n 's/^reproduce: `\(.*\)`$/\1/p' "$work/S1.out")
check "[ \"\$again\" = \"$exe step ranks_1 --run-id S1 --store $store --param mode=segv --param marker= --param seed=1\" ]" \
    "segv: the command that reproduces it ($again)"
sh -c "$again" >"$work/S1-again.out" 2>&1
check "[ $? = 1 ] && grep -q 'killed by SIGSEGV' '$work/S1-again.out'" "segv: the pasted command fails the same way"

# 4. SIGTERM to the launcher reaches every rank.
mkdir -p "$work/m4"
"$exe" step ranks_4 --run-id F3 --store "$store" --param mode=hang --param "marker=$work/m4" >"$work/F3.out" 2>&1 &
launcher=$!
for _ in $(seq 100); do [ "$(entries "$work/m4")" -ge 4 ] && break; sleep 0.05; done
check "[ \$(entries '$work/m4') = 4 ]" "hang: four ranks started"
kill -TERM "$launcher"
wait "$launcher"
status=$?
check "[ $status != 0 ]" "SIGTERM: the launcher fails"
sleep 0.2
check "all_dead '$work/m4'" "SIGTERM: no rank left running"
check "grep -q 'interrupted by SIGTERM' '$store/F3/ranks_4/step.yaml'" "SIGTERM: recorded"

# 5. max_restarts: the group runs again after a failure.
mkdir -p "$work/m5"
"$exe" step flaky --run-id F4 --store "$store" --param mode=flaky --param "marker=$work/m5" >"$work/F4.out" 2>&1
check "[ $? = 0 ]" "restart: succeeds on the second group"
check "grep -q 'restarting the 2 ranks (restart 1 of 1)' '$store/F4/flaky/log'" "restart: logged"

# 6. Two machines on one host, over loopback: machine ranks 0 and 1.
port=$(free_port)
MASTER_PORT=$port "$exe" step machines --run-id M1 --store "$store" --machine-rank 1 --main-process-ip 127.0.0.1 \
    >"$work/M1-1.out" 2>&1 &
machine1=$!
MASTER_PORT=$port "$exe" step machines --run-id M1 --store "$store" --machine-rank 0 --main-process-ip 127.0.0.1 \
    >"$work/M1-0.out" 2>&1
status0=$?
wait "$machine1"
status1=$?
check "[ $status0 = 0 ] && [ $status1 = 0 ]" "two machines: both launchers succeed ($status0, $status1)"
check "grep -q 'world=4 sum=10' '$store/M1/machines/outputs/out'" "two machines: 4 ranks all-reduced"
check "grep -q '\[rank 3\] env RANK=3 LOCAL_RANK=1 WORLD_SIZE=4 LOCAL_WORLD_SIZE=2' '$store/M1/machines/log.machine-1'" \
    "two machines: machine 1 runs ranks 2 and 3"
# MASTER_PORT is left to the step's framework; pipe's rendezvous listens on the port above it.
check "grep -q '\[rank 3\] ports MASTER_PORT=$port PIPE_RDZV_PORT=$((port + 1))' '$store/M1/machines/log.machine-1'" \
    "two machines: PIPE_RDZV_PORT is MASTER_PORT + 1"

# 6b. Two machines as AWS Batch starts a multi-node parallel job's nodes: the
# rank from AWS_BATCH_JOB_NODE_INDEX; the main node is given no main address
# (it finds its own), the other node gets it (here loopback). --no-cache: M1
# ran the same step.
port=$(free_port)
(
    unset MASTER_ADDR PIPE_MACHINE_RANK
    export MASTER_PORT=$port AWS_BATCH_JOB_NUM_NODES=2
    AWS_BATCH_JOB_NODE_INDEX=1 AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS=127.0.0.1 \
        "$exe" step machines --run-id B1 --store "$store" --no-cache >"$work/B1-1.out" 2>&1 &
    node1=$!
    AWS_BATCH_JOB_NODE_INDEX=0 "$exe" step machines --run-id B1 --store "$store" --no-cache >"$work/B1-0.out" 2>&1
    status0=$?
    wait "$node1"
    echo "$status0 $?" >"$work/B1.status"
)
check "[ \"\$(cat '$work/B1.status')\" = '0 0' ]" "AWS Batch: both nodes succeed ($(cat "$work/B1.status"))"
check "grep -q 'world=4 sum=10' '$store/B1/machines/outputs/out'" "AWS Batch: 4 ranks all-reduced"
check "grep -q '\[rank 3\] env RANK=3 LOCAL_RANK=1 WORLD_SIZE=4 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 ' '$store/B1/machines/log.machine-1'" \
    "AWS Batch: node 1 runs ranks 2 and 3, main address from the variable"
check "grep -q '\[rank 0\] env RANK=0 .*MASTER_ADDR=[0-9.]* ' '$store/B1/machines/log'" \
    "AWS Batch: the main node gives its ranks an address of its own"

# 7. The rendezvous times out, naming the missing ranks and the address.
port=$(free_port)
start=$(date +%s%N)
MASTER_PORT=$port "$exe" step machines --run-id T1 --store "$store" --machine-rank 0 --no-cache >"$work/T1.out" 2>&1
status=$?
elapsed=$((($(date +%s%N) - start) / 1000000))
check "[ $status = 1 ]" "rendezvous timeout: status 1"
check "grep -q 'ranks 2, 3 of 4 never joined at 127.0.0.1:$((port + 1))' '$store/T1/machines/step.yaml'" \
    "rendezvous timeout: names ranks 2, 3 and 127.0.0.1:$((port + 1)) (pipe's rendezvous, above MASTER_PORT)"
check "[ $elapsed -lt 10000 ]" "rendezvous timeout: after about rdzv_timeout (took $elapsed ms)"

# 8. Mixed precision reaches every rank.
"$exe" step bf16 --run-id P1 --store "$store" >"$work/P1.out" 2>&1
check "[ $? = 0 ]" "bf16: succeeds"
check "grep -q 'precision=bf16' '$store/P1/bf16/outputs/out' && grep -q 'PIPE_MIXED_PRECISION=bf16' '$store/P1/bf16/log'" \
    "bf16: PIPE_MIXED_PRECISION"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
