package declindex_test

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/analysis/workspace/jdk"
	"github.com/perfls/perfls/cache/declindex"
)

// unpackJavaBase extracts the java.base module of the JDK's src.zip
// (PERFLS_BENCH_SRCZIP, or the JDK found on JAVA_HOME/PATH) into a temp
// dir and returns the .java paths and their line count.
func unpackJavaBase(b *testing.B) ([]string, int) {
	b.Helper()
	zipPath := os.Getenv("PERFLS_BENCH_SRCZIP")
	if zipPath == "" {
		p, err := jdk.Find()
		if err != nil {
			b.Skip(err)
		}
		zipPath = p
	}
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		b.Skip(err)
	}
	defer zr.Close()
	dir := b.TempDir()
	var paths []string
	lines := 0
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, "java.base/") || !strings.HasSuffix(f.Name, ".java") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			b.Fatal(err)
		}
		src, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			b.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, src, 0o644); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
		lines += strings.Count(string(src), "\n")
	}
	return paths, lines
}

// BenchmarkIndexJavaBase: the workspace index of the JDK's java.base
// sources (PERFLS_BENCH_LINES limits it to the first files totalling that
// many lines): built cold (every file parsed, one worker per CPU, then
// persisted) and reopened (declarations read back from the persisted
// index, files only stat'ed).
func BenchmarkIndexJavaBase(b *testing.B) {
	paths, lines := unpackJavaBase(b)
	root := filepath.Dir(filepath.Dir(paths[0]))
	for !strings.HasSuffix(root, "java.base") {
		root = filepath.Dir(root)
	}
	if limit, _ := strconv.Atoi(os.Getenv("PERFLS_BENCH_LINES")); limit > 0 {
		// Keep whole packages' files up to the limit; remove the rest.
		kept := 0
		for _, p := range paths {
			src, _ := os.ReadFile(p)
			if kept >= limit {
				os.Remove(p)
				continue
			}
			kept += strings.Count(string(src), "\n")
		}
		lines = kept
	}
	cache := filepath.Join(b.TempDir(), "index.gob")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		os.Remove(cache)
		files, cold, err := declindex.IndexRoot(root, cache, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		ix := workspace.NewIndex(files)
		files, warm, err := declindex.IndexRoot(root, cache, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		ix = workspace.NewIndex(files)
		indexing := time.Since(start)
		b.ReportMetric(float64(cold.Elapsed.Milliseconds()), "ms/cold")
		b.ReportMetric(float64((warm.Elapsed + indexing).Milliseconds()), "ms/reopen")
		if i == b.N-1 {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			st, _ := os.Stat(cache)
			b.Logf("%d files, %d lines; cold: %d parsed in %v; reopen: %d reused in %v + %v indexing; persisted index %d KiB; Go heap after GC with the index live: %d MiB",
				cold.Files, lines, cold.Parsed, cold.Elapsed, warm.Reused, warm.Elapsed, indexing, st.Size()>>10, ms.HeapAlloc>>20)
		}
		runtime.KeepAlive(ix)
	}
}
