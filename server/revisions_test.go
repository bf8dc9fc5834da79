package server_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/measure"
)

// revSource is p.A whose work method loops n*factor times, with a formula
// comparing it with itself one commit back.
func revSource(factor string) string {
	return `package p;
import dev.perfls.*;
public class A {
    @SPL("SELF[gen](3000) <= SELF@HEAD~1[gen](3000)")
    public static long work(int n) { long s = 0; for (int i = 0; i < n * ` + factor + `; i++) s += i ^ (s >>> 3); return s; }
    public static Iterable<Object[]> gen(int n) { return java.util.Collections.singletonList(new Object[] {n}); }
}
`
}

// Revisions in the editor with the real engine and git, on recorded
// measurements: the hover on
// "@HEAD~1" names the commit and, once checked, that revision's figures;
// the Compare with base lens measures the edited method against HEAD and
// says it became slower.
func TestRevisionsInTheEditor(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	dir, commits := fixture.GitProject(t, map[string]string{"src/p/A.java": revSource("1")}, map[string]string{"src/p/A.java": revSource("1")})
	slow := revSource("100") // the working tree's edit, not committed
	src := filepath.Join(dir, "src", "p", "A.java")
	if err := os.WriteFile(src, []byte(slow), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{CacheDir: t.TempDir(), Service: engine.InProcess, Logf: t.Logf,
		// Forks whose warm-up hits the cap do not decide a formula: a cap
		// the JIT settles within on a busy machine.
		Base: measure.Options{Forks: 3, SamplesPerFork: 5, Warmup: 50 * time.Millisecond, MaxWarmup: 3 * time.Second}}
	cfg.Given = replayed(t, "revisions")(cfg.CacheDir)
	eng, err := engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	p := &engineProject{eng: eng, dir: dir, src: src, text: slow}
	fc, u := p.session(t)

	rev := protocol.Position{Line: 3, Character: uint32(strings.Index(strings.Split(slow, "\n")[3], "@HEAD~1") + 2)}
	h := fc.Hover(t, u, rev)
	for _, want := range []string{"**revision** `@HEAD~1`: commit `" + commits[0][:12] + "`", "— commit 0", "not measured yet"} {
		if !strings.Contains(h, want) {
			t.Errorf("hover on @HEAD~1 lacks %q:\n%s", want, h)
		}
	}

	run := func(prefix string) {
		t.Helper()
		lens := lensTitled(t, fc, u, prefix)
		if lens == nil {
			t.Fatalf("no %q lens: %+v", prefix, fc.Lenses(t, u))
		}
		ended := fc.Count(protocol.MethodProgress, jobEnded)
		var reply any
		fc.Call(t, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: lens.Command.Command, Arguments: lens.Command.Arguments}, &reply)
		if reply != "started" {
			t.Fatalf("%s: %v", prefix, reply)
		}
		fc.AwaitFor(t, 3*time.Minute, prefix+" to end", func() bool { return fc.Count(protocol.MethodProgress, jobEnded) > ended })
	}
	run("⇄ Compare with base")
	if l := lensTitled(t, fc, u, "⇄ vs base · 1 slower"); l == nil {
		t.Errorf("after comparing, lenses %+v", fc.Lenses(t, u))
	}
	run("▶ Check")
	h = fc.Hover(t, u, rev)
	// 3 forks, or more where check added forks to decide (adaptive forks).
	if !strings.Contains(h, "figures at this revision") || !regexp.MustCompile("at `@HEAD~1` \\(\\d+ forks\\)").MatchString(h) {
		t.Errorf("hover after the check:\n%s", h)
	}
	// The slow edit is violated against HEAD~1; once HEAD moves, @HEAD~1
	// names another commit and the verdict is marked stale.
	fc.AwaitMatch(t, u, "the violated formula", func(ds []protocol.Diagnostic) bool { return hasCode(ds, "formula-violated") })
	fixture.Git(t, dir, "commit", "--allow-empty", "-m", "move HEAD")
	fc.AwaitMatch(t, u, "the stale verdict after HEAD moved", func(ds []protocol.Diagnostic) bool {
		return hasCode(ds, "stale-verdict") && !hasCode(ds, "formula-violated")
	})
}

func hasCode(ds []protocol.Diagnostic, code string) bool {
	for _, d := range ds {
		if d.Code == code {
			return true
		}
	}
	return false
}
