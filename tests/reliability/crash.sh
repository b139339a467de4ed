#!/usr/bin/env bash
# The crash test: the crash pipeline (a slow writer, a 2-rank reader, a
# check) run again and again, with SIGKILL to a random process of its tree
# (the runner, a supervisor, a rank) at a random moment; then a re-run on
# the same store. After each round:
#   - no partial artifact is recorded as done: every output of every
#     step.yaml that says done or cached exists, has its recorded SHA-256
#     and ends with its trailer;
#   - the re-run succeeds (it reuses what was recorded: verify would fail
#     on a partial input);
#   - nothing is left behind: no temporary outputs, no scratch folders, no
#     lock records, no process of the tree.
# Bounded in time: rounds until CRASH_SECONDS (default 50) have passed.
set -u
work=$1
# shellcheck source=tests/reliability/lib.sh
. "$(dirname "$0")/lib.sh"
exe="$work/build/crash/crash"
dir="$work/crash"
store="$dir/store"
rm -rf "$dir"
mkdir -p "$dir/tmp"
export TMPDIR="$dir/tmp"
export PIPE_KILL_GRACE_MS=500
budget_ms=$((${CRASH_SECONDS:-50} * 1000))
RANDOM=$(($$ % 32768))

# Every done or cached record's outputs: whole and as recorded.
check_records() {
    python3 - "$store" <<'PY'
import hashlib, os, re, sys
store, bad = sys.argv[1], 0
for run in sorted(os.listdir(store)):
    rdir = os.path.join(store, run)
    if not os.path.isdir(rdir) or run == "cache":
        continue
    for inv in sorted(os.listdir(rdir)):
        rec = os.path.join(rdir, inv, "step.yaml")
        if not os.path.isfile(rec):
            continue
        text = open(rec).read()
        status = re.search(r"^status: (\w+)", text, re.M).group(1)
        if status not in ("done", "cached"):
            continue
        block = re.search(r"^outputs:\n((?:  .*\n)*)", text, re.M)
        for name, path, digest in re.findall(r"^  (\w+): \{path: (.*), sha256: (\w+)\}", block.group(1) if block else "", re.M):
            data = open(path, "rb").read() if os.path.isfile(path) else None
            if data is None or hashlib.sha256(data).hexdigest() != digest or not re.search(rb"END \d+\n$", data):
                print(f"{run}/{inv}: output {name} is recorded {status} but is missing, changed or cut short")
                bad += 1
sys.exit(1 if bad else 0)
PY
}
leftovers() {
    find "$store" -name '.*.tmp.*' -o -name '*.tmp.[0-9]*' 2>/dev/null
    find "$TMPDIR" -mindepth 1 -maxdepth 1 2>/dev/null
    find "$store" -name '*.lock*' -size +0 2>/dev/null
}

start=$(now_ms)
round=0
kills=0
while [ $(($(now_ms) - start)) -lt "$budget_ms" ]; do
    round=$((round + 1))
    # A fresh pipeline each round (chunks differ): nothing cached to begin with.
    chunks=$((30 + RANDOM % 40))
    "$exe" run --store "$store" --run-id "C$round" --param "chunks=$chunks" --param chunk_ms=6 \
        >"$dir/C$round.out" 2>&1 &
    runner=$!
    sleep "0.$((RANDOM % 8))$((RANDOM % 10))"
    # The tree held still while it is listed: a process started between the
    # listing and the kill would not be waited for below.
    mapfile -t tree < <(freeze_tree "$runner")
    victim=${tree[$((RANDOM % ${#tree[@]}))]}
    what=$(tr '\0' ' ' <"/proc/$victim/cmdline" 2>/dev/null | awk '{print $2, $3}')
    kill -9 "$victim" 2>/dev/null && kills=$((kills + 1))
    kill -CONT "${tree[@]}" 2>/dev/null
    # The rest of the tree ends by itself (the runner waits for its steps;
    # the children of a dead parent are told by the kernel).
    for _ in $(seq 300); do
        alive=0
        for p in "${tree[@]}"; do kill -0 "$p" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] && alive=1; done
        [ $alive = 0 ] && break
        sleep 0.1
    done
    wait "$runner" 2>/dev/null
    check "[ $alive = 0 ]" "round $round: the tree ended after the kill of $what"
    check "check_records" "round $round: no partial artifact is recorded as done"
    "$exe" run --store "$store" --run-id "R$round" --param "chunks=$chunks" --param chunk_ms=1 \
        >"$dir/R$round.out" 2>&1
    status=$?
    check "[ $status = 0 ]" "round $round: the re-run succeeds (status $status)"
    [ $status = 0 ] || sed 's/^/    | /' "$dir/R$round.out"
    check "check_records" "round $round: after the re-run, every recorded artifact is whole"
    left=$(leftovers)
    check "[ -z \"\$left\" ]" "round $round: nothing left behind after the kill of $what: $left"
done
echo "$round rounds in $((($(now_ms) - start) / 1000)) s, $kills of them killed a process of the tree"
check "[ $round -ge 5 ] && [ $kills -ge 3 ]" "enough rounds ($round) and kills ($kills)"
finish
