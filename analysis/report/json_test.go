package report_test

import (
	"bytes"
	"io"
	"math"
	"testing"

	"github.com/perfls/perfls/analysis/ensemble"
	"github.com/perfls/perfls/analysis/model"
	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/analysis/profile"
	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/internal/jsondoc"
)

// documents are the JSON documents of every command with --format json:
// the Go type whose fields become the keys, and how the command writes one
// (a sample value; Fields checks every key the type can hold).
var documents = []struct {
	command string
	typ     any
	write   func(io.Writer) error
}{
	{"check", report.CheckDocument{}, func(w io.Writer) error {
		c := &report.Check{Alpha: 0.05, Environment: []report.Field{{Name: "JVM", Value: "17"}},
			Methods: []verdict.MethodResult{{Class: "p.C", Method: "m", Instances: []verdict.InstanceResult{{Comparisons: []verdict.ComparisonResult{{Evidence: verdict.Evidence{Ratio: math.NaN()}}}}}}}}
		return report.WriteJSON(w, report.CheckJSON(c))
	}},
	{"measure", report.MeasureDocument{}, func(w io.Writer) error { return report.WriteMeasurementJSON(w, report.MeasureDocument{}) }},
	{"profile", profile.Report{}, func(w io.Writer) error {
		return report.WriteJSON(w, profile.Report{Findings: []profile.Finding{{Kind: "ramp", Evidence: map[string]any{"growth_over_run": 0.5}}}})
	}},
	{"model", model.Model{}, func(w io.Writer) error {
		return report.WritePerformanceModel(w, io.Discard, "json", &model.Model{Format: model.FormatVersion})
	}},
	{"predict", report.Predicted{}, func(w io.Writer) error { return report.WritePredictions(w, "json", &report.Predicted{}) }},
	{"diff", report.Diff{}, func(w io.Writer) error {
		return report.WriteJSON(w, &report.Diff{Changes: []report.DiffChange{{Profile: &report.DiffProfile{NotComparable: []profile.NotComparable{{}}}}}})
	}},
	{"bisect", report.Bisect{}, func(w io.Writer) error { return report.WriteJSON(w, &report.Bisect{Steps: []report.BisectStep{{}}}) }},
	{"explain", report.Explain{}, func(w io.Writer) error {
		return report.WriteJSON(w, &report.Explain{Change: &report.RegressionChange{}, Bisect: &report.Bisect{Steps: []report.BisectStep{{}}}, Diff: &report.Diff{Changes: []report.DiffChange{{}}}})
	}},
	{"regressions", report.Regressions{}, func(w io.Writer) error {
		return report.WriteJSON(w, &report.Regressions{Environment: []report.EnvironmentShift{{}}})
	}},
	{"history", report.HistoryDocument{}, func(w io.Writer) error {
		return report.WriteJSON(w, report.NewHistoryDocument("p.C#m", []report.HistoryRow{{CILowNs: 1, CIHighNs: 2}}))
	}},
	{"calibrate", report.CalibrationDocument{}, func(w io.Writer) error {
		return report.WriteJSON(w, report.CalibrationDocument{Model: report.ModelSummary{Env: map[string]string{"java.vm.name": "x"}}})
	}},
	{"verify", oracle.Judgement{}, func(w io.Writer) error { return report.WriteJSON(w, oracle.Judgement{}) }},
	{"lint", report.LintDocument{}, func(w io.Writer) error { return report.WriteJSON(w, report.NewLintDocument(nil)) }},
	{"evaluate", report.Evaluation{}, func(w io.Writer) error { return report.WriteJSON(w, &report.Evaluation{}) }},
	{"ensemble", ensemble.Report{}, func(w io.Writer) error {
		return report.WriteJSON(w, &ensemble.Report{NoComparableEnvironment: true, Flagged: []ensemble.Flag{{EnvironmentDiffers: true, Rules: []ensemble.Violation{{}}}}})
	}},
}

// TestDocumentsSnakeCaseAndVersioned fails on a camelCase key any
// command's JSON document can hold, and on a document without
// format_version first (docs/json.md).
func TestDocumentsSnakeCaseAndVersioned(t *testing.T) {
	for _, d := range documents {
		if err := jsondoc.Fields(d.typ); err != nil {
			t.Errorf("perfls %s --format json: %v", d.command, err)
		}
		// With -v, docs/json.md's inventory: format_version and the
		// type's keys (map keys, such as a finding's evidence, not counted).
		t.Logf("%-12s %3d keys", d.command, 1+len(jsondoc.FieldNames(d.typ)))
		var out bytes.Buffer
		if err := d.write(&out); err != nil {
			t.Errorf("perfls %s --format json: %v", d.command, err)
			continue
		}
		if err := jsondoc.Check(out.Bytes()); err != nil {
			t.Errorf("perfls %s --format json: %v\n%s", d.command, err, out.String())
		}
	}
}

// TestWriteJSONRefusesAList: a list is a field of a document, never one
// (a reader looks for format_version first).
func TestWriteJSONRefusesAList(t *testing.T) {
	var out bytes.Buffer
	if err := report.WriteJSON(&out, []workspace.Diagnostic{}); err == nil || out.Len() > 0 {
		t.Errorf("WriteJSON of a list: %v, wrote %q; want an error and nothing written", err, out.String())
	}
	if err := report.WriteJSON(&out, struct{}{}); err != nil || out.String() != "{\n  \"format_version\": 2\n}\n" {
		t.Errorf("WriteJSON of an empty object: %v, %q", err, out.String())
	}
}

// TestCheckFindsCamelCase: the checker itself fails on what it must.
func TestCheckFindsCamelCase(t *testing.T) {
	for _, bad := range []string{`[]`, `{"a":1}`, `{"format_version":1}`, `{"format_version":2,"x":{"camelCase":1}}`, `{"format_version":2,"l":[{"Name":1}]}`,
		`{"format_version":2}` + "\n" + `{"a":1}`} {
		if jsondoc.Check([]byte(bad)) == nil {
			t.Errorf("Check(%s): no error", bad)
		}
	}
	if err := jsondoc.Check([]byte(`{"format_version":2,"model":{"environment":{"java.vm.name":"x"}},"ci95_ns_per_op":[1,2]}`)); err != nil {
		t.Errorf("a valid document: %v", err)
	}
	if jsondoc.Fields(struct{ Field int }{}) == nil || jsondoc.Fields(report.Field{}) != nil {
		t.Error("Fields: an untagged field's key is its Go name; report.Field's are tagged")
	}
}
