package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/jsondoc"
	"github.com/perfls/perfls/measure"
)

// checkJSON fails t unless out, what a command printed with --format
// json, is a stream of documents that keep docs/json.md's rules: each an
// object with format_version first, every key snake_case.
func checkJSON(t *testing.T, what, out string) {
	t.Helper()
	if err := jsondoc.Check([]byte(out)); err != nil {
		t.Errorf("perfls %s --format json: %v\n%s", what, err, out)
	}
}

// jsonCommands are the commands that print JSON, with the tests that run
// each and check what it prints (checkJSON). analysis/report's
// TestDocumentsSnakeCaseAndVersioned checks every key their types can hold.
var jsonCommands = map[string]string{
	"check":       "TestCheckQuickstart",
	"lint":        "TestLintPositionsAfterNonASCII",
	"evaluate":    "TestEvaluateJMH, TestEvaluatePerflsJSONNonParametric",
	"measure":     "TestMeasureJSON, TestMeasurePhaseBoth, TestMeasureWorkloadErrorExit2",
	"profile":     "TestProfile",
	"model":       "TestModelAndPredict",
	"predict":     "TestPredictJSON",
	"calibrate":   "TestCalibrateVerifyAcceptCheck",
	"verify":      "TestCalibrateVerifyAcceptCheck",
	"diff":        "TestDiffAndBisect, TestDiffBisectShallowCloneFetches",
	"bisect":      "TestDiffAndBisect, TestDiffBisectShallowCloneFetches",
	"explain":     "TestExplainCommand",
	"history":     "TestHistoryListCommand",
	"regressions": "TestRegressionsCommand",
	"ensemble":    "TestEnsembleCommand",
}

// TestEveryJSONCommandIsChecked: a command that gains --format json must
// be added to jsonCommands and its output checked.
func TestEveryJSONCommandIsChecked(t *testing.T) {
	a := &app{stdout: io.Discard, stderr: io.Discard}
	var found []string
	var visit func(cs []*cobra.Command)
	visit = func(cs []*cobra.Command) {
		for _, c := range cs {
			if f := c.Flags().Lookup("format"); f != nil && strings.Contains(f.Usage, "json") {
				found = append(found, c.Name())
			}
			visit(c.Commands())
		}
	}
	visit(a.commands())
	slices.Sort(found)
	var listed []string
	for name := range jsonCommands {
		listed = append(listed, name)
	}
	slices.Sort(listed)
	if !slices.Equal(found, listed) {
		t.Errorf("commands with --format json: %v; jsonCommands lists %v", found, listed)
	}
}

// TestPredictJSON: perfls predict --format json on a model file, which
// needs no JVM; an older model file, without format_version, is read too.
func TestPredictJSON(t *testing.T) {
	dep := model.Dependency{Metric: model.Wall, Unit: "ns", Text: "≈ 2·n ns", Best: model.Fit{Model: "n", B: 2, K: 2}, Range: [2]float64{10, 1000}}
	env, err := engine.ModelEnvironment(measure.Options{}) // predict refuses a model of another machine or JVM
	if err != nil {
		t.Skipf("no JVM to predict for: %v", err)
	}
	m := &model.Model{Format: model.FormatVersion, Environment: env, Operations: []model.Operation{{Method: "p.C#m(int)", Workload: "p.C#gen(int)", Parameter: "n", Dependencies: []model.Dependency{dep}}}}
	var doc bytes.Buffer
	if err := report.WritePerformanceModel(&doc, io.Discard, "json", m); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	current, old := filepath.Join(dir, "model.json"), filepath.Join(dir, "old.json")
	os.WriteFile(current, doc.Bytes(), 0o600)
	os.WriteFile(old, bytes.Replace(doc.Bytes(), []byte(`"format_version": 2,`), nil, 1), 0o600)
	for _, file := range []string{current, old} {
		code, out, errs := runCLI(t, "predict", "--model", file, "--format", "json", "n=100")
		if code != exitOK || !strings.Contains(out, `"predictions":[{`) {
			t.Errorf("predict --model %s: exit %d\n%s\n%s", filepath.Base(file), code, out, errs)
		}
		checkJSON(t, "predict", out)
	}
}
