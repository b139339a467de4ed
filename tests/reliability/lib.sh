# shellcheck shell=bash
# Shared by the reliability tests: counters, checks, processes.
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() {
    failed=$((failed + 1))
    echo "FAIL: $*"
}
# check 'SHELL CONDITION' 'what it shows'
check() { if eval "$1"; then ok; else bad "$2"; fi; }
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ]
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# Every pid written under $1 (marker files *-pid-*) is gone.
all_dead() {
    local f
    for f in "$1"/*-pid-*; do
        [ -e "$f" ] || continue
        kill -0 "$(cat "$f")" 2>/dev/null && return 1
    done
    return 0
}
# The pids of $1's descendants, one a line, from one pass over /proc (no
# pgrep needed). A process that exits during the pass is skipped: awk would
# give up at the first stat file gone, and a comm with spaces would shift
# its fields, so the ppid is read after the last ')'.
descendants() {
    local f line pid fields
    local -A children=()
    for f in /proc/[0-9]*/stat; do
        { read -r line <"$f"; } 2>/dev/null || continue
        pid=${f#/proc/}
        pid=${pid%/stat}
        read -r -a fields <<<"${line##*) }"
        children[${fields[1]}]+=" $pid"
    done
    local -a todo=("$1")
    while [ ${#todo[@]} -gt 0 ]; do
        pid=${todo[0]}
        todo=("${todo[@]:1}")
        for f in ${children[$pid]:-}; do
            echo "$f"
            todo+=("$f")
        done
    done
}
# $1 and its descendants, stopped (SIGSTOP), one pid a line: passes over
# /proc until one finds no process it had not stopped, so that none starts
# unseen between the snapshot and what the caller does with it (a
# supervisor spawned during a pass would otherwise go unwatched). The
# caller sends SIGCONT to them all.
freeze_tree() {
    local -a seen=() now=()
    local p
    kill -STOP "$1" 2>/dev/null
    while :; do
        mapfile -t now < <(echo "$1"; descendants "$1")
        for p in "${now[@]}"; do kill -STOP "$p" 2>/dev/null; done
        [ "${#now[@]}" = "${#seen[@]}" ] && break
        seen=("${now[@]}")
    done
    printf '%s\n' "${now[@]}"
}
# A free port whose neighbour above is free too (MASTER_PORT and PIPE_RDZV_PORT).
free_port() {
    python3 - <<'PY'
import socket
for _ in range(100):
    a = socket.socket(); a.bind(("127.0.0.1", 0)); port = a.getsockname()[1]
    b = socket.socket()
    try:
        b.bind(("127.0.0.1", port + 1))
    except OSError:
        continue
    finally:
        a.close(); b.close()
    print(port)
    break
PY
}
# wait_for GLOB [TRIES]: until a file matches, every 50 ms (TRIES: 100, 5 s).
wait_for() {
    local _
    for _ in $(seq "${2:-100}"); do
        compgen -G "$1" >/dev/null && return 0
        sleep 0.05
    done
    return 1
}
# The pids a step's processes wrote into marker folder $1 as $2-pid-PID.
marked() {
    local f
    for f in "$1/$2"-pid-*; do
        [ -e "$f" ] && echo "${f##*-pid-}"
    done
}
field() { sed -n "s/^$2: //p" "$1" | head -1 | tr -d '"'; }
