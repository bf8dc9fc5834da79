// Package nvim_test drives the Neovim plugin in a real, headless Neovim
// against the real perfls binary. It is skipped where nvim is not installed.
package nvim_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const javaSource = `package p;

public class A {
    @SPL("for n in {1, 2} SELF[gen](n) <= p.A#b[gen](n")
    public static int a(int[] x) { return 0; }

    public static int b(int[] x) { return 1; }

    public static Iterable<Object[]> gen(int n) { return null; }
}
`

// The script opens the file, waits for perfls's diagnostics and code lens,
// reads a hover, runs the Check lens's command (the formula is broken, so
// nothing is measured and no JVM starts) until perfls/status says idle
// again, and writes what it saw as JSON.
const script = `
vim.opt.runtimepath:prepend(vim.env.PERFLS_PLUGIN)
vim.cmd('filetype on')
local statuses = {}
require('perfls').setup({
  cmd = { vim.env.PERFLS_BIN, 'serve' },
  settings = { violationSeverity = 'error', lenses = { 'measure', 'check', 'profile' } },
  on_status = function(s) table.insert(statuses, s) end,
})
vim.cmd('edit ' .. vim.env.PERFLS_FILE)
local out = { diagnostics = {}, lenses = {}, root = require('perfls').find_root(0) }
vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 50)
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, message = d.message, severity = d.severity })
end
local buf = vim.api.nvim_get_current_buf()
vim.wait(30000, function() return #vim.lsp.codelens.get(buf) > 0 end, 50)
local check
for _, l in ipairs(vim.lsp.codelens.get(buf)) do
  table.insert(out.lenses, { lnum = l.range.start.line, title = l.command and l.command.title or '' })
  if l.command and l.command.command == 'perfls.checkFormulas' then check = l.command end
end
local hover = vim.lsp.buf_request_sync(buf, 'textDocument/hover', {
  textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 4, character = 22 },
}, 30000)
for _, r in pairs(hover or {}) do
  if r.result then out.hover = r.result.contents.value end
end
if check then
  local reply = vim.lsp.buf_request_sync(buf, 'workspace/executeCommand', { command = check.command, arguments = check.arguments }, 30000)
  for _, r in pairs(reply or {}) do
    out.command = r.result or (r.err and r.err.message)
  end
  vim.wait(60000, function()
    return #statuses > 1 and statuses[#statuses].message == 'idle'
  end, 50)
end
out.statuses = statuses
local f = io.open(vim.env.PERFLS_OUT, 'w')
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd('qa!')
`

// nvimRun builds perfls, writes a project with javaSource, and runs the
// script in a headless Neovim with the plugin; it returns what the script
// wrote to $PERFLS_OUT and the project directory. With noDefaults the
// script runs with -u NONE (no filetype detection, as in minimal setups).
func nvimRun(t *testing.T, script string, noDefaults bool, before ...func(cacheDir, src string)) ([]byte, string) {
	t.Helper()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim not installed")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "perfls")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/perfls").CombinedOutput(); err != nil {
		t.Fatalf("build perfls: %v\n%s", err, out)
	}
	proj := filepath.Join(tmp, "proj")
	src := filepath.Join(proj, "src", "p", "A.java")
	os.MkdirAll(filepath.Dir(src), 0o755)
	os.WriteFile(filepath.Join(proj, "pom.xml"), []byte("<project/>"), 0o644)
	os.WriteFile(src, []byte(javaSource), 0o644)
	initLua := filepath.Join(tmp, "init.lua")
	os.WriteFile(initLua, []byte(script), 0o644)
	plugin, _ := filepath.Abs(".")
	outFile := filepath.Join(tmp, "out.json")
	for _, f := range before {
		f(filepath.Join(tmp, "cache"), src)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--headless", "-n", "-i", "NONE", "-u", initLua}
	if noDefaults {
		args = []string{"--headless", "-n", "-i", "NONE", "-u", "NONE", "--cmd", "luafile " + initLua}
	}
	cmd := exec.CommandContext(ctx, nvim, args...)
	cmd.Env = append(os.Environ(),
		"PERFLS_PLUGIN="+plugin, "PERFLS_BIN="+bin, "PERFLS_FILE="+src, "PERFLS_OUT="+outFile,
		"PERFLS_CACHE_DIR="+filepath.Join(tmp, "cache"),
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "config"), "XDG_DATA_HOME="+filepath.Join(tmp, "data"),
		"XDG_STATE_HOME="+filepath.Join(tmp, "state"), "XDG_CACHE_HOME="+filepath.Join(tmp, "xdgcache"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, out)
	}
	b, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatalf("the script wrote no result: %v", err)
	}
	return b, proj
}

func TestPluginInHeadlessNeovim(t *testing.T) {
	b, proj := nvimRun(t, script, false)
	var got struct {
		Root        string
		Diagnostics []struct {
			Lnum, Col, Severity int
			Message             string
		}
		Lenses []struct {
			Lnum  int
			Title string
		}
		Hover    string
		Command  string
		Statuses []struct {
			Running, Queued int
			Message         string
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if got.Root != proj {
		t.Errorf("root %q, want the directory with pom.xml %q", got.Root, proj)
	}
	if len(got.Diagnostics) == 0 || got.Diagnostics[0].Lnum != 3 || got.Diagnostics[0].Severity != 1 || !strings.Contains(got.Diagnostics[0].Message, ")") {
		t.Errorf("diagnostics %+v, want an error about the missing \")\" on line 4", got.Diagnostics)
	}
	titles := map[string]bool{}
	for _, l := range got.Lenses {
		if l.Lnum == 4 {
			titles[l.Title] = true
		}
	}
	// The lenses setup's settings list (no Calibrate: not listed).
	if len(got.Lenses) != 3 || !titles["▶ Measure"] || !titles["▶ Profile"] || !titles["▶ Check 1 formula"] {
		t.Errorf("code lenses %+v, want \"Measure\", \"Profile\" and \"Check 1 formula\" on line 5 (settings.lenses)", got.Lenses)
	}
	if !strings.Contains(got.Hover, "**perfls** `p.A#a(int[])`") {
		t.Errorf("hover on the method name: %q", got.Hover)
	}
	// The lens command ran on the server: queued or running, then idle. A
	// status replaces the one still waiting to be written (server/outbox.go),
	// so a job over before Neovim reads may go from queued to idle.
	n := len(got.Statuses)
	if got.Command != "started" || n < 2 || got.Statuses[n-1].Message != "idle" || got.Statuses[n-1].Running != 0 {
		t.Errorf("lens command: reply %q, statuses %+v", got.Command, got.Statuses)
	}
	running := false
	for _, s := range got.Statuses {
		running = running || (s.Running == 1 && strings.Contains(s.Message, "checking p.A#a")) || s.Queued == 1
	}
	if !running {
		t.Errorf("no queued or running status: %+v", got.Statuses)
	}
}

// The default setup (no settings: an empty Lua table, which Neovim sends
// as a JSON list) starts the server without a warning, and the buffer gets
// its diagnostics.
const defaultSetupScript = `
vim.opt.runtimepath:prepend(vim.env.PERFLS_PLUGIN)
vim.cmd('filetype on')
local notes = {}
vim.notify = function(msg, level) table.insert(notes, { msg = msg, level = level or 0 }) end
require('perfls').setup({ cmd = { vim.env.PERFLS_BIN, 'serve' } })
vim.cmd('edit ' .. vim.env.PERFLS_FILE)
local ok = vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 50)
vim.wait(500) -- a warning sent after initialized arrives by now
local f = io.open(vim.env.PERFLS_OUT, 'w')
f:write(vim.fn.json_encode({ diagnostics = ok, notes = notes }))
f:close()
vim.cmd('qa!')
`

// With filetype detection off (nvim -u NONE), setup warns once startup is
// done: no buffer would ever attach.
const filetypeOffScript = `
vim.opt.runtimepath:prepend(vim.env.PERFLS_PLUGIN)
local notes = {}
vim.notify = function(msg, level) table.insert(notes, { msg = msg, level = level or 0 }) end
require('perfls').setup({ cmd = { vim.env.PERFLS_BIN, 'serve' } })
vim.api.nvim_create_autocmd('VimEnter', { once = true, callback = function()
  local f = io.open(vim.env.PERFLS_OUT, 'w')
  f:write(vim.fn.json_encode({ notes = notes }))
  f:close()
  vim.cmd('qa!')
end })
`

type nvimNotes struct {
	Diagnostics bool
	Notes       []struct {
		Msg   string
		Level int
	}
}

func TestDefaultSetupStartsWithoutWarnings(t *testing.T) {
	b, _ := nvimRun(t, defaultSetupScript, false)
	var got nvimNotes
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if !got.Diagnostics {
		t.Errorf("no diagnostics: the buffer did not attach")
	}
	for _, n := range got.Notes {
		t.Errorf("message with the default setup: %q", n.Msg)
	}
}

func TestSetupWarnsWhenFiletypeDetectionIsOff(t *testing.T) {
	b, _ := nvimRun(t, filetypeOffScript, true)
	var got nvimNotes
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if len(got.Notes) != 1 || !strings.Contains(got.Notes[0].Msg, "filetype detection is off") || got.Notes[0].Level != 3 {
		t.Errorf("want one warning that filetype detection is off, got %+v", got.Notes)
	}
}
