package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

// The hover of a method with a stored model (perfls model) shows its
// callees' demands and counts, and the figures beyond the fitted range
// flagged as extrapolated; a method without one shows none.
func TestModelHover(t *testing.T) {
	var ms []model.Measured
	for _, n := range []float64{10, 20, 40, 80} {
		f := measured.Fork{NsPerOp: []float64{n * n, n * n}, CPUNsPerOp: []float64{n * n, n * n}, Ops: 10}
		ms = append(ms, model.Measured{N: n, Forks: []measured.Fork{f, f},
			Profile: &model.CalleeSamples{Total: 1000, ByCallee: map[string]float64{"demo.Demo#pairs(int[])": 940}},
			Counts:  &measured.CallCounts{Ops: 10, Calls: []measured.CallCount{{Method: "demo.Demo#pairs(int[])", PerOp: 1}}}})
	}
	op := model.Extract("demo.Demo#fast(int[])", "demo.Demo#gen(int)", "n", nil, ms)
	fake := &fakeActions{models: []*model.Model{{Format: model.FormatVersion, CreatedAt: time.Now(), Operations: []model.Operation{op}}}}
	dir := t.TempDir()
	fc := lsptest.Start(t, server.Options{Actions: fake})
	fc.Initialize(t, dir, nil, protocol.ClientCapabilities{})
	path := filepath.Join(dir, "Demo.java")
	if err := os.WriteFile(path, []byte(lensSource), 0o644); err != nil {
		t.Fatal(err)
	}
	ss := &session{fc, dir, path, fc.Open(t, path, lensSource)}
	h := ss.hoverAt(t, lensSource, "fast(int[] a)")
	for _, want := range []string{"**Model** on `demo.Demo#gen(int)`, fitted on n in 10 … 80", "- pairs(): cpu ≈ ", "94 % of fast() at n = 80; calls = 1 per op, exact at all 4 values", "At n = 800 (**extrapolated**"} {
		if !strings.Contains(h, want) {
			t.Errorf("hover lacks %q:\n%s", want, h)
		}
	}
	if h := ss.hoverAt(t, lensSource, "slow(int[] a)"); strings.Contains(h, "**Model**") {
		t.Errorf("a method without a model:\n%s", h)
	}
}
