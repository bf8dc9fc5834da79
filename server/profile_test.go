package server_test

import (
	"encoding/json"
	"fmt"
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
	// The seeded boxing must be found; on a loaded machine the analysis may
	// add a finding (docs/profiling.md), which the editor must then show too.
	diags := fc.AwaitMatch(t, u, "the profiled fork's findings", func(ds []protocol.Diagnostic) bool {
		return len(ds) > 0 && !strings.Contains(ds[0].Message, "(preliminary profile of")
	})
	n := len(diags)
	if !fc.Seen(protocol.MethodProgress, func(p json.RawMessage) bool {
		return strings.Contains(string(p), fmt.Sprintf(`"message":"profiled values(1000): %d finding`, n))
	}) {
		t.Errorf("the progress does not count %d findings: %s", n, fc.Log())
	}
	// The quick profile from the warm worker JVM ran first and its finding
	// was shown while the profiled fork ran.
	if !fc.Seen(protocol.MethodProgress, func(p json.RawMessage) bool { return strings.Contains(string(p), "quick profile of p.T#sum(int[])") }) {
		t.Errorf("no quick profile in the progress: %s", fc.Log())
	}
	// Its findings were shown, when it had any: under load the quick
	// profile's capped warm-up may leave the code in an early tier.
	quickFound := !fc.Seen(protocol.MethodProgress, func(p json.RawMessage) bool {
		return strings.Contains(string(p), `"message":"preliminary profile of values(1000): 0 findings`)
	})
	if quickFound && !fc.Seen(protocol.MethodTextDocumentPublishDiagnostics, func(p json.RawMessage) bool {
		return strings.Contains(string(p), "(preliminary profile of p.T#sum(int[]), values(1000))")
	}) {
		t.Errorf("the quick profile's finding was not shown: %s", fc.Log())
	}
	line := uint32(strings.Count(boxingSource[:strings.Index(boxingSource, "total += v")], "\n"))
	var boxing *protocol.Diagnostic
	for i, d := range diags {
		if d.Severity != protocol.DiagnosticSeverityInformation || d.Source != "perfls" || !strings.Contains(d.Message, "(profile of p.T#sum(int[]), values(1000))") {
			t.Errorf("diagnostic %+v", d)
		}
		if d.Code == "excessive-allocation" {
			boxing = &diags[i]
		} else {
			t.Logf("another finding (load?): %s: %s", d.Code, d.Message)
		}
	}
	if boxing == nil || boxing.Range.Start.Line != line || boxing.Range.Start.Character != 12 || !strings.Contains(boxing.Message, "java.lang.Long") {
		t.Fatalf("no excessive-allocation at line %d: %+v", line+1, diags)
	}
	for _, r := range boxing.RelatedInformation {
		if r.Location.URI != u || r.Location.Range.Start.Line == line || r.Location.Range.Start.Line < 4 || r.Location.Range.Start.Line > 10 {
			t.Errorf("related %+v", r)
		}
	}
	if got, want := profileLens(fc).Command.Title, fmt.Sprintf("▶ Profile · %d finding", n); !strings.HasPrefix(got, want) {
		t.Errorf("title after profiling %q, want %q", got, want)
	}
	// The hover on the allocating line itself: what the profile measured there.
	if h := fc.Hover(t, u, protocol.Position{Line: line, Character: 14}); !strings.Contains(h, "**Profile** — this line") || !strings.Contains(h, "allocates") {
		t.Errorf("hover on the boxing line:\n%s", h)
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
	// Its findings arrive as diagnostics before any hover read them.
	fc2.AwaitMatch(t, u, "the cached profile's findings", func(ds []protocol.Diagnostic) bool {
		for _, d := range ds {
			if d.Code == "excessive-allocation" {
				return true
			}
		}
		return false
	})
	for _, want := range wantHover {
		if h := fc2.Hover(t, u, name); !strings.Contains(h, want) {
			t.Errorf("second session's hover lacks %q:\n%s", want, h)
		}
	}
	if fc2.Seen(protocol.MethodProgress, jobEnded) {
		t.Error("the second session ran a job")
	}
}
