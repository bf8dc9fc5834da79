package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/analysis/methodspec"
	"github.com/perfls/perfls/analysis/spl"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/internal/input"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// sources are a project's parsed Java files and the formulas selected from
// them.
type sources struct {
	project  *measure.Project
	files    []*javasrc.File
	formulas []*workspace.Formula   // those keep selected
	all      []*workspace.Formula   // every formula, for the set-up of revisions (overlay.go)
	diags    []workspace.Diagnostic // formula problems in every file
}

// readSources finds the project in dir, parses every source file and keeps
// the formulas keep selects (nil: all).
func readSources(ctx context.Context, dir string, keep func(*workspace.Formula) bool) (*sources, error) {
	proj, err := measure.FindProject(dir)
	if err != nil {
		return nil, err
	}
	s := &sources{project: proj}
	for _, path := range proj.Sources {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := parseJava(ctx, path)
		if err != nil {
			return nil, err
		}
		s.files = append(s.files, f)
		fs, ds := workspace.JavaFormulas(f)
		s.all = append(s.all, fs...)
		for _, fm := range fs {
			if keep == nil || keep(fm) {
				s.formulas = append(s.formulas, fm)
			}
		}
		s.diags = append(s.diags, ds...)
	}
	// Standalone .spl files (regression formulas, as the thesis keeps
	// them) anywhere in the project.
	spls, err := sourceFiles([]string{proj.Dir})
	if err != nil {
		return nil, err
	}
	for _, path := range spls {
		if !strings.HasSuffix(path, ".spl") {
			continue
		}
		text, err := input.ReadFile(ctx, path, input.SPL)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		fs, ds := workspace.SPLFile(path, string(text))
		s.all = append(s.all, fs...)
		for _, fm := range fs {
			if keep == nil || keep(fm) {
				s.formulas = append(s.formulas, fm)
			}
		}
		s.diags = append(s.diags, ds...)
	}
	return s, nil
}

// CheckTarget turns what a user named — a project directory, or one .java
// or .spl file in a project — into the directory to check and the formulas
// to keep (nil: all). A file is checked in the project that holds it.
func CheckTarget(path string) (dir string, keep func(*workspace.Formula) bool, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", nil, err
	}
	info, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", nil, fmt.Errorf("%s: no such file or directory", path)
	case info.IsDir():
		return abs, nil, nil
	case strings.HasSuffix(abs, ".java") || strings.HasSuffix(abs, ".spl"):
		return measure.ProjectRoot(filepath.Dir(abs)), func(f *workspace.Formula) bool { return f.Path == abs }, nil
	}
	return "", nil, fmt.Errorf("%s is neither a directory nor a .java or .spl file", path)
}

// item is the measurement service's item of a planned request.
func item(r workspace.Request) service.Item {
	it := service.Item{Method: spec(r.Method), Generator: spec(r.Generator)}
	for _, a := range r.Args {
		it.Args = append(it.Args, arg(a))
	}
	return it
}

func spec(t workspace.Target) methodspec.Spec {
	return methodspec.Spec{Class: t.Class, Name: t.Method, Params: t.Params}
}

func arg(v spl.Value) measured.Arg {
	switch v.Kind {
	case spl.String:
		return measured.StringArg(v.Str)
	case spl.Float:
		return measured.IntArg(int64(v.Float))
	default:
		return measured.IntArg(v.Int)
	}
}

// compileError sums up a project that does not compile, for the editor.
func compileError(msgs []measured.CompilerMessage) error {
	return fmt.Errorf("the project does not compile: %s", firstMessage(msgs))
}

// firstMessage is javac's first message and how many more there are.
func firstMessage(msgs []measured.CompilerMessage) string {
	m := msgs[0]
	s := fmt.Sprintf("%s:%d: %s", m.File, m.Line, m.Message)
	if len(msgs) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(msgs)-1)
	}
	return s
}
