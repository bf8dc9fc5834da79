#!/usr/bin/env bash
# Regenerates docs/images/report.png and docs/images/editor.png from the
# real programs: perfls check --html on examples/quickstart, opened in
# headless Chromium; and Neovim with editors/nvim in a tmux pane on the same
# example after that check, its screen captured cell for cell (tmux
# capture-pane -e) and rendered by ansi2html.py, then by Chromium.
# Needs: a perfls binary (PERFLS, default: go build), chromium, tmux, nvim.
# Usage: docs/images/shots.sh   (from the repository root)
set -euo pipefail
root=$(pwd)
out=$root/docs/images
work=$(mktemp -d)
trap 'tmux -L perfls-shots kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
export PERFLS_CACHE_DIR=${PERFLS_CACHE_DIR:-$work/cache}
perfls=${PERFLS:-$work/perfls}
[ -x "$perfls" ] || go build -o "$perfls" ./cmd/perfls

# The report, as the README's command writes it (exit 1: a formula is violated on purpose).
(cd "$work" && cp -r "$root/examples/quickstart" . && "$perfls" check --html perfls-report ./quickstart >/dev/null) || [ $? -eq 1 ]
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,1500 \
  --screenshot="$out/report.png" "file://$work/perfls-report/index.html" 2>/dev/null

# The editor: the violated formula's diagnostic, the lenses, the hover (K) on the formula.
cat >"$work/init.lua" <<LUA
vim.opt.runtimepath:append('$root/editors/nvim')
vim.opt.termguicolors = true
vim.opt.number = true
vim.opt.signcolumn = 'yes'
vim.opt.swapfile = false
vim.opt.shadafile = 'NONE'
vim.cmd('syntax on')
vim.cmd('filetype plugin on')
vim.api.nvim_set_hl(0, 'NormalFloat', { bg = '#2a2a3a', fg = '#e0e0e0' })
vim.api.nvim_set_hl(0, 'FloatBorder', { bg = '#2a2a3a', fg = '#8080a0' })
vim.api.nvim_set_hl(0, 'SignColumn', {})
vim.lsp.handlers['textDocument/hover'] = vim.lsp.with(vim.lsp.handlers.hover, { border = 'rounded' })
vim.diagnostic.config({ virtual_text = true, signs = true, underline = true })
vim.keymap.set('n', 'K', vim.lsp.buf.hover)
require('perfls').setup({ cmd = { '$perfls', 'serve' } })
LUA
tmux -L perfls-shots new-session -d -s shot -x 236 -y 58 -c "$work/quickstart" \
  "env PERFLS_CACHE_DIR=$PERFLS_CACHE_DIR nvim -u $work/init.lua +33 src/main/java/quickstart/Search.java"
sleep 12 # the server indexes, reads the recorded verdicts, the lenses resolve
tmux -L perfls-shots send-keys -t shot 33G zt
for _ in $(seq 19); do tmux -L perfls-shots send-keys -t shot C-y; done
tmux -L perfls-shots send-keys -t shot '24|'
sleep 1
tmux -L perfls-shots send-keys -t shot K
sleep 3
tmux -L perfls-shots capture-pane -e -p -t shot >"$work/screen.ansi"
python3 "$out/ansi2html.py" "$work/screen.ansi" >"$work/screen.html"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1880,960 \
  --screenshot="$out/editor.png" "file://$work/screen.html" 2>/dev/null
echo "wrote $out/report.png and $out/editor.png"
