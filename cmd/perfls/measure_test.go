package main

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

const measureProjectSrc = `package m;

import java.util.ArrayList;
import java.util.List;

public class M {
    public static long sum(int[] a, int reps) {
        long s = 0;
        for (int r = 0; r < reps; r++) {
            for (int x : a) {
                s += x;
            }
        }
        return s;
    }

    public static Iterable<Object[]> arrays(int n, int reps) {
        List<Object[]> l = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            l.add(new Object[] {new int[n], reps});
        }
        return l;
    }

    public static int fail(int x) {
        throw new IllegalStateException("bad input " + x); // FAIL
    }
}
`

func measureProject(t *testing.T) string {
	t.Helper()
	return fixture.Project(t, map[string]string{"src/m/M.java": measureProjectSrc})
}

func keysOf(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

// TestMeasureJSON checks the JSON document's shape, which other tools read.
func TestMeasureJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	fixture.Isolate(t)
	replayed(t, "measure-json")
	dir := measureProject(t)
	code, out, errs := runCLI(t, "measure", "--project", dir, "--method", "m.M#sum", "--workload", "m.M#arrays",
		"--args", "100,5", "--format", "json", "--forks", "2", "--samples", "3", "--warmup", "20ms")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkJSON(t, "measure", out)
	if got := keysOf(doc); got != "args,environment,forks,format_version,method,preliminary,summary,workload" {
		t.Errorf("keys %s", got)
	}
	if doc["method"] != "m.M#sum(int[],int)" || doc["workload"] != "m.M#arrays(int,int)" || doc["preliminary"] != false {
		t.Errorf("head %v %v %v", doc["method"], doc["workload"], doc["preliminary"])
	}
	if args, _ := json.Marshal(doc["args"]); string(args) != "[100,5]" {
		t.Errorf("args %s", args)
	}
	sum := doc["summary"].(map[string]any)
	if got := keysOf(sum); got != "ci95_ns_per_op,ci_over,demands,forks,mean_ns_per_op,median_ns_per_op,samples_per_fork" {
		t.Errorf("summary keys %s", got)
	}
	mean := sum["mean_ns_per_op"].(float64)
	ci := sum["ci95_ns_per_op"].([]any)
	if len(ci) != 2 || !(ci[0].(float64) <= mean && mean <= ci[1].(float64)) || mean <= 0 {
		t.Errorf("mean %v, ci %v", mean, ci)
	}
	if sum["forks"] != 2.0 || sum["samples_per_fork"] != 3.0 || sum["ci_over"] != "forks" {
		t.Errorf("summary %v", sum)
	}
	var metrics []string
	for _, d := range sum["demands"].([]any) {
		metrics = append(metrics, d.(map[string]any)["metric"].(string))
	}
	if got := strings.Join(metrics, ","); got != "wall,cpu,process_cpu,alloc,gc_count,gc_time,cpu_share" {
		t.Errorf("demands %s", got)
	}
	forks := doc["forks"].([]any)
	if len(forks) != 2 {
		t.Fatalf("%d forks", len(forks))
	}
	for _, f := range forks {
		fm := f.(map[string]any)
		for _, k := range []string{"ns_per_op", "cpu_ns_per_op", "alloc_bytes_per_op", "gcs", "proc_cpu_ns_per_op", "gc_ms"} {
			if xs, ok := fm[k].([]any); !ok || len(xs) != 3 {
				t.Errorf("fork %s: %v, want 3 values", k, fm[k])
			}
		}
		if w, ok := fm["warmup_ns"].(float64); !ok || w < 20e6 {
			t.Errorf("warmup_ns %v, want at least the 20ms minimum", fm["warmup_ns"])
		}
	}
	env := doc["environment"].(map[string]any)
	for _, k := range []string{"java_version", "java_vendor", "vm_name", "jvm_args", "os", "arch", "cpu_model", "cores"} {
		if _, ok := env[k]; !ok {
			t.Errorf("environment lacks %s", k)
		}
	}
	if env["java_version"] == "" || env["cores"].(float64) < 1 {
		t.Errorf("environment %v", env)
	}
}

// TestMeasurePhaseBoth: the preliminary figure comes first, then the final one.
func TestMeasurePhaseBoth(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	fixture.Isolate(t)
	replayed(t, "measure-phase-both")
	dir := measureProject(t)
	code, out, errs := runCLI(t, "measure", "--project", dir, "--method", "m.M#sum", "--workload", "m.M#arrays",
		"--args", "10,1", "--format", "json", "--forks", "1", "--samples", "2", "--warmup", "10ms", "--phase", "both")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	checkJSON(t, "measure --phase both", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d JSON lines, want 2:\n%s", len(lines), out)
	}
	for i, want := range []bool{true, false} {
		var doc struct {
			Preliminary bool `json:"preliminary"`
			Summary     struct {
				Forks int `json:"forks"`
			} `json:"summary"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Preliminary != want || doc.Summary.Forks != 1 {
			t.Errorf("line %d: %+v, want preliminary=%v", i+1, doc, want)
		}
	}

	code, out, errs = runCLI(t, "measure", "--project", dir, "--method", "m.M#sum", "--workload", "m.M#arrays",
		"--args", "10,1", "--phase", "quick")
	if code != exitOK || !strings.HasPrefix(out, "preliminary") || !strings.Contains(out, "ns/op ±") || !strings.Contains(out, "× 20 samples") {
		t.Errorf("text, quick phase: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestMeasureWorkloadErrorExit2: a throwing method gives the structured
// error, pointing at the source line, and exit status 2.
func TestMeasureWorkloadErrorExit2(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	fixture.Isolate(t)
	replayed(t, "measure-workload-error")
	dir := measureProject(t)
	line := 0
	for i, l := range strings.Split(measureProjectSrc, "\n") {
		if strings.Contains(l, "// FAIL") {
			line = i + 1
		}
	}
	for _, phase := range []string{"full", "quick"} {
		code, out, errs := runCLI(t, "measure", "--project", dir, "--method", "m.M#fail", "--args", "7",
			"--format", "json", "--forks", "1", "--phase", phase)
		if code != exitUsage {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", phase, code, exitUsage, out, errs)
		}
		var doc struct {
			Error struct {
				Kind, Exception, Message, File string
				Line                           int
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: %v\n%s", phase, err, out)
		}
		checkJSON(t, "measure (failed)", out)
		e := doc.Error
		if e.Kind != "exception" || e.Exception != "java.lang.IllegalStateException" || e.Line != line ||
			!strings.HasSuffix(e.File, filepath.Join("m", "M.java")) || !strings.Contains(e.Message, "bad input 7") {
			t.Errorf("%s: error %+v", phase, e)
		}
		if !strings.Contains(errs, "bad input 7") || !strings.Contains(errs, "M.java:"+strconv.Itoa(line)) {
			t.Errorf("%s: stderr %q", phase, errs)
		}
	}
}

func TestMeasureUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"measure"},
		{"measure", "--method", "m.M"},
		{"measure", "--method", "m.M#sum", "--phase", "slow"},
		{"measure", "--method", "m.M#sum", "--format", "xml"},
		{"measure", "--method", "m.M#sum", "--project", "/nonexistent/dir"},
		{"measure", "--method", "m.M#sum", "extra"},
	} {
		if code, _, _ := runCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
