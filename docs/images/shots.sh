#!/usr/bin/env bash
# Regenerates docs/images/report.png and docs/images/editor.png from the
# real programs: perfls check --html on examples/quickstart, opened in
# headless Chromium; and Neovim with editors/nvim in a tmux pane on the same
# example after that check, its screen captured cell for cell (tmux
# capture-pane -e) and rendered by ansi2html.py, then by Chromium. The
# editor shot shows what Neovim 0.10+ draws: the SPL in the @SPL strings
# coloured by the server's semantic tokens, the figures and outcomes as inlay
# hints, the lenses, the violated formula's diagnostic and the hover (K) on
# the measured method. An older Neovim draws neither tokens nor hints; where
# the system's is older (Debian bookworm: 0.7.2), docs/images/nvim-trixie.sh
# DIR installs Debian trixie's 0.10 without root: NVIM=DIR/nvim.
# Needs: a perfls binary (PERFLS, default: go build), chromium, tmux, nvim
# (NVIM, default: nvim on PATH).
# Usage: [NVIM=/tmp/nvim10/nvim] docs/images/shots.sh   (from the repository root)
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

# The editor: semantic tokens, inlay hints, lenses, the violated formula's
# diagnostic, the hover (K) on the measured method linearSearch.
nvim=${NVIM:-nvim}
case $("$nvim" --version | head -1) in
  "NVIM v0."[0-9].*) echo "$nvim: $("$nvim" --version | head -1), older than 0.10: the shot will have no semantic tokens or inlay hints (see docs/images/nvim-trixie.sh)" >&2 ;;
esac
cat >"$work/init.lua" <<LUA
vim.opt.runtimepath:append('$root/editors/nvim')
pcall(vim.cmd, 'colorscheme vim') -- 0.10's default scheme is muted; this is 0.7's
vim.opt.termguicolors = true
vim.opt.number = true
vim.opt.signcolumn = 'yes'
vim.opt.swapfile = false
vim.opt.shadafile = 'NONE'
vim.cmd('syntax on')
vim.cmd('filetype plugin on')
local function hl(name, spec) vim.api.nvim_set_hl(0, name, spec) end
hl('NormalFloat', { bg = '#2a2a3a', fg = '#e0e0e0' })
hl('FloatBorder', { bg = '#2a2a3a', fg = '#8080a0' })
hl('SignColumn', {})
hl('javaConceptKind', { link = 'Type' }) -- 'final', NonText (dark blue) otherwise
hl('LspCodeLens', { fg = '#a0a0a8' })
hl('LspCodeLensSeparator', { fg = '#a0a0a8' })
hl('LspInlayHint', { fg = '#a8a8b8', bg = '#2a2a34' })
-- The server's token types (analysis/editor TokenTypes). Neovim links them
-- to tree-sitter groups, which this scheme colours alike or as the string
-- around them (numbers); these are VS Code's dark theme's, as in vscode.png.
hl('@lsp.type.keyword', { fg = '#c586c0' })
hl('@lsp.type.operator', { fg = '#d4d4d4' })
hl('@lsp.type.number', { fg = '#b5cea8' })
hl('@lsp.type.string', { fg = '#ce9178' })
hl('@lsp.type.macro', { fg = '#ff8fb0' }) -- revisions (@HEAD~1)
hl('@lsp.type.method', { fg = '#dcdcaa' })
hl('@lsp.type.function', { fg = '#4fc1ff' }) -- generators
hl('@lsp.type.variable', { fg = '#9cdcfe' })
hl('@lsp.type.parameter', { fg = '#9cdcfe' })
hl('@lsp.type.namespace', { fg = '#4ec9b0' })
hl('@lsp.type.class', { fg = '#4ec9b0' })
hl('@lsp.type.type', { fg = '#4ec9b0' })
vim.lsp.handlers['textDocument/hover'] = vim.lsp.with(vim.lsp.handlers.hover, { border = 'rounded' })
vim.diagnostic.config({ virtual_text = true, signs = true, underline = true })
vim.keymap.set('n', 'K', vim.lsp.buf.hover)
require('perfls').setup({ cmd = { '$perfls', 'serve' } })
LUA
tmux -L perfls-shots new-session -d -s shot -x 256 -y 56 -c "$work/quickstart" \
  "env PERFLS_CACHE_DIR=$PERFLS_CACHE_DIR $nvim -u $work/init.lua +34 src/main/java/quickstart/Search.java"
sleep 12 # the server indexes, reads the recorded verdicts, the lenses and hints resolve
tmux -L perfls-shots send-keys -t shot 34G zt
for _ in $(seq 22); do tmux -L perfls-shots send-keys -t shot C-y; done
tmux -L perfls-shots send-keys -t shot '24|'
sleep 1
tmux -L perfls-shots send-keys -t shot K
sleep 3
tmux -L perfls-shots capture-pane -e -p -t shot >"$work/screen.ansi"
python3 "$out/ansi2html.py" "$work/screen.ansi" >"$work/screen.html"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=2030,930 \
  --screenshot="$out/editor.png" "file://$work/screen.html" 2>/dev/null
echo "wrote $out/report.png and $out/editor.png"
