package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/perfls/perfls/internal/fixture"
)

// editLatency opens fixture.LatencySource in `perfls serve` and times n one-character
// edits inside the middle formula, from sending didChange to receiving that
// version's diagnostics: first sending the whole text (full sync), then
// only the edit (incremental sync), as editors do; then incremental edits
// in a method body ("body").
func editLatency(bin, tmp string, n, formulas int) error {
	s, stop, err := startServer(bin, tmp, 30*time.Minute)
	if err != nil {
		return err
	}
	defer stop()
	src := fixture.LatencySource(formulas)
	uri, err := s.openJava(src)
	if err != nil {
		return err
	}
	// The edit: a space inserted after "SELF[" of the middle formula, then removed.
	mid := strings.Index(src[len(src)/2:], "SELF[") + len(src)/2
	edited := src[:mid] + " " + src[mid:]
	body := strings.Index(src[mid:], "return a.length") + len("return a.length") + mid
	fmt.Printf("perfls serve: a %d-line Java file of %.0f KB with %d formulas; %d one-character edits each way (after 20 untimed)\n",
		strings.Count(src, "\n"), float64(len(src))/1024, formulas, n)
	version := 1
	for _, mode := range []string{"full", "incremental", "body"} {
		at := mid
		if mode == "body" { // typing in a method's code instead of its formula
			at = body
		}
		line := strings.Count(src[:at], "\n")
		col := at - strings.LastIndex(src[:at], "\n") - 1
		change := func(odd bool) map[string]any {
			if mode == "full" {
				if odd {
					return map[string]any{"text": edited}
				}
				return map[string]any{"text": src}
			}
			pos := map[string]any{"line": line, "character": col}
			if odd {
				return map[string]any{"range": map[string]any{"start": pos, "end": pos}, "text": " "}
			}
			return map[string]any{"range": map[string]any{"start": pos, "end": map[string]any{"line": line, "character": col + 1}}, "text": ""}
		}
		var ds []time.Duration
		for i := 0; i < n+20; i++ {
			version++
			t0 := time.Now()
			if err := s.notify("textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": uri, "version": version},
				"contentChanges": []map[string]any{change(version%2 == 0)},
			}); err != nil {
				return err
			}
			if _, err := s.awaitDiagnostics(uri, version); err != nil {
				return err
			}
			if i >= 20 {
				ds = append(ds, time.Since(t0))
			}
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		q := func(p float64) string {
			return fmt.Sprintf("%.1f ms", float64(ds[int(p*float64(len(ds)-1))].Microseconds())/1000)
		}
		fmt.Printf("  %-11s didChange → diagnostics: median %s, p90 %s, p99 %s, max %s\n", mode, q(0.5), q(0.9), q(0.99), q(1))
	}
	return nil
}

// openJava writes src as src/p/G.java in the session's workspace, opens it
// and waits for its diagnostics; it returns the document's URI.
func (s *session) openJava(src string) (string, error) {
	path := filepath.Join(s.ws, "src", "p", "G.java")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		return "", err
	}
	uri := "file://" + path
	if err := s.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "java", "version": 1, "text": src}}); err != nil {
		return "", err
	}
	if _, err := s.awaitDiagnostics(uri, 1); err != nil {
		return "", err
	}
	return uri, nil
}
