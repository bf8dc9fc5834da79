package engine

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/analysis/workspace/jdk"
	"github.com/perfls/perfls/measure"
)

// Lint reads the .java and .spl files at paths (directories are searched,
// skipping hidden directories and build outputs) and reports their formula
// problems without measuring: syntax errors, and methods and generators
// that do not resolve against all the files given or, for java.* and
// javax.*, against the JDK's sources. jdkSrc names the JDK's src.zip: ""
// finds one (none found: JDK references stay unchecked), "none" skips the
// JDK; and revisions (m@v1.0) that name no commit of the git repository
// holding the file. The diagnostics are sorted by file and position.
//
// A binary .java file, or one larger than javasrc.MaxSourceBytes, is not
// parsed: it gets one diagnostic and the others are linted. Lint stops
// with ctx's error when ctx is cancelled (checked between files, and
// inside a parse).
func Lint(ctx context.Context, paths []string, jdkSrc string) ([]workspace.Diagnostic, error) {
	files, err := sourceFiles(paths)
	if err != nil {
		return nil, err
	}
	diags := []workspace.Diagnostic{}
	var javaFiles []*javasrc.File
	var formulas []*workspace.Formula
	for _, p := range files {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("lint: %w", err)
		}
		if strings.HasSuffix(p, ".spl") {
			src, err := os.ReadFile(p)
			if err != nil {
				return nil, fmt.Errorf("lint: %w", err)
			}
			fs, ds := workspace.SPLFile(p, string(src))
			formulas = append(formulas, fs...)
			diags = append(diags, ds...)
			continue
		}
		f, err := parseJava(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("lint: %w", err)
		}
		fs, ds := workspace.JavaFormulas(f)
		javaFiles = append(javaFiles, f)
		formulas = append(formulas, fs...)
		diags = append(diags, ds...)
	}
	opt := workspace.LintOptions{}
	if jdkSrc != "none" {
		path := jdkSrc
		if path == "" {
			path, _ = jdk.Find()
		}
		if path != "" {
			z, err := jdk.Open(path)
			switch {
			case err != nil && jdkSrc != "":
				return nil, fmt.Errorf("lint: %w", err)
			case err == nil:
				defer z.Close()
				opt.External = z
			}
		}
	}
	// One index over every file given, so references resolve across them.
	ix := workspace.NewIndex(javaFiles)
	diags = append(diags, ix.Lint(formulas, opt)...)
	diags = append(diags, revisionNames(ctx, ix, formulas)...)
	sort.SliceStable(diags, func(i, j int) bool {
		if diags[i].Path != diags[j].Path {
			return diags[i].Path < diags[j].Path
		}
		return diags[i].Span.Start < diags[j].Span.Start
	})
	return diags, nil
}

// NotFoundError says that a path given to Lint does not exist.
type NotFoundError struct{ Err error }

func (e *NotFoundError) Error() string { return e.Err.Error() }
func (e *NotFoundError) Unwrap() error { return e.Err }

// sourceFiles expands directories into the .java and .spl files below them,
// skipping hidden directories and build outputs.
func sourceFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil {
			return nil, &NotFoundError{err}
		}
		if !info.IsDir() {
			out = append(out, a)
			continue
		}
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != a && measure.SkipDir(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(p, ".java") || strings.HasSuffix(p, ".spl") {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("search %s: %w", a, err)
		}
	}
	return out, nil
}
