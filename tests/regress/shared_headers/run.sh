#!/usr/bin/env bash
# Headers shared between steps: every step that includes a header, directly
# or through another one, carries it in its code digest (so editing it runs
# the step again instead of reusing a stale cached result) and in the bundle.
# It once held only for the first step to meet the header: a later step
# including the same header got none of the headers that header includes.
set -euo pipefail
pipec=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cd "$work"
mkdir -p src/inc
printf '#include "inc/common.h"\nint first(void *c, const void *a) { (void)c; (void)a; return DEEP; }\n' >src/a.c
printf '#include "inc/common.h"\nint second(void *c, const void *a) { (void)c; (void)a; return DEEP; }\n' >src/b.c
printf '#include "deep.h"\n' >src/inc/common.h
printf '#define DEEP 0\n' >src/inc/deep.h
cat >p.pipe <<'PIPE'
step first() -> out: dataset { source = "src/a.c" }
step second(data: dataset) { source = "src/b.c" }
pipeline p() {
    x = first()
    second(data = x)
}
PIPE
digests() { sed -n '/^steps:/,/^invocations:/s/^  code_digest: //p' out/bundle.yaml; }

"$pipec" build p.pipe -o out --target local >/dev/null
for f in a.c b.c inc/common.h inc/deep.h; do
    [ -f "out/src/user/$f" ] || fail "the bundle lacks src/user/$f"
done
before=$(digests)
[ "$(echo "$before" | wc -l)" = 2 ] || fail "expected two code digests, got: $before"

printf '#define DEEP 1\n' >src/inc/deep.h
"$pipec" build p.pipe -o out --target local >/dev/null
after=$(digests)
changed=$(paste -d' ' <(echo "$before") <(echo "$after") | awk '$1 != $2' | wc -l)
[ "$changed" = 2 ] || fail "editing a nested header changed $changed of the 2 steps' code digests"
echo "ok: a nested header shared by two steps is in both digests and in the bundle"
