#!/usr/bin/env bash
# The screenshot of docs/editors.md: Neovim with editors/nvim (pipe.lua and
# syntax/pipe.vim) on a .pipe file with a mistake, in a detached tmux
# session; once the diagnostics are in, `K` on a call shows its hover (the
# invocation's effective settings); the pane, with its colours, is rendered
# to a PNG by scripts/ansi_png.py.
#   bash scripts/nvim-screenshot.sh [OUT.png] [PIPEC]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/docs/img/nvim-lsp.png}")
pipec=$(realpath "${2:-$root/build/compiler/pipec}")
python=${PYTHON:-$root/build/venv/bin/python3}
for tool in nvim tmux; do command -v "$tool" >/dev/null || { echo "$tool not found" >&2; exit 2; }; done
work=$(mktemp -d)
session=pipe-shot-$$
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT
cat >"$work/train.pipe" <<'PIPE'
# Prepare the data, then train on it.
@resources(cpu = 2, memory = "8GB")
step prepare(rows: int = 1000, seed: int = 0) -> data: dataset {
    command = ["python3", "prepare.py", "--rows", "{rows}", "--out", "{data}"]
}

@resources(gpu = 1, memory = "16GB")
@run_with_accelerate(num_processes = 2, mixed_precision = "bf16")
step train(data: dataset, epochs: int = 3) -> model: model {
    command = ["python3", "train.py", "{data}", "--epochs", "{epochs}", "--out", "{model}"]
}

@docker(parent_image = "python:3.12-slim")
@retry(max = 2)
pipeline nightly(epochs: int = 5) {
    d = prepare(rows = 50000)
    sample = prepare(rows = 10)
    m = train(data = d, epochs = epochs)
}
PIPE
cat >"$work/init.lua" <<LUA
vim.opt.runtimepath:prepend("$root/editors/nvim")
package.path = "$root/editors/nvim/?.lua;" .. package.path
vim.opt.number = true
vim.opt.termguicolors = false
vim.opt.shortmess:append("I")
vim.cmd("syntax on")
vim.cmd("filetype on")
vim.cmd("highlight NormalFloat ctermbg=236 ctermfg=252")
require("pipe").setup({ cmd = { "$pipec", "lsp" } })
LUA
tmux new-session -d -s "$session" -x 120 -y 40 -c "$work" \
    "HOME=$work XDG_CONFIG_HOME=$work XDG_STATE_HOME=$work XDG_DATA_HOME=$work nvim -u $work/init.lua train.pipe"
# Wait for the diagnostics (the sign column shows `E`), then hover on `train(`.
for _ in $(seq 1 100); do
    tmux capture-pane -t "$session" -p | grep -q '^E ' && break
    sleep 0.1
done
tmux send-keys -t "$session" ':18' Enter
sleep 0.3
tmux send-keys -t "$session" '0ft'
sleep 0.3
tmux send-keys -t "$session" 'K'
sleep 1.5
tmux capture-pane -t "$session" -e -p >"$work/pane.txt"
mkdir -p "$(dirname "$out")"
"$python" "$root/scripts/ansi_png.py" "$work/pane.txt" "$out" 120 40
echo "wrote $out"
