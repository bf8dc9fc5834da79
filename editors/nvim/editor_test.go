package nvim_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
)

// editorScript asks the server, through the client the plugin started, for
// what Neovim shows of issue 38's features (0.9+ draws semantic tokens
// itself, 0.10+ inlay hints; 0.7 has neither, so the requests go out
// raw): the semantic tokens decoded with the advertised legend, the code
// actions at the broken formula's diagnostic (the first applied with
// vim.lsp.util.apply_workspace_edit), and the inlay hints of the file.
const editorScript = `
vim.opt.runtimepath:prepend(vim.env.PERFLS_PLUGIN)
vim.cmd('filetype on')
require('perfls').setup({ cmd = { vim.env.PERFLS_BIN, 'serve' } })
vim.cmd('edit ' .. vim.env.PERFLS_FILE)
local buf = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(buf)
local out = { tokens = {}, actions = {} }
vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local function req(method, params)
  local r = vim.lsp.buf_request_sync(buf, method, params, 30000)
  for _, x in pairs(r or {}) do
    if x.err then out.errors = (out.errors or '') .. method .. ': ' .. x.err.message .. '\n' end
    return x.result
  end
end
local client = vim.lsp.get_active_clients()[1]
local caps = client.server_capabilities or client.resolved_capabilities or {}
local legend = caps.semanticTokensProvider and caps.semanticTokensProvider.legend or { tokenTypes = {} }
out.inlayProvider = caps.inlayHintProvider ~= nil

local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
local st = req('textDocument/semanticTokens/full', { textDocument = { uri = uri } }) or { data = {} }
local line, char = 0, 0
for i = 1, #st.data, 5 do
  if st.data[i] > 0 then char = 0 end
  line, char = line + st.data[i], char + st.data[i + 1]
  table.insert(out.tokens, lines[line + 1]:sub(char + 1, char + st.data[i + 2]) .. ':' .. (legend.tokenTypes[st.data[i + 3] + 1] or '?'))
end

local hints = req('textDocument/inlayHint', { textDocument = { uri = uri },
  range = { start = { line = 0, character = 0 }, ['end'] = { line = #lines, character = 0 } } }) or {}
out.hints = {}
for _, h in ipairs(hints) do
  table.insert(out.hints, { line = h.position.line, label = h.label })
end

local d = vim.diagnostic.get(0)[1]
local range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } }
local actions = req('textDocument/codeAction', { textDocument = { uri = uri }, range = range, context = { diagnostics = {} } }) or {}
for _, a in ipairs(actions) do
  table.insert(out.actions, { title = a.title, kind = a.kind })
end
if actions[1] and actions[1].edit then
  vim.lsp.util.apply_workspace_edit(actions[1].edit, 'utf-16')
  out.fixed = vim.api.nvim_buf_get_lines(buf, d.lnum, d.lnum + 1, false)[1]
end
local f = io.open(vim.env.PERFLS_OUT, 'w')
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd('qa!')
`

func TestEditorFeaturesInHeadlessNeovim(t *testing.T) {
	seed := func(cacheDir, src string) {
		store, _, err := cache.OpenStore(context.Background(), cacheDir)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		err = store.ReplaceVerdicts(context.Background(), []verdict.MethodResult{{File: src, Class: "p.A", Method: "a", Params: []string{"int[]"},
			Measurements: []verdict.Measurement{{Workload: "gen", Args: "2", MeanNs: 1430, CILowNs: 1400, CIHighNs: 1460}}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	b, _ := nvimRun(t, editorScript, false, seed)
	var got struct {
		Tokens        []string
		InlayProvider bool
		Hints         []struct {
			Line  int
			Label string
		}
		Actions []struct{ Title, Kind string }
		Fixed   string
		Errors  string
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if got.Errors != "" {
		t.Errorf("requests failed:\n%s", got.Errors)
	}
	tokens := " " + strings.Join(got.Tokens, " ") + " "
	for _, want := range []string{"SELF:keyword", "gen:function", "b:method", "<=:operator", "1:number", "n:variable"} {
		if !strings.Contains(tokens, " "+want+" ") {
			t.Errorf("semantic token %s missing: %v", want, got.Tokens)
		}
	}
	if !got.InlayProvider || len(got.Hints) != 1 || got.Hints[0].Line != 4 || got.Hints[0].Label != "≈ 1.43 µs ± 2 %" {
		t.Errorf("inlay hints %+v (provider advertised: %v), want the recorded figure after a's signature on line 5", got.Hints, got.InlayProvider)
	}
	if len(got.Actions) == 0 || got.Actions[0].Title != `Insert )` || got.Actions[0].Kind != "quickfix" {
		t.Errorf("code actions %+v, want the quick fix inserting \")\"", got.Actions)
	}
	if !strings.Contains(got.Fixed, `p.A#b[gen](n)")`) {
		t.Errorf("line after applying the quick fix: %q", got.Fixed)
	}
}
