#!/usr/bin/env bash
# A full disk (docs/reliability.md, "Logs and a full disk"), on a real
# small file system: a tmpfs mounted in a mount namespace of this test's
# own (unshare -m as root, unshare -rm otherwise; a machine where neither
# works fails the test, it does not skip it):
#   1. a log flood fills a 20 MB store: the step fails naming the disk and
#      the file it could not write, step.yaml records it, the run exits 1
#      and `runs` says failed (before: no step.yaml, "cannot write
#      step.yaml", the log not named);
#   2. the same flood under PIPE_LOG_MAX_SIZE=4MiB fits and succeeds;
#   3. a store with 8 KB free at the start: the run fails at once naming
#      the disk, exit 1, and `runs` says failed, not interrupted (before:
#      `interrupted`).
set -u
work=$1
if [ "${PIPE_TEST_MOUNT_NS:-}" != 1 ]; then
    ns=(unshare -m)
    [ "$(id -u)" = 0 ] || ns=(unshare -rm)
    PIPE_TEST_MOUNT_NS=1 exec "${ns[@]}" bash "$0" "$@"
    echo "FAIL: cannot make a mount namespace (${ns[*]})"
    exit 1
fi
# shellcheck source=tests/reliability/lib.sh
. "$(dirname "$0")/lib.sh"
dir="$work/disk_full"
mnt="$dir/mnt"
store="$mnt/store"
exe="$work/build/flood/flood"
rm -rf "$dir"
mkdir -p "$mnt"
fresh() { # a tmpfs of $1 at $mnt, in place of the last one
    umount "$mnt" 2>/dev/null
    mount -t tmpfs -o "size=$1" tmpfs "$mnt" || { bad "cannot mount a tmpfs of $1 at $mnt"; finish; exit 1; }
}

# 1. 60 MB of output into a 20 MB store.
fresh 20m
"$exe" run --store "$store" --run-id D1 --param bytes=60000000 >"$dir/D1.out" 2>&1
status=$?
check "[ $status = 1 ]" "a flood that fills the disk fails the run (status $status)"
# shellcheck disable=SC2034 # read by check (eval)
why="no space left on device writing $store/D1/flood_writer/log (the store's disk, mounted at $mnt, is full)"
check "grep -qF \"step flood_writer: \$why\" '$store/D1/flood_writer/step.yaml'" "step.yaml names the disk and the log"
check "grep -q '^status: failed' '$store/D1/flood_writer/step.yaml'" "step.yaml says failed"
check "grep -qF \"\$why\" '$dir/D1.out'" "the run's output names the disk and the log"
check "grep -q '^status: failed' '$store/D1/run.yaml'" "run.yaml says failed"
"$exe" runs --store "$store" >"$dir/D1.runs" 2>&1
check "grep -q '^D1 .* failed ' '$dir/D1.runs'" "runs says failed"
check "[ -z \"\$(find '$store' -name '.reserve*' -o -name '.*.tail')\" ]" "no reserve or ring file is left"

# 2. The same flood, bounded: the disk holds it.
fresh 20m
PIPE_LOG_MAX_SIZE=4MiB "$exe" run --store "$store" --run-id D2 --param bytes=60000000 >"$dir/D2.out" 2>&1
check "[ $? = 0 ] && grep -q '^status: done' '$store/D2/flood_writer/step.yaml'" "a bounded flood fits and succeeds"

# 3. 8 KB free when the run starts.
fresh 1m
avail=$(df -B1 --output=avail "$mnt" | tail -1)
head -c $((avail - 8192)) /dev/zero >"$mnt/filler"
"$exe" run --store "$store" --run-id D3 --param bytes=1000 --param code=3 >"$dir/D3.out" 2>&1
status=$?
check "[ $status = 1 ]" "a run on a disk with 8 KB free fails (status $status)"
check "grep -qF \"no space left on device writing $store/D3/.reserve (the store's disk, mounted at $mnt, is full)\" '$dir/D3.out'" \
    "it names the disk"
"$exe" runs --store "$store" >"$dir/D3.runs" 2>&1
check "grep -q '^D3 .* failed ' '$dir/D3.runs' && ! grep -q interrupted '$dir/D3.runs'" "runs says failed, not interrupted"
umount "$mnt"

if [ "$failed" != 0 ]; then
    for f in "$dir"/*.out "$dir"/*.runs; do grep -v '^\[flood_writer\] \[rank' "$f" | sed "s/^/    $(basename "$f") | /" | tail -6 | cut -c1-300; done
fi
finish
