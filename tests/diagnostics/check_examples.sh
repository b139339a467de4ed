#!/usr/bin/env bash
# Every .pipe file under examples/ passes `pipec check -Werror` with no
# output at all: the examples are what users copy, and the README checks
# them that way.
set -u
pipec=$1
root=$2
n=0
failed=0
while IFS= read -r -d '' file; do
    n=$((n + 1))
    out=$("$pipec" check -Werror "$file" 2>&1)
    status=$?
    if [ "$status" -ne 0 ] || [ -n "$out" ]; then
        printf 'FAIL: pipec check -Werror %s (exit %s)\n%s\n' "${file#"$root"/}" "$status" "$out"
        failed=1
    fi
done < <(find "$root/examples" -name '*.pipe' -print0 | sort -z)
if [ "$n" -eq 0 ]; then
    echo "FAIL: no .pipe file under $root/examples"
    exit 1
fi
[ "$failed" -eq 0 ] && echo "ok: $n example files pass check -Werror"
exit "$failed"
