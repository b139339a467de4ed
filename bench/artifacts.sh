#!/usr/bin/env bash
# Artifacts at disk speed: a pipeline whose first step writes SIZE MiB
# through pipe_output_open (end to end through the store: write, digest,
# fsync, rename, record) and whose second step reads it back, against
# max(`openssl dgst -sha256` of the same bytes, `dd bs=1M count=SIZE
# conv=fsync`) plus a read of the file (`cat`), in the same run and the same
# folder: the store's hashing hidden behind the disk, or the disk behind
# hashing, is 1.0x. The old baseline (dd conv=fsync + cat) is printed too.
#   bash bench/artifacts.sh [SIZE_MIB] [PIPEC]        (RUNS=3 best of)
# WRITER=command: the first step is a command step running dd (a program
# that writes its output itself, which the runtime then reads once to hash);
# SYNC=0 drops dd's conv=fsync there (a program that leaves durability to
# the runtime, which fsyncs the output when it commits it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
size=${1:-1000}
pipec=${2:-$root/build/compiler/pipec}
[ -x "$pipec" ] || { echo "build pipec first (cmake --build build)"; exit 2; }
# Next to the repository by default (a real disk, not a tmpfs /tmp).
work=$(mktemp -d "${BENCH_TMP:-$root/build}/artifacts-bench.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

mkdir -p "$work/src"
cat > "$work/src/io.c" <<'C'
#include <stdlib.h>
#include <string.h>
#include "io.h"

enum { CHUNK = 1 << 20 };

int read_blob(pipe_ctx *ctx, const io_read_blob_args *a)
{
    FILE *f = fopen(a->data, "rb");
    char *buf = malloc(CHUNK);
    if (!f || !buf)
        return 1;
    size_t n, total = 0;
    while ((n = fread(buf, 1, CHUNK, f)) > 0)
        total += n;
    fclose(f);
    free(buf);
    pipe_metric(ctx, "bytes", (double)total);
    return 0;
}
C
[ "${WRITER:-stream}" = command ] || cat >> "$work/src/io.c" <<'C'

int write_blob(pipe_ctx *ctx, const io_write_blob_args *a)
{
    FILE *f = pipe_output_open(ctx, "blob");
    char *buf = malloc(CHUNK);
    if (!f || !buf)
        return 1;
    for (int i = 0; i < CHUNK; i++)
        buf[i] = (char)(i * 31 + 7); /* not zeros: nothing may shortcut them */
    for (int64_t i = 0; i < a->mib; i++)
        if (fwrite(buf, 1, CHUNK, f) != CHUNK)
            return 1;
    free(buf);
    return 0;
}
C
ddsync=
if [ "${WRITER:-stream}" = command ]; then
    ddsync='"conv=fsync", '
    [ "${SYNC:-1}" = 0 ] && ddsync=''
    writer='step write_blob(mib: int) -> blob: blob {
    command = ["dd", "if=/dev/zero", "of={blob}", "bs=1M", "count={mib}", '"$ddsync"'"status=none"]
}'
else
    writer='step write_blob(mib: int) -> blob: blob { source = "src/io.c" }'
fi
{ echo "$writer"; cat <<'P'
step read_blob(data: blob) { source = "src/io.c" }
pipeline io(mib: int = 1) {
    b = write_blob(mib = mib)
    read_blob(data = b)
}
P
} > "$work/io.pipe"
"$pipec" build "$work/io.pipe" -o "$work/bundle" --target local >/dev/null
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$work/bundle" -B "$work/bundle/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/bundle/build" >/dev/null
exe="$work/bundle/build/io"

# Each timed command starts from an empty store and no file: the runs do not
# pile up gigabytes, and no run reuses another's.
best() { python3 "$root/bench/best_of.py" -r "${RUNS:-3}" -- bash -c "$1"; }
t_ddcat=$(best "rm -f '$work/dd.bin'; dd if=/dev/zero of='$work/dd.bin' bs=1M count=$size conv=fsync status=none \
             && cat '$work/dd.bin' >/dev/null")
t_dd=$(best "rm -f '$work/dd.bin'; dd if=/dev/zero of='$work/dd.bin' bs=1M count=$size conv=fsync status=none")
t_cat=$(best "cat '$work/dd.bin' >/dev/null")
rm -f "$work/dd.bin"
# The bytes the step writes (the C step's pattern, the command's zeros),
# hashed from the page cache as the store hashes them from memory.
if [ "${WRITER:-stream}" = command ]; then
    head -c "$((size << 20))" /dev/zero > "$work/same.bin"
else
    python3 - "$work/same.bin" "$size" <<'PY'
import sys
chunk = bytes((i * 31 + 7) & 255 for i in range(1 << 20))
with open(sys.argv[1], "wb") as f:
    for _ in range(int(sys.argv[2])):
        f.write(chunk)
PY
fi
t_sha=$(best "openssl dgst -sha256 '$work/same.bin' >/dev/null")
rm -f "$work/same.bin"
t_run=$(best "rm -rf '$work/store'; '$exe' run --no-cache --jobs 1 --store '$work/store' --param mib=$size")
rm -rf "$work/store"
python3 - "$size" "$t_dd" "$t_cat" "$t_sha" "$t_ddcat" "$t_run" "writer: ${WRITER:-stream}${ddsync:+, its dd with conv=fsync}" <<'PY'
import sys
size = int(sys.argv[1])
t_dd, t_cat, t_sha, t_ddcat, t_run = map(float, sys.argv[2:7])
base = max(t_sha, t_dd) + t_cat
print(f"a {size} MiB artifact written through the store, then read; best of runs ({sys.argv[7]})")
print(f"  dd conv=fsync                 : {t_dd:8.3f} s  = {size / t_dd:7.0f} MiB/s")
print(f"  openssl dgst -sha256          : {t_sha:8.3f} s  = {size / t_sha:7.0f} MiB/s")
print(f"  cat                           : {t_cat:8.3f} s  = {size / t_cat:7.0f} MiB/s")
print(f"  max(sha, dd) + cat (baseline) : {base:8.3f} s")
print(f"  dd conv=fsync + cat           : {t_ddcat:8.3f} s")
print(f"  pipeline write + read         : {t_run:8.3f} s  = {size / t_run:7.0f} MiB/s")
print(f"  ratio                         : {t_run / base:8.2f}x the baseline (goal <= 1.1x); "
      f"{t_run / t_ddcat:.2f}x dd conv=fsync + cat")
PY
