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
# The pids of $1's descendants, one a line (from /proc: no pgrep needed).
descendants() {
    local parent=$1 p
    # shellcheck disable=SC2013 # pids are words
    for p in $(awk -v pp="$parent" '$4 == pp { print $1 }' /proc/[0-9]*/stat 2>/dev/null); do
        echo "$p"
        descendants "$p"
    done
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
field() { sed -n "s/^$2: //p" "$1" | head -1 | tr -d '"'; }
