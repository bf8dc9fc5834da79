package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/perfls/perfls/internal/fixture"
)

// TestProfile runs perfls profile on examples/profiling's boxing loop in a
// real profiled fork: the JSON names the hot and allocating lines and the
// finding at the seeded line, --pprof writes a profile pprof reads, and
// the second run is answered from the cache as text.
func TestProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	fixture.Isolate(t)
	replayed(t, "profile")
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "profiling"))
	if err != nil {
		t.Fatal(err)
	}
	pb := filepath.Join(t.TempDir(), "totals.pb.gz")
	args := []string{"profile", "--project", dir, "--method", "profiling.Totals#sum", "--workload", "profiling.Totals#values",
		"--args", "1000", "--samples", "12", "--warmup", "300ms"}
	code, out, errs := runCLI(t, append(args, "--format", "json", "--pprof", pb)...)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	type loc struct {
		Method, File string
		Line         int
		Share        float64
		BytesPerOp   float64 `json:"bytes_per_op"`
	}
	var doc struct {
		Hot, Allocations []loc
		Findings         []struct {
			Kind, Method, File, Message string
			Line                        int
			Evidence                    map[string]any
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkJSON(t, "profile", out)
	const file = "src/main/java/profiling/Totals.java"
	if len(doc.Hot) == 0 || doc.Hot[0].Method != "profiling.Totals#sum(int[])" || doc.Hot[0].File != file || doc.Hot[0].Share <= 0 || doc.Hot[0].Share > 1 {
		t.Errorf("hot %+v", doc.Hot)
	}
	for i := 1; i < len(doc.Hot); i++ {
		if doc.Hot[i].Share > doc.Hot[i-1].Share {
			t.Errorf("hot lines not by share: %+v", doc.Hot)
		}
	}
	if len(doc.Allocations) == 0 || doc.Allocations[0].File != file || doc.Allocations[0].Line != 20 || doc.Allocations[0].BytesPerOp < 1000 {
		t.Errorf("allocations %+v", doc.Allocations)
	}
	// The seeded cause must be found; others (a loaded machine can fire a
	// ramp) are the validation's business (measure, bench profile).
	found := false
	for _, f := range doc.Findings {
		if f.Kind == "" || f.Message == "" || f.Evidence == nil {
			t.Errorf("finding %+v", f)
		}
		found = found || f.Kind == "excessive-allocation" && f.File == file && f.Line == 20 && f.Evidence["boxed_bytes_per_op"] != nil
	}
	if !found {
		t.Errorf("findings %+v", doc.Findings)
	}
	fh, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	p, err := profile.Parse(fh)
	if err != nil || len(p.Sample) == 0 || !strings.Contains(strings.Join(p.Comments, " "), "profiling.Totals#sum") {
		t.Fatalf("pprof: %v, %d samples", err, len(p.Sample))
	}

	code, out, errs = runCLI(t, args...)
	if code != exitOK || !strings.Contains(errs, "answered from the cache") || !strings.Contains(out, "Totals.java:20: excessive-allocation") {
		t.Errorf("again: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if code, _, errs := runCLI(t, "profile", "--project", dir); code != exitUsage || !strings.Contains(errs, "needs --method") {
		t.Errorf("without --method: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "profile", "--project", dir, "--method", "profiling.Totals#nope"); code != exitUsage || !strings.Contains(errs, "nope") {
		t.Errorf("unknown method: exit %d: %s", code, errs)
	}
}
