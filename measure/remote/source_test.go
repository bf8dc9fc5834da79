package remote

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/methodspec"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/internal/pgtest"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

const brokenA = "package p; public class A { int x = ; }"

// A clean work tree whose HEAD is on its remote (here a local bare
// repository) is sent as its repository and commit: the worker fetches it
// into its cache (one mirror per repository, reused), checks the commit's
// tree against the job's fingerprint and builds it; nothing is uploaded.
// A tree with changes, or a commit not pushed, goes as an archive. A
// repository the worker cannot reach ends the job with that error and the
// client sends the sources instead; a tree that is not the job's
// fingerprint cancels the job.
func TestJobsFromARepository(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	top, _ := fixture.GitProject(t, map[string]string{"sub/p/A.java": brokenA, "sub/perfls.json": "{}", "README": "x"})
	proj := filepath.Join(top, "sub")
	bare := filepath.Join(t.TempDir(), "origin.git")
	fixture.Git(t, top, "init", "-q", "--bare", bare)
	fixture.Git(t, top, "remote", "add", "origin", bare)

	if src, why := gitSource(ctx, proj); src != nil || !strings.Contains(why, "not pushed") {
		t.Errorf("HEAD not on origin: %+v (%s)", src, why)
	}
	fixture.Git(t, top, "push", "-q", "origin", "main")
	src, why := gitSource(ctx, proj)
	if src == nil || src.URL != bare || src.Rel != "sub" || len(src.Commit) != 40 || src.Tree == "" {
		t.Fatalf("pushed clean tree: %+v (%s)", src, why)
	}
	os.WriteFile(filepath.Join(proj, "notes.txt"), []byte("x"), 0o644)
	if src, why := gitSource(ctx, proj); src != nil || !strings.Contains(why, "changes") {
		t.Errorf("untracked file: %+v (%s)", src, why)
	}
	os.Remove(filepath.Join(proj, "notes.txt"))

	url := pgtest.NewTestDatabase(t)
	svc, err := NewService(ctx, url, "git")
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	workerCache := t.TempDir()
	startWorker(ctx, t, url, WorkerConfig{Label: "git", CacheDir: workerCache})
	archives := func() (n int) {
		svc.pool.QueryRow(ctx, "SELECT count(*) FROM perfls_archives").Scan(&n)
		return n
	}
	item := service.Item{Method: methodspec.Spec{Class: "p.A", Name: "m"}}
	measureSaying := func(sources string) (*service.Response, []string) {
		t.Helper()
		var said []string
		resp, err := svc.Measure(ctx, service.Params{Project: proj, Items: []service.Item{item}, Options: measure.Options{Forks: 1, SamplesPerFork: 2}},
			func(p service.Progress) { said = append(said, p.Message) })
		if err != nil {
			t.Fatalf("%s: %v (%q)", sources, err, said)
		}
		if len(resp.CompileErrors) == 0 || !strings.Contains(resp.CompileErrors[0].File, "A.java") {
			t.Errorf("%s: want the compiler's messages on A.java, got %+v", sources, resp)
		}
		return resp, said
	}
	_, said := measureSaying("commit")
	if !strings.Contains(strings.Join(said, "\n"), "sources: commit "+src.Commit[:12]+" of "+bare+", which the workers fetch") || archives() != 0 {
		t.Errorf("progress %q, %d archives: want the commit fetched and nothing uploaded", said, archives())
	}
	// The next commit: the same mirror, fetched again.
	fixture.WriteFiles(t, proj, map[string]string{"p/A.java": brokenA + " // 2"})
	fixture.Git(t, top, "commit", "-qam", "two")
	fixture.Git(t, top, "push", "-q", "origin", "main")
	measureSaying("second commit")
	if mirrors, _ := os.ReadDir(filepath.Join(workerCache, "mirrors")); len(mirrors) != 1 {
		t.Errorf("%d mirrors, want one per repository", len(mirrors))
	}

	// A repository the workers cannot reach: the sources go instead.
	fixture.WriteFiles(t, proj, map[string]string{"perfls.json": `{"repository": "/nonexistent/perfls-origin.git"}`})
	fixture.Git(t, top, "commit", "-qam", "unreachable")
	_, said = measureSaying("unreachable")
	if all := strings.Join(said, "\n"); !strings.Contains(all, "the worker cannot fetch the sources") || !strings.Contains(all, "sending the sources instead") || archives() != 1 {
		t.Errorf("progress %q, %d archives: want the fallback to an archive", said, archives())
	}

	// A commit whose tree is not the job's fingerprint is not measured.
	bad := *src
	bad.Tree = strings.Repeat("0", 40)
	res, err := svc.client.Insert(ctx, MeasureArgs{Git: &bad, Params: service.Params{Items: []service.Item{item}}}, &river.InsertOpts{Queue: svc.queue})
	if err != nil {
		t.Fatal(err)
	}
	_, job, err := svc.Wait(ctx, res.Job.ID, nil)
	if err == nil || job.State != rivertype.JobStateCancelled || !strings.Contains(err.Error(), "fingerprint") {
		t.Errorf("wrong tree: %v, job %+v", err, job)
	}
}
