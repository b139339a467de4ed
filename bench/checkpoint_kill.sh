#!/usr/bin/env bash
# The kill test at its full count (docs/checkpoints.md, docs/testing.md):
# tests/reliability/checkpoint_kill.sh with KILLS SIGTERMs and KILLS
# SIGKILLs (default 20 each) for the C step and for the Python command
# step, each re-run after every kill. Prints, per step kind, the kills,
# the iterations lost at most and on average, the torn checkpoints loaded
# and whether every final state was an uninterrupted run's; exits 1 when a
# check failed. ctest's reliability.checkpoint_kill runs 3 of each.
#
#   bash bench/checkpoint_kill.sh [KILLS] [PIPEC]   (the bundles are built under $TMPDIR)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kills=${1:-20}
pipec=${2:-$root/build/compiler/pipec}
[ -x "$pipec" ] || { echo "build pipec first (cmake --build build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$root/tests/reliability/build_bundles.sh" "$pipec" "$root/tests/reliability" "$work" >/dev/null
bash "$root/tests/reliability/checkpoint_kill.sh" "$work" "$kills" | grep -v '^    '
