package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/measure"
)

const boxingSource = `package p;
import dev.perfls.*;
public class T {
    @Workload("p.T#values")
    public static long sum(int[] values) {
        Long total = 0L;
        for (int v : values) {
            total += v;
        }
        return total;
    }
    @Generator("n ints from 1000 on")
    public static Iterable<Object[]> values(@Param(value = "n", min = 1000) int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) a[i] = 1000 + i;
        return java.util.Collections.singletonList(new Object[] {a});
    }
}
`

// From the Profile lens to diagnostics and the hover with the real engine
// and a real profiled fork; a second session finds the profile in the
// cache for its hover without profiling.
func TestProfileLensEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	p := newEngineProject(t, measure.Options{SamplesPerFork: 12, Warmup: 300 * time.Millisecond}, "p/T.java", boxingSource)
	fc, u := p.session(t)
	profileLens := func(fc *lsptest.Client) *protocol.CodeLens {
		l := lensTitled(t, fc, u, "▶ Profile")
		if l == nil {
			t.Fatal("no Profile lens")
		}
		return l
	}
	lens := profileLens(fc)
	if lens.Command.Title != "▶ Profile" {
		t.Errorf("title before profiling %q", lens.Command.Title)
	}
	var reply any
	fc.Call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: lens.Command.Command, Arguments: lens.Command.Arguments}, &reply)
	if reply != "started" {
		t.Fatalf("profile: %v", reply)
	}
	fc.AwaitFor(t, 2*time.Minute, "the profile to end", func() bool { return fc.Seen(protocol.MethodProgress, jobEnded) })
	if !fc.Seen(protocol.MethodProgress, func(p json.RawMessage) bool {
		return strings.Contains(string(p), `"message":"profiled values(1000): 1 finding"`)
	}) {
		t.Fatalf("the profile did not find the boxing: %s", fc.Log())
	}
	diags := fc.AwaitMatch(t, u, "the finding", func(ds []protocol.Diagnostic) bool { return len(ds) > 0 })
	line := uint32(strings.Count(boxingSource[:strings.Index(boxingSource, "total += v")], "\n"))
	if len(diags) != 1 || diags[0].Code != "excessive-allocation" || diags[0].Severity != protocol.DiagnosticSeverityInformation ||
		diags[0].Range.Start.Line != line || diags[0].Range.Start.Character != 12 || !strings.Contains(diags[0].Message, "java.lang.Long") {
		t.Fatalf("diagnostics %+v", diags)
	}
	for _, r := range diags[0].RelatedInformation {
		if r.Location.URI != u || r.Location.Range.Start.Line == line || r.Location.Range.Start.Line < 4 || r.Location.Range.Start.Line > 10 {
			t.Errorf("related %+v", r)
		}
	}
	if got := profileLens(fc).Command.Title; got != "▶ Profile · 1 finding" {
		t.Errorf("title after profiling %q", got)
	}
	name := protocol.Position{Line: 4, Character: 25}
	wantHover := []string{"**Profile** `values(1000)`", "**Where the time goes**", "| T.java:", "**excessive-allocation**"}
	for _, want := range wantHover {
		if h := fc.Hover(t, u, name); !strings.Contains(h, want) {
			t.Errorf("hover lacks %q:\n%s", want, h)
		}
	}

	// Another editor session: the hover reads the profile from the cache.
	fc2, _ := p.session(t)
	for _, want := range wantHover {
		if h := fc2.Hover(t, u, name); !strings.Contains(h, want) {
			t.Errorf("second session's hover lacks %q:\n%s", want, h)
		}
	}
	if fc2.Seen(protocol.MethodProgress, jobEnded) {
		t.Error("the second session ran a job")
	}
}
