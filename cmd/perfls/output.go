package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// progress reports measuring on stderr: every message with -v; otherwise,
// on a terminal only, one line rewritten in place with the number of forks
// done and the latest message, so a long first check is not silent and logs
// stay clean. done clears that line.
func (a *app) progress(verbose bool) (report func(service.Progress), done func()) {
	if verbose {
		return func(p service.Progress) { fmt.Fprintf(a.stderr, "  %s\n", p.Message) }, func() {}
	}
	if !isTerminal(a.stderr) {
		return nil, func() {}
	}
	var mu sync.Mutex
	forks := 0
	return func(p service.Progress) {
			mu.Lock()
			defer mu.Unlock()
			if p.NsPerOp > 0 {
				forks++
			}
			line := fmt.Sprintf("perfls: measuring, %d forks done; %s", forks, p.Message)
			if len(line) > 110 {
				line = line[:107] + "..."
			}
			fmt.Fprintf(a.stderr, "\r\033[K%s", line)
		}, func() {
			fmt.Fprint(a.stderr, "\r\033[K")
		}
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// measureError prints what an action's error says in detail — javac's
// messages, where a workload failed — and returns the error for the last
// line.
func (a *app) measureError(dir string, err error) error {
	var ce *engine.CompileError
	if errors.As(err, &ce) {
		a.compileErrors(dir, ce.Messages)
	}
	report.WriteWorkloadError(a.stderr, dir, err)
	return err
}

func (a *app) compileErrors(dir string, msgs []measure.CompilerMessage) {
	for _, m := range msgs {
		fmt.Fprintf(a.stderr, "%s:%d:%d: %s: %s\n", report.Rel(dir, m.File), m.Line, m.Column, m.Severity, m.Message)
	}
}

// notices prints the service's notices.
func (a *app) notices(ns []string) {
	for _, n := range ns {
		a.note("%s", n)
	}
}

// checkOutputDir rejects an output directory that exists and is not a
// directory, before anything is measured.
func checkOutputDir(flag, dir string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // created when written
	case err != nil:
		return usagef("%s %s: %v", flag, dir, err)
	case !info.IsDir():
		return usagef("%s %s: exists and is not a directory", flag, dir)
	}
	return nil
}

// writeFile writes data to path through a temporary file in the same
// directory (created when missing) and a rename, so a reader never sees
// half a file.
func writeFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename this finds nothing
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

// commandLine renders argv for display, quoting arguments that need it.
func commandLine(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
