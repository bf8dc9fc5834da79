package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/internal/fixture"
)

// overlaid builds the tree of commit with the working tree's set-up in
// dir (its formula measures p.A#work on w.W#gen) and returns it with the
// perfls.json it is built with (nil: none) and the notices.
func overlaid(t *testing.T, dir, commit string, own bool) (*tree, map[string]any, []string) {
	t.Helper()
	ctx := context.Background()
	src, err := readSources(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ix := workspace.NewIndex(src.files)
	rs := newRevisions(dir, src, ix, allWorkloads(src, ix), own)
	e := &Engine{cfg: Config{CacheDir: t.TempDir()}}
	tr := rs.tree(ctx, e, commit)
	if tr.Err != nil {
		return tr, nil, rs.notices
	}
	data, err := os.ReadFile(filepath.Join(tr.Dir, "perfls.json"))
	if err != nil {
		return tr, nil, rs.notices
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return tr, cfg, rs.notices
}

// A commit written before perfls.json and the workloads is built with the
// working tree's: its perfls.json (a source root the commit lacks left
// out, a classpath entry the commit lacks taken from the working tree, one
// it has kept as the commit's) and its workload sources, in a tree of its
// own; the commit's own perfls.json wins with --commit-config; a commit
// with none of its perfls.json's source roots is an error saying so.
func TestOverlayWorkingTreeSetup(t *testing.T) {
	cls := "package p; public class A { public static int work(int n) { return n; } }"
	dir, commits := fixture.GitProject(t,
		map[string]string{"src/main/java/p/A.java": cls, "lib/old.jar": "jar"},
		map[string]string{"src/main/java/p/A.java": cls, "perfls.json": `{"sourceRoots": ["src/main/java"], "jvmArgs": ["-Xmx64m"]}`},
		map[string]string{"elsewhere/p/A.java": cls, "src/main/java/p/A.java": ""})
	fixture.WriteFiles(t, dir, map[string]string{
		"perfls.json":                           `{"sourceRoots": ["src/main/java", "src/util/java", "src/bench/java"], "classpath": ["lib/*.jar", "deps/x.jar"], "release": 8}`,
		"src/main/java/p/A.java":                strings.Replace(cls, "public static", `@dev.perfls.SPL("SELF[w.W#gen](10) <= 2 * SELF[w.W#gen](10)") public static`, 1),
		"src/util/java/p/U.java":                "package p; class U {}",
		"src/bench/java/w/W.java":               "package w; public class W { public static Iterable<Object[]> gen(int n) { return null; } }",
		"deps/x.jar":                            "jar",
		"src/main/java/p/NotAWorkload.java":     "package p; class NotAWorkload {}",
		"src/bench/java/w/AlsoNotMeasured.java": "package w; class AlsoNotMeasured {}",
	})

	tr, cfg, notices := overlaid(t, dir, commits[0], false)
	if tr.Err != nil {
		t.Fatal(tr.Err)
	}
	if got, _ := os.ReadFile(filepath.Join(tr.Dir, "src/bench/java/w/W.java")); !strings.Contains(string(got), "class W") {
		t.Errorf("the workload source was not overlaid: %q", got)
	}
	for _, absent := range []string{"src/bench/java/w/AlsoNotMeasured.java", "src/main/java/p/NotAWorkload.java", "src/util/java"} {
		if _, err := os.Stat(filepath.Join(tr.Dir, absent)); err == nil {
			t.Errorf("%s is in the commit's tree", absent)
		}
	}
	roots, _ := json.Marshal(cfg["sourceRoots"])
	cp, _ := json.Marshal(cfg["classpath"])
	if string(roots) != `["src/main/java","src/bench/java"]` || cfg["release"] != 8.0 ||
		string(cp) != `["lib/*.jar",`+string(mustJSON(filepath.Join(dir, "deps/x.jar")))+`]` {
		t.Errorf("perfls.json at the commit: %v", cfg)
	}
	note := strings.Join(notices, "\n")
	for _, want := range []string{"commit " + commits[0][:12] + " built with the working tree's perfls.json (sourceRoots, classpath, release) and workload sources src/bench/java/w/W.java",
		"source root src/util/java skipped: not at this commit"} {
		if !strings.Contains(note, want) {
			t.Errorf("notices lack %q: %q", want, notices)
		}
	}
	if st := fixture.Git(t, dir, "status", "--porcelain"); st != "M perfls.json\n?? deps/\n?? src/" || fixture.Git(t, dir, "rev-parse", "HEAD") != commits[2] {
		t.Errorf("the checkout changed: %q", st)
	}

	// The commit's own perfls.json: the working tree's unless asked.
	_, cfg, _ = overlaid(t, dir, commits[1], false)
	if cfg["release"] != 8.0 {
		t.Errorf("without --commit-config: %v, want the working tree's", cfg)
	}
	_, cfg, notices = overlaid(t, dir, commits[1], true)
	if cfg["release"] != nil || len(cfg["jvmArgs"].([]any)) != 1 || strings.Contains(strings.Join(notices, ""), "perfls.json") {
		t.Errorf("--commit-config: %v, notices %q; want the commit's own", cfg, notices)
	}

	tr, _, _ = overlaid(t, dir, commits[2], true)
	if tr.Err == nil || !strings.Contains(tr.Err.Error(), "its own perfls.json: none of its source roots (src/main/java) is at this commit") {
		t.Errorf("a commit without the source roots: %v", tr.Err)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
