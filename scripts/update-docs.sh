#!/usr/bin/env bash
# Regenerates the documentation pipec writes from its own tables, after a
# diagnostic code or a decorator option changed:
#   docs/diagnostics.md            `pipec explain --markdown`
#   docs/language.md (a block)     `pipec explain --decorators-markdown`
#   docs/runtime.md (a block)      `pipec explain --cache-key-markdown`
#   README.md (a block)            `pipec --commands-markdown`
#   docs/runtime.md (a block)      the bundle executable's commands, from the
#                                  runtime's table: `runtime_test_commands --markdown`
# The unit tests unit.test_suggest, unit.test_settings and
# unit.test_commands, and runtime.test_commands, fail until these match.
# Usage: bash scripts/update-docs.sh [PIPEC] (default build/compiler/pipec;
# the runtime's program is in the same build folder).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
pipec=${1:-build/compiler/pipec}
[ -x "$pipec" ] || { echo "update-docs.sh: no pipec at $pipec (build first)" >&2; exit 2; }
runtime_commands=$(dirname "$(dirname "$pipec")")/tests/runtime/runtime_test_commands
[ -x "$runtime_commands" ] || { echo "update-docs.sh: no $runtime_commands (build first)" >&2; exit 2; }

"$pipec" explain --markdown >docs/diagnostics.md.tmp
mv docs/diagnostics.md.tmp docs/diagnostics.md

block=$(mktemp)
trap 'rm -f "$block"' EXIT
# replace_block FILE COMMAND...: the block of FILE between the first and
# the last line of what COMMAND prints becomes that output.
replace_block() {
    local file=$1
    shift
    "$@" >"$block"
    python3 - "$block" "$file" <<'PY'
import sys
block = open(sys.argv[1]).read()
path = sys.argv[2]
text = open(path).read()
begin, end = block.splitlines(True)[0], block.splitlines(True)[-1]
i, j = text.find(begin), text.find(end)
if i < 0 or j < i:
    sys.exit("update-docs.sh: %s has no block between %r and %r" % (path, begin.strip(), end.strip()))
open(path + ".tmp", "w").write(text[:i] + block + text[j + len(end):])
PY
    mv "$file.tmp" "$file"
}
replace_block docs/language.md "$pipec" explain --decorators-markdown
replace_block docs/runtime.md "$pipec" explain --cache-key-markdown
replace_block README.md "$pipec" --commands-markdown
replace_block docs/runtime.md "$runtime_commands" --markdown
echo "update-docs.sh: docs/diagnostics.md, docs/language.md's decorator reference, docs/runtime.md's cache key table" \
    "and list of commands, and README.md's command list are up to date"
