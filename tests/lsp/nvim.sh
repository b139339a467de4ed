#!/usr/bin/env bash
# editors/nvim/pipe.lua in a real Neovim (headless): a .pipe file with a
# misspelt step gets the server's diagnostic (E0102), and a hover on a call
# the step's signature. usage: nvim.sh PIPEC
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
pipec=$1
command -v nvim >/dev/null || { echo "nvim not found (scripts/install-deps.sh installs neovim)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/main.pipe" <<'PIPE'
step load(path: string) -> data: dataset {
    command = ["cp", "{path}", "{data}"]
}

pipeline p() {
    d = load(path = "in.csv")
    lod(path = "x")
}
PIPE
out=$(cd "$work" && PIPEC=$pipec PIPE_EDITORS=$root/editors PIPE_FILE=$work/main.pipe PIPE_HOVER_LINE=6 \
    PIPE_HOVER_COL=9 HOME=$work XDG_CONFIG_HOME=$work XDG_STATE_HOME=$work XDG_DATA_HOME=$work \
    timeout 60 nvim --headless --clean -c "luafile $root/tests/lsp/nvim_check.lua" 2>&1) || {
    echo "$out"
    echo "FAIL: nvim exited non-zero"
    exit 1
}
echo "$out"
grep -q '^diagnostic 7:5 E0102 ' <<<"$out" || { echo "FAIL: no E0102 at 7:5 in Neovim"; exit 1; }
grep -q '^hover step load(path: string) -> data: dataset' <<<"$out" || { echo "FAIL: no hover in Neovim"; exit 1; }
echo ok
