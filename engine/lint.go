package engine

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/analysis/workspace/classpath"
	"github.com/perfls/perfls/analysis/workspace/jdk"
	"github.com/perfls/perfls/cache/declindex"
	"github.com/perfls/perfls/internal/input"
	"github.com/perfls/perfls/internal/trust"
	"github.com/perfls/perfls/measure"
)

// LintConfig configures LintWith.
type LintConfig struct {
	// JDKSrc names the JDK's classes: "" finds the JDK (jdk.Load: JAVA_HOME,
	// then javac or java on PATH; its src.zip, else its class data), "none"
	// skips the JDK, else a JDK home, a src.zip, a ct.sym, a runtime image
	// (lib/modules) or an rt.jar (jdk.OpenPath).
	JDKSrc string
	// CacheDir caches the build tool's classpath (measure.ResolveClasspath);
	// "" reads only perfls.json's classpath.
	CacheDir string
	// NoClasspath leaves references into the project's classpath unchecked.
	NoClasspath bool
	// Notef receives what lint left unchecked and why (a classpath the
	// build tool was not asked for, revisions files cannot settle): one
	// line each. nil discards them.
	Notef func(format string, args ...any)
}

func (c LintConfig) notef(format string, args ...any) {
	if c.Notef != nil {
		c.Notef(format, args...)
	}
}

// quoteRevisions writes revision names as a formula does: @v1.0, @HEAD~2.
func quoteRevisions(revs []string) string {
	q := make([]string, len(revs))
	for i, r := range revs {
		q[i] = "@" + r
	}
	return strings.Join(q, ", ")
}

// LintWith reads the .java and .spl files at paths (directories are searched,
// skipping hidden directories and build outputs) and reports their formula
// problems without measuring: syntax errors, and methods and generators
// that do not resolve against all the files given and the declarations of
// their projects (a file given alone is linted in its project's context,
// projectContext), against the JDK's classes for java.* and javax.*, and
// against the classes of the project's classpath (perfls.json, Maven or
// Gradle, as check finds it; the build tool's answer cached in
// cfg.CacheDir). cfg.JDKSrc names the JDK's classes: "" finds them (none
// found: JDK references stay unchecked, and a notice says how many),
// "none" skips the JDK; and revisions (m@v1.0) that name no commit of the
// git repository holding the file. Only the given files' diagnostics are
// reported, sorted by file and position; a reference lint could not check
// is counted in one notice per cause.
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
	javaFiles, formulas, diags, err := readFormulas(ctx, files)
	if err != nil {
		return nil, err
	}
	var jdkExt workspace.External
	classes, jdkMissing, err := lintJDK(cfg)
	if err != nil {
		return nil, err
	}
	if classes != nil {
		defer classes.Close()
		jdkExt = classes
	}
	// One index over every file given and the declarations of their
	// projects, so references resolve across them; each project's formulas
	// against its own classpath.
	byRoot, roots := formulasByRoot(formulas)
	ix := workspace.NewIndex(append(javaFiles, projectContext(ctx, paths, files, roots, cfg)...))
	var skipped uncheckedRefs
	for _, root := range roots {
		opt := workspace.LintOptions{Unchecked: skipped.add}
		if jdkExt != nil {
			opt.External = jdkExt
		}
		if !cfg.NoClasspath {
			if cp := projectClasspath(ctx, root, cfg); cp != nil {
				opt.External = workspace.Externals{jdkExt, cp}
			}
		}
		diags = append(diags, ix.Lint(byRoot[root], opt)...)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("lint: %w", err)
	}
	skipped.notify(cfg, jdkExt == nil, jdkMissing)
	revDiags, unchecked := revisionNames(ctx, ix, formulas)
	diags = append(diags, revDiags...)
	if len(unchecked) > 0 {
		cfg.notef("revisions %s not checked: files cannot tell whether they exist, and %s", quoteRevisions(unchecked), trust.From(ctx).Reason())
	}
	sort.SliceStable(diags, func(i, j int) bool {
		if diags[i].Path != diags[j].Path {
			return diags[i].Path < diags[j].Path
		}
		return diags[i].Span.Start < diags[j].Span.Start
	})
	return diags, nil
}

// readFormulas reads the formulas of the .java and .spl files, and the
// diagnostics of reading them; it returns the parsed Java files too.
func readFormulas(ctx context.Context, files []string) ([]*javasrc.File, []*workspace.Formula, []workspace.Diagnostic, error) {
	diags := []workspace.Diagnostic{}
	var javaFiles []*javasrc.File
	var formulas []*workspace.Formula
	for _, p := range files {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, fmt.Errorf("lint: %w", err)
		}
		if strings.HasSuffix(p, ".spl") {
			src, err := input.ReadFile(ctx, p, input.SPL)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("lint: %w", err)
			}
			fs, ds := workspace.SPLFile(p, string(src))
			formulas = append(formulas, fs...)
			diags = append(diags, ds...)
			continue
		}
		f, err := parseJava(ctx, p)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("lint: %w", err)
		}
		fs, ds := workspace.JavaFormulas(f)
		javaFiles = append(javaFiles, f)
		formulas = append(formulas, fs...)
		diags = append(diags, ds...)
	}
	return javaFiles, formulas, diags, nil
}

// lintJDK opens the JDK's classes cfg.JDKSrc names, for the caller to
// close; when they are not read, nil and why. A --jdk-src that cannot be
// opened is an error.
func lintJDK(cfg LintConfig) (jdk.Classes, string, error) {
	if cfg.JDKSrc == "none" {
		return nil, "not read (--jdk-src none)", nil
	}
	var classes jdk.Classes
	var err error
	if cfg.JDKSrc == "" {
		classes, err = jdk.Load("")
	} else if classes, err = jdk.OpenPath(cfg.JDKSrc); err != nil {
		return nil, "", fmt.Errorf("lint: --jdk-src: %w", err)
	}
	if err != nil {
		return nil, "not found (" + err.Error() + ")", nil
	}
	return classes, "", nil
}

// uncheckedRefs counts the references lint could not check, by cause.
type uncheckedRefs struct {
	jdk   int      // for want of the JDK's classes
	other int      // for want of another class
	names []string // the other classes missing, first seen first
}

func (u *uncheckedRefs) add(r workspace.Unchecked) {
	for _, m := range r.Missing {
		if jdk.Platform(m) { // or may be: import java.util.* leaves AbstractList open
			u.jdk++
			return
		}
	}
	u.other++
	for _, m := range r.Missing {
		if !slices.Contains(u.names, m) {
			u.names = append(u.names, m)
		}
	}
}

// notify says, in one notice per cause, what lint left unchecked.
// noJDK tells that the JDK's classes were not read, and why says why.
func (u *uncheckedRefs) notify(cfg LintConfig, noJDK bool, why string) {
	if u.jdk > 0 {
		if noJDK {
			cfg.notef("JDK classes %s: %d method reference(s) to or through JDK types (classes extending them) are not checked; set JAVA_HOME to a JDK, or pass --jdk-src", why, u.jdk)
		} else {
			cfg.notef("%d method reference(s) through JDK types are not checked: the JDK's classes do not resolve every supertype", u.jdk)
		}
	}
	if u.other > 0 {
		names := u.names
		more := ""
		if len(names) > 3 {
			names, more = names[:3], fmt.Sprintf(" and %d more", len(u.names)-3)
		}
		cfg.notef("%d method reference(s) are not checked: classes they name or extend are neither in the project nor on its classpath (%s%s)", u.other, strings.Join(names, ", "), more)
	}
}

// projectContext returns the declarations of the projects of roots that
// the paths given do not hold whole (a file or a directory inside its
// project was given), leaving out the files given (parsed whole already):
// a file linted alone still resolves the classes of its package and
// project. The declarations come from the persisted index the editor
// uses (cache/declindex, in cfg.CacheDir), parsed where it is stale. A
// project that cannot be read is named in a notice.
func projectContext(ctx context.Context, paths, given []string, roots []string, cfg LintConfig) []*javasrc.File {
	givenSet := make(map[string]bool, len(given))
	for _, p := range given {
		if abs, err := filepath.Abs(p); err == nil {
			givenSet[abs] = true
		}
	}
	var out []*javasrc.File
	for _, root := range roots {
		absRoot, err := filepath.Abs(root)
		if err != nil {
			continue
		}
		whole := false
		for _, p := range paths {
			if abs, err := filepath.Abs(p); err == nil && (abs == absRoot || strings.HasPrefix(absRoot, abs+string(filepath.Separator))) {
				whole = true
			}
		}
		if whole {
			continue
		}
		files, _, err := declindex.IndexRoot(root, declindex.Path(cfg.CacheDir, root), ctx.Done(), nil)
		if err != nil {
			cfg.notef("the declarations of project %s were not all read (%v): classes of the project may be reported unknown", root, err)
		}
		for _, f := range files {
			if abs, err := filepath.Abs(f.Path); err != nil || !givenSet[abs] {
				out = append(out, f)
			}
		}
	}
	return out
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
			abs, err := filepath.Abs(dir) // a relative path cannot be walked up
			if err != nil {
				abs = dir
			}
			root = measure.ProjectRoot(abs)
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
// unchecked, as before the classpath was known, and a notice says why).
func projectClasspath(ctx context.Context, root string, cfg LintConfig) *classpath.Classpath {
	p, err := measure.ProjectClasspath(ctx, root, cfg.CacheDir)
	if err != nil {
		cfg.notef("%v: references into its jars are not checked", err)
		return nil
	}
	for _, n := range p.ClasspathNotices() {
		cfg.notef("%s", n)
	}
	if len(p.Classpath) == 0 {
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
			if !strings.HasSuffix(p, ".java") && !strings.HasSuffix(p, ".spl") {
				return nil
			}
			if _, ok := input.RegularEntry(p, d); ok { // a FIFO named X.java is not waited for
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
