package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

const modelProjectSrc = `package c;

import java.util.Collections;

public class C {
    public static long compute(int[] a, int reps) {
        long s = 0;
        for (int r = 0; r < reps; r++) {
            s += pairs(a);
        }
        return s;
    }

    static long pairs(int[] a) {
        long s = 0;
        for (int i = 0; i < a.length; i++) {
            for (int j = i + 1; j < a.length; j++) {
                s += xor(a[i], a[j]);
            }
        }
        return s;
    }

    static long xor(int x, int y) {
        return x ^ y;
    }

    public static Iterable<Object[]> arrays(int n, int reps) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i * 31;
        }
        return Collections.singletonList(new Object[] {a, reps});
    }
}
`

// TestModelAndPredict extracts a model over four values of the generator's
// first parameter (the second fixed by --args): demands, dependencies, the
// callee that does the work with its share and fitted demand, the
// environment; then predicts from it (and from the stored model, by
// method), flags an extrapolation and refuses a model from another machine.
func TestModelAndPredict(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	fixture.Isolate(t)
	replayed(t, "model-and-predict")
	dir := fixture.Project(t, map[string]string{"src/c/C.java": modelProjectSrc})
	code, out, errs := runCLI(t, "model", "--project", dir, "--method", "c.C#compute", "--workload", "c.C#arrays", "--args", "1",
		"--values", "100,200,400,800", "--forks", "1", "--max-forks", "1", "--samples", "3", "--warmup", "20ms", "--max-warmup", "1s")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	var doc struct {
		Format     int `json:"perfls_model"`
		Operations []struct {
			Method, Parameter string
			Fixed             []string
			Points            []struct {
				N       float64
				Callees []struct {
					Method     string
					Share      float64
					Unreliable string
					Calls      float64 `json:"calls_per_op"`
				}
			}
			Dependencies       []struct{ Metric, Text string }
			CalleeDependencies []struct{ Callee, Text string } `json:"callee_dependencies"`
			CallDependencies   []struct{ Callee, Text string } `json:"call_dependencies"`
		}
		Environment map[string]any
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkJSON(t, "model", out)
	op := doc.Operations[0]
	if doc.Format != 1 || op.Method != "c.C#compute(int[],int)" || op.Parameter != "n" || len(op.Points) != 4 || len(op.Fixed) != 1 || op.Fixed[0] != "1" {
		t.Fatalf("model %+v", doc)
	}
	if len(op.Dependencies) == 0 || op.Dependencies[0].Metric != "wall" || !strings.HasPrefix(op.Dependencies[0].Text, "≈ ") {
		t.Errorf("dependencies %+v\n%s", op.Dependencies, errs)
	}
	// A loaded machine may leave a profile under the floor (too few samples):
	// then the callee is marked so and not fitted, as documented.
	if cs := op.Points[3].Callees; len(cs) == 0 || !strings.HasPrefix(cs[0].Method, "c.C#pairs") || cs[0].Share < 0.5 {
		t.Errorf("callees at n = 800: %+v\n%s", cs, errs)
	}
	unreliable := false
	for _, p := range op.Points {
		unreliable = unreliable || len(p.Callees) == 0 || p.Callees[0].Unreliable != ""
	}
	if deps := op.CalleeDependencies; !unreliable && (len(deps) != 1 || !strings.Contains(deps[0].Text, "% of compute() at n = 800")) {
		t.Errorf("callee dependencies %+v\n%s", deps, errs)
	}
	// The counting forks: pairs runs once per operation, xor n·(n−1)/2
	// times, which the exact polynomial reproduces.
	if cs := op.Points[3].Callees; len(cs) == 0 || cs[0].Calls != 1 {
		t.Errorf("calls of the callees at n = 800: %+v", cs)
	}
	want := "= 0.5·n² − 0.5·n calls per op, exact at all 4 values"
	if deps := op.CallDependencies; len(deps) != 2 || deps[1].Callee != "c.C#xor(int,int)" || deps[1].Text != want ||
		!strings.Contains(errs, "calls of c.C#xor(int,int) "+want) {
		t.Errorf("call dependencies %+v, want xor's %s\n%s", deps, want, errs)
	}
	if doc.Environment["machine"] == "" || doc.Environment["jvm"] == "" || !strings.Contains(errs, "wall ") {
		t.Errorf("environment %v; stderr %s", doc.Environment, errs)
	}
	file := filepath.Join(t.TempDir(), "m.json")
	os.WriteFile(file, []byte(out), 0o600)
	code, pout, perrs := runCLI(t, "predict", "--model", file, "n=300")
	if code != exitOK || !strings.Contains(pout, "at n = 300") || !strings.Contains(pout, "wall ") || strings.Contains(pout, "extrapolated") {
		t.Errorf("predict: exit %d\n%s\n%s", code, pout, perrs)
	}
	// Without --model: the model perfls model stored for the method.
	if code, pout, perrs = runCLI(t, "predict", "--method", "c.C#compute", "n=300"); code != exitOK || !strings.Contains(pout, "at n = 300") {
		t.Errorf("predict --method: exit %d\n%s\n%s", code, pout, perrs)
	}
	if _, pout, _ = runCLI(t, "predict", "--model", file, "n=100000"); !strings.Contains(pout, "extrapolated") {
		t.Errorf("extrapolation not flagged:\n%s", pout)
	}
	other := strings.Replace(out, `"machine": "`, `"machine": "another `, 1)
	os.WriteFile(file, []byte(other), 0o600)
	if code, _, perrs = runCLI(t, "predict", "--model", file, "n=300"); code == exitOK || !strings.Contains(perrs, "another environment") {
		t.Errorf("another machine: exit %d, %s", code, perrs)
	}
}
