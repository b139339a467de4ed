#!/usr/bin/env bash
# Fails when ctest's last run in a build folder skipped a test (exit 77) or
# could not run one, naming the tests and the reasons they printed.
#
#   bash scripts/ctest-skips.sh BUILD_DIR    (reads BUILD_DIR/ctest-output.log,
#                                             as scripts/test.sh writes it)
#
# A test this machine cannot run is not registered at all; everything else
# the tests need comes from scripts/install-deps.sh, so a skip means this
# machine should have run the test and did not (docs/testing.md).
set -euo pipefail
dir=$1
log=$dir/ctest-output.log
[ -f "$log" ] || { echo "ctest-skips: no $log" >&2; exit 2; }
skipped=$(sed -n 's/.*Test *#[0-9]*: \([^ ]*\) .*\*\*\*\(Skipped\|Not Run\).*/\1 (\2)/p' "$log")
[ -z "$skipped" ] && exit 0
printf '\nthese tests did not run, though this machine should run them:\n' >&2
printf '%s\n' "$skipped" | sed 's/^/  /' >&2
if [ -f "$dir/Testing/Temporary/LastTest.log" ]; then
    printf 'their reasons:\n' >&2
    grep -h '^SKIP: ' "$dir/Testing/Temporary/LastTest.log" | sed 's/^/  /' >&2 || true
fi
printf 'install what they need with scripts/install-deps.sh (see docs/testing.md)\n' >&2
exit 1
