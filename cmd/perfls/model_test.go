package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// TestModelAndPredict extracts a model over three values of the
// generator's first parameter (the second fixed by --args), writes it as
// JSON and YAML, and predicts from it; a model from another machine is
// refused.
func TestModelAndPredict(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	fixture.Isolate(t)
	dir := measureProject(t)
	code, out, errs := runCLI(t, "model", "--project", dir, "--method", "m.M#sum", "--workload", "m.M#arrays", "--args", "2",
		"--values", "1000,4000,16000", "--forks", "2", "--samples", "3", "--warmup", "20ms")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	var doc struct {
		Format     int `json:"perfls_model"`
		Operations []struct {
			Method, Parameter string
			Fixed             []string
			Points            []struct{ N float64 }
			Dependencies      []struct{ Metric, Text string }
		}
		Environment map[string]any
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	op := doc.Operations[0]
	if doc.Format != 1 || op.Method != "m.M#sum(int[],int)" || op.Parameter != "n" || len(op.Points) != 3 || len(op.Fixed) != 1 || op.Fixed[0] != "2" {
		t.Fatalf("model %+v", doc)
	}
	if len(op.Dependencies) == 0 || op.Dependencies[0].Metric != "wall" || !strings.HasPrefix(op.Dependencies[0].Text, "≈ ") {
		t.Errorf("dependencies %+v", op.Dependencies)
	}
	if doc.Environment["machine"] == "" || doc.Environment["jvm"] == "" || !strings.Contains(errs, "wall ") {
		t.Errorf("environment %v; stderr %s", doc.Environment, errs)
	}
	file := filepath.Join(t.TempDir(), "m.json")
	os.WriteFile(file, []byte(out), 0o600)
	code, pout, perrs := runCLI(t, "predict", "--model", file, "n=8000")
	if code != exitOK || !strings.Contains(pout, "at n = 8000") || !strings.Contains(pout, "wall ") || strings.Contains(pout, "extrapolated") {
		t.Errorf("predict: exit %d\n%s\n%s", code, pout, perrs)
	}
	if _, pout, _ = runCLI(t, "predict", "--model", file, "n=100000"); !strings.Contains(pout, "extrapolated") {
		t.Errorf("extrapolation not flagged:\n%s", pout)
	}
	other := strings.Replace(out, `"machine": "`, `"machine": "another `, 1)
	os.WriteFile(file, []byte(other), 0o600)
	if code, _, perrs = runCLI(t, "predict", "--model", file, "n=8000"); code == exitOK || !strings.Contains(perrs, "another environment") {
		t.Errorf("another machine: exit %d, %s", code, perrs)
	}
	// YAML: the same model (answered from the cache).
	code, yout, yerrs := runCLI(t, "model", "--project", dir, "--method", "m.M#sum", "--workload", "m.M#arrays", "--args", "2",
		"--values", "1000,4000,16000", "--forks", "2", "--samples", "3", "--warmup", "20ms", "--format", "yaml")
	if code != exitOK || !strings.Contains(yout, "perfls_model: 1\n") || !strings.Contains(yout, "parameter: n") {
		t.Errorf("yaml: exit %d\n%s\n%s", code, yout, yerrs)
	}
}
