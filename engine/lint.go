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
	"github.com/perfls/perfls/analysis/workspace/classpath"
	"github.com/perfls/perfls/analysis/workspace/jdk"
	"github.com/perfls/perfls/internal/input"
	"github.com/perfls/perfls/measure"
)

// LintConfig configures LintWith.
type LintConfig struct {
	// JDKSrc is the JDK's src.zip: "" finds one, "none" skips the JDK.
	JDKSrc string
	// CacheDir caches the build tool's classpath (measure.ResolveClasspath);
	// "" reads only perfls.json's classpath.
	CacheDir string
	// NoClasspath leaves references into the project's classpath unchecked.
	NoClasspath bool
}

// LintWith reads the .java and .spl files at paths (directories are searched,
// skipping hidden directories and build outputs) and reports their formula
// problems without measuring: syntax errors, and methods and generators
// that do not resolve against all the files given, against the JDK's
// sources for java.* and javax.*, and against the classes of the project's
// classpath (perfls.json, Maven or Gradle, as check finds it; the build
// tool's answer cached in cfg.CacheDir). cfg.JDKSrc names the
// JDK's src.zip: "" finds one (none found: JDK references stay unchecked),
// "none" skips the JDK; and revisions (m@v1.0) that name no commit of the
// git repository holding the file. The diagnostics are sorted by file and
// position.
//
// A binary .java file, or one larger than javasrc.MaxSourceBytes, is not
// parsed: it gets one diagnostic and the others are linted. LintWith stops
// with ctx's error when ctx is cancelled (checked between files, and
// inside a parse).
func LintWith(ctx context.Context, paths []string, cfg LintConfig) ([]workspace.Diagnostic, error) {
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
			src, err := input.ReadFile(ctx, p, input.SPL)
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
	var jdkExt workspace.External
	if cfg.JDKSrc != "none" {
		path := cfg.JDKSrc
		if path == "" {
			path, _ = jdk.Find()
		}
		if path != "" {
			z, err := jdk.Open(path)
			switch {
			case err != nil && cfg.JDKSrc != "":
				return nil, fmt.Errorf("lint: %w", err)
			case err == nil:
				defer z.Close()
				jdkExt = z
			}
		}
	}
	// One index over every file given, so references resolve across them;
	// each project's formulas against its own classpath.
	ix := workspace.NewIndex(javaFiles)
	byRoot, roots := formulasByRoot(formulas)
	for _, root := range roots {
		opt := workspace.LintOptions{}
		if jdkExt != nil {
			opt.External = jdkExt
		}
		if !cfg.NoClasspath {
			if cp := projectClasspath(ctx, root, cfg.CacheDir); cp != nil {
				opt.External = workspace.Externals{jdkExt, cp}
			}
		}
		diags = append(diags, ix.Lint(byRoot[root], opt)...)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("lint: %w", err)
	}
	diags = append(diags, revisionNames(ctx, ix, formulas)...)
	sort.SliceStable(diags, func(i, j int) bool {
		if diags[i].Path != diags[j].Path {
			return diags[i].Path < diags[j].Path
		}
		return diags[i].Span.Start < diags[j].Span.Start
	})
	return diags, nil
}

// formulasByRoot groups formulas by the project root of their file, roots
// in first-seen order.
func formulasByRoot(formulas []*workspace.Formula) (map[string][]*workspace.Formula, []string) {
	byRoot := map[string][]*workspace.Formula{}
	rootOf := map[string]string{}
	var roots []string
	for _, f := range formulas {
		dir := filepath.Dir(f.Path)
		root, ok := rootOf[dir]
		if !ok {
			root = measure.ProjectRoot(dir)
			rootOf[dir] = root
		}
		if _, ok := byRoot[root]; !ok {
			roots = append(roots, root)
		}
		byRoot[root] = append(byRoot[root], f)
	}
	return byRoot, roots
}

// projectClasspath is the classpath lookup of the project in root; nil when
// it has no classpath or it cannot be read (its references then stay
// unchecked, as before the classpath was known).
func projectClasspath(ctx context.Context, root, cacheDir string) *classpath.Classpath {
	p, err := measure.ProjectClasspath(ctx, root, cacheDir)
	if err != nil || len(p.Classpath) == 0 {
		return nil
	}
	return classpath.New(p.Classpath)
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
