#!/usr/bin/env bash
# The group commit (docs/reliability.md, "Group commit"): under `run`, the
# supervisors write without fsync and the runner makes their writes durable
# together; STORE/RUN/unsynced lists the invocations a commit covered. A
# crash between a write and the next commit point is shown by killing the
# whole tree after `writer` recorded done, then doing to its output what a
# power cut may do to bytes that were never synced (they read as zeros,
# the file keeps its size and time); then:
#   1. the list is there and does not name `writer`;
#   2. `step ranked` in the crashed run reads its input again: its record
#      holds the digest of the bytes it read, not the one writer recorded;
#   2b. so does a cache look-up (`step writer` in a new run);
#   3. a re-run's sweep reads writer's output again, finds it does not
#      match, takes the record back (the invocation did not finish) and
#      removes the list; the run succeeds with writer's bytes;
#   1b. the runner lent its supervisors room for their records
#      (RUN/.reserve.steps): ranked made no .reserve of its own, and the
#      re-run's sweep (3) removes the killed runner's file;
#   4. a run that ends leaves no list; with a commit point after each
#      invocation (PIPE_COMMIT_INTERVAL_MS=0) a killed run's list names
#      what ended before the kill, and a re-run reuses it.
# Without the verification (the list taken as naming everything), 2 and 3
# fail: the size and time still match.
set -u
work=$1
# shellcheck source=tests/reliability/lib.sh
. "$(dirname "$0")/lib.sh"
exe="$work/build/crash/crash"
dir="$work/group_commit"
store="$dir/store"
rm -rf "$dir"
mkdir -p "$dir/tmp"
export TMPDIR="$dir/tmp"
export PIPE_KILL_GRACE_MS=500

# Runs the crash pipeline as run $1 (interval $2 ms, $3 chunks), and kills
# its whole tree at once when writer has recorded done while ranked runs.
run_and_kill() {
    PIPE_COMMIT_INTERVAL_MS=$2 "$exe" run --store "$store" --run-id "$1" --param "chunks=$3" --param chunk_ms=50 \
        >"$dir/$1.out" 2>&1 &
    local runner=$!
    for _ in $(seq 300); do
        grep -qs '^status: done' "$store/$1/writer/step.yaml" && [ -d "$store/$1/ranked" ] && break
        sleep 0.05
    done
    mapfile -t tree < <(freeze_tree "$runner")
    kill -9 "${tree[@]}" 2>/dev/null
    kill -CONT "${tree[@]}" 2>/dev/null
    wait "$runner" 2>/dev/null
    for _ in $(seq 100); do
        all_gone=1
        for p in "${tree[@]}"; do kill -0 "$p" 2>/dev/null && all_gone=0; done
        [ $all_gone = 1 ] && break
        sleep 0.1
    done
}

# What a power cut may leave of bytes never synced: zeros, the same size,
# the same modification time.
zero_keeping_stamp() {
    python3 - "$1" <<'PY'
import os, stat, sys
path = sys.argv[1]
st = os.stat(path)
os.chmod(path, st.st_mode | stat.S_IWUSR)
with open(path, "r+b") as f:
    f.write(b"\0" * st.st_size)
os.chmod(path, stat.S_IMODE(st.st_mode))
os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
PY
}
sha() { sha256sum "$1" | awk '{print $1}'; }

# 1: killed after writer's record, before any commit point.
run_and_kill K1 600000 40
check "grep -qs '^status: done' '$store/K1/writer/step.yaml'" "1: writer recorded done before the kill"
check "[ -f '$store/K1/unsynced' ]" "1: the killed run keeps its list"
check "! grep -q '^durable: writer$' '$store/K1/unsynced'" "1: the list does not name writer: $(cat "$store/K1/unsynced" 2>/dev/null)"
data="$store/K1/writer/outputs/data"
recorded=$(sed -n 's/^  data: {path: .*, sha256: \([0-9a-f]*\)[,}].*/\1/p' "$store/K1/writer/step.yaml")
zero_keeping_stamp "$data"
zeros=$(sha "$data")
check "[ -n '$recorded' ] && [ '$recorded' != '$zeros' ]" "1: the output's bytes are gone ($recorded, $zeros)"
check "[ -f '$store/K1/.reserve.steps' ] && [ ! -e '$store/K1/ranked/.reserve' ]" \
    "1b: ranked's room was lent by the runner, no file of its own: $(find "$store/K1" -maxdepth 2 -name '.reserve*' | tr '\n' ' ')"

# 2: a consumer outside the run reads the input again.
"$exe" step ranked --run-id K1 --store "$store" >"$dir/step.out" 2>&1
used=$(sed -n '/^inputs:/,/^[a-z]/s/^  data: {path: .*, sha256: \([0-9a-f]*\)[,}].*/\1/p' "$store/K1/ranked/step.yaml")
check "[ '$used' = '$zeros' ]" "2: ranked recorded the digest of what it read ($zeros), not writer's ($used)"

# 2b: nor does the cache, before any sweep (`step` alone sweeps no other run).
"$exe" step writer --run-id S1 --store "$store" --param chunks=40 --param chunk_ms=50 >"$dir/S1.out" 2>&1
check "grep -q 'cache miss: output \`data\` of K1/writer changed since it was recorded' '$store/S1/writer/log'" \
    "2b: the cache reads writer's output again: $(grep -m1 'cache' "$store/S1/writer/log")"
check "grep -q '^status: done' '$store/S1/writer/step.yaml'" "2b: writer ran again"

# 3: the cache does not trust writer's record.
"$exe" run --store "$store" --run-id R1 --param chunks=40 --param chunk_ms=50 >"$dir/R1.out" 2>&1
status=$?
check "[ $status = 0 ]" "3: the re-run succeeds (status $status)"
[ $status = 0 ] || sed 's/^/    | /' "$dir/R1.out"
check "! grep -q 'K1/writer' '$store/R1/writer/step.yaml'" "3: writer's record in K1 is not reused"
check "grep -q 'run K1: 1 record written before a crash named outputs that did not survive it' '$dir/R1.out'" \
    "3: the re-run's sweep says what it took back"
check "[ ! -e '$store/K1/writer/step.yaml' ] && [ ! -e '$store/K1/writer/outputs' ]" "3: writer's record in K1 is taken back"
check "[ ! -e '$store/K1/unsynced' ]" "3: once verified, K1 has no list"
check "[ ! -e '$store/K1/.reserve.steps' ]" "3: the sweep removes the room the killed runner kept"
check "grep -q '^status: done' '$store/K1/ranked/step.yaml' || grep -q '^status: failed' '$store/K1/ranked/step.yaml'" \
    "3: the record \`step\` made durably stays"
check "[ \"\$(sha '$store/R1/writer/outputs/data')\" = '$recorded' ]" "3: the new output has writer's bytes"

# 4: a finished run leaves no list; a commit point after each invocation.
check "[ ! -e '$store/R1/unsynced' ]" "4: a finished run has no list"
run_and_kill K2 0 41
check "grep -q '^durable: writer$' '$store/K2/unsynced'" "4: a commit point named writer: $(cat "$store/K2/unsynced" 2>/dev/null)"
"$exe" run --store "$store" --run-id R2 --param chunks=41 --param chunk_ms=50 >"$dir/R2.out" 2>&1
status=$?
check "[ $status = 0 ] && grep -q '^status: cached' '$store/R2/writer/step.yaml'" "4: the re-run reuses the durable record (status $status)"
check "[ -z \"\$(find '$store' -name '*.tmp.*')\" ]" "4: no temporary file is left: $(find "$store" -name '*.tmp.*')"
check "[ -z \"\$(find '$store' -name '.reserve*')\" ]" "4: no room is left kept: $(find "$store" -name '.reserve*')"
finish
