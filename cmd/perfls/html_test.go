package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/perfls/perfls/analysis/report/htmlreport"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/atomicfile"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// chromium finds Debian's Chromium: /usr/bin/chromium, else chromium or
// chromium-browser on PATH; "" when there is none.
func chromium() string {
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// pageView is what a page shows in the browser.
type pageView struct {
	Title       string `json:"title"`
	Summary     string `json:"summary"`
	Comparisons int    `json:"comparisons"` // section.comparison elements
	Plots       int    `json:"plots"`       // of which have an SVG drawn at a visible size
	Costs       int    `json:"costs"`       // cost curve SVGs drawn at a visible size
	// Problems are the console messages, uncaught exceptions and browser
	// log entries (failed loads, blocked requests) at warning level or above.
	Problems []string `json:"-"`
}

const pageViewJS = `(() => {
  const drawn = s => { const r = s.getBoundingClientRect(); return r.width > 100 && r.height > 50; };
  const summary = document.getElementById('summary');
  return {
    title: document.title,
    summary: summary ? summary.textContent : '',
    comparisons: document.querySelectorAll('section.comparison').length,
    plots: [...document.querySelectorAll('section.comparison svg')].filter(drawn).length,
    costs: [...document.querySelectorAll('section.cost svg')].filter(drawn).length,
  };
})()`

// browse opens a file in headless Chromium, with no network services, and
// reports what it shows and what went wrong while loading it.
func browse(t *testing.T, browser, file string) pageView {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	var chromeLog strings.Builder
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(browser),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900),
		chromedp.CombinedOutput(&lockedWriter{b: &chromeLog}),
	)
	defer cancelAlloc() // ends and reaps the browser
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTimeout()

	problems := make(chan string, 100)
	err = chromedp.Listen(ctx, func(ev any) {
		var p string
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning || e.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				p = fmt.Sprintf("console.%s: %s", e.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			p = "uncaught: " + e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				p += " " + e.ExceptionDetails.Exception.Description
			}
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				p = fmt.Sprintf("log %s (%s): %s %s", e.Entry.Level, e.Entry.Source, e.Entry.Text, e.Entry.URL)
			}
		}
		if p != "" {
			select {
			case problems <- p:
			default:
			}
		}
	})
	if err != nil {
		t.Fatalf("start chromium (%s): %v\nbrowser output:\n%s", browser, err, chromeLog.String())
	}
	err = chromedp.Do(ctx, chromedp.Navigate("file://"+abs))
	var v pageView
	if err == nil {
		v, err = chromedp.Run(ctx, chromedp.Evaluate[pageView](pageViewJS))
	}
	if err == nil {
		// Give late console events a moment to arrive.
		err = chromedp.Do(ctx, chromedp.Sleep(300*time.Millisecond))
	}
	if err != nil {
		t.Fatalf("chromium (%s) on %s: %v\nbrowser output:\n%s", browser, abs, err, chromeLog.String())
	}
	cancel()
	for len(problems) > 0 {
		v.Problems = append(v.Problems, <-problems)
	}
	return v
}

// lockedWriter lets the browser's output goroutines share a builder.
type lockedWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// TestBrowseSeesErrors is the control of the browser check: a page with a
// console error, an uncaught exception and a missing image must be
// reported, and a clean one not.
func TestBrowseSeesErrors(t *testing.T) {
	browser := chromium()
	if browser == "" {
		t.Skip("no Chromium: install Debian's chromium (apt-get install chromium) to run the browser tests")
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.html")
	os.WriteFile(bad, []byte(`<!DOCTYPE html><html><head><title>bad</title></head><body>
<section class="comparison"></section><img src="missing.png">
<script>console.error("broken on purpose"); notDefined();</script></body></html>`), 0o644)
	v := browse(t, browser, bad)
	joined := strings.Join(v.Problems, "\n")
	for _, want := range []string{"broken on purpose", "notDefined", "missing.png"} {
		if !strings.Contains(joined, want) {
			t.Errorf("problem %q not seen; saw:\n%s", want, joined)
		}
	}
	if v.Comparisons != 1 || v.Title != "bad" {
		t.Errorf("page view %+v, want 1 comparison, title bad", v)
	}
	good := filepath.Join(dir, "good.html")
	os.WriteFile(good, []byte(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>good</title></head><body><p id="summary">ok</p></body></html>`), 0o644)
	if v := browse(t, browser, good); len(v.Problems) > 0 || v.Summary != "ok" {
		t.Errorf("clean page: %+v", v)
	}
}

// checkHTMLReport opens the report of a check of the quickstart example in
// headless Chromium: it must load, show every comparison with its plot and
// every cost curve, and log no error. TestCheckQuickstart calls it on the
// report of its own run, so the example is measured once.
func checkHTMLReport(t *testing.T, dir string, comparisons, costs int) {
	t.Helper()
	index := filepath.Join(dir, "index.html")
	info, err := os.Stat(index)
	if err != nil {
		t.Fatalf("--html wrote no index.html: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("report directory holds %d entries, want only index.html (no temporary files left)", len(entries))
	}
	t.Logf("index.html: %d bytes", info.Size())
	page, _ := os.ReadFile(index)
	for _, external := range []string{"<script", "<link", "src=\"http", "href=\"http"} {
		if strings.Contains(string(page), external) {
			t.Errorf("index.html is not self-contained: it has %q", external)
		}
	}
	browser := chromium()
	if browser == "" {
		// Not t.Skip: the caller's other checks still run.
		t.Log("SKIPPED opening the HTML report in a browser: no Chromium (apt-get install chromium)")
		return
	}
	v := browse(t, browser, index)
	if v.Comparisons != comparisons || v.Plots != comparisons {
		t.Errorf("the browser shows %d comparisons, %d with a drawn plot; want %d of each", v.Comparisons, v.Plots, comparisons)
	}
	if v.Costs != costs {
		t.Errorf("the browser shows %d cost curves, want %d", v.Costs, costs)
	}
	if !strings.Contains(v.Title, "perfls check") || !strings.Contains(v.Summary, "satisfied") {
		t.Errorf("page title %q, summary %q", v.Title, v.Summary)
	}
	if len(v.Problems) > 0 {
		t.Errorf("the browser logged problems:\n%s", strings.Join(v.Problems, "\n"))
	}
}

func TestHTMLDirThatIsAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "report")
	os.WriteFile(file, []byte("x"), 0o644)
	code, _, errs := runCLI(t, "check", "--html", file, "../../examples/quickstart")
	if code != exitUsage || !strings.Contains(errs, "is not a directory") {
		t.Errorf("exit %d, stderr %q; want %d and a clear message, before anything is measured", code, errs, exitUsage)
	}
}

// BenchmarkHTMLReportQuickstart measures the quickstart example once (the
// README's settings: 3 forks × 30 samples), then times what --html adds to
// a check: gathering the samples, drawing the plots, rendering and writing
// index.html.
func BenchmarkHTMLReportQuickstart(b *testing.B) {
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Config{CacheDir: b.TempDir(), Service: engine.InProcess})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	dir, _ := filepath.Abs("../../examples/quickstart")
	opts := measure.Options{Forks: 3, SamplesPerFork: 30, Warmup: 300 * time.Millisecond, ForkTimeout: 60 * time.Second}
	res, err := eng.Check(ctx, engine.CheckRequest{Dir: dir, Options: opts, Priority: service.Batch})
	if err != nil || len(res.Methods) == 0 {
		b.Fatalf("check: %v (%+v)", err, res)
	}
	out := filepath.Join(b.TempDir(), "index.html")
	b.ResetTimer()
	for b.Loop() {
		page, err := htmlreport.Render(htmlreport.FromCheck(res.Report(dir, "perfls check --html out .", time.Second)))
		if err == nil {
			err = atomicfile.Write(out, page, 0o644)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	info, err := os.Stat(out)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(info.Size()), "index.html-bytes")
}
