package measure

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/perfls/perfls/analysis/measured"
	"github.com/perfls/perfls/internal/diskfull"
)

// Build is a compiled project ready to measure.
type Build struct {
	// ClassesDir holds the project's compiled classes.
	ClassesDir string
	// ClassDirs are further directories of the project's own classes, when
	// its build tool's output is used (Maven's target/test-classes next to
	// target/classes, say).
	ClassDirs []string
	// Prebuilt is true when the classes are the build tool's fresh output
	// rather than perfls's own compilation.
	Prebuilt bool
	// Classpath is ClassesDir, the compiled perfls library and the
	// project's extra classpath, in that order.
	Classpath []string
	// CacheDir is where generated harnesses are written and compiled: the
	// cache directory Compile was given.
	CacheDir string
	// SourceRoots, when set, let errors point at source files.
	SourceRoots []string
	// Notices are what the user should hear about how the project's
	// dependencies were found (Project.ClasspathNotices).
	Notices []string
	// runFirst are class directories forks run with before the classpath,
	// never compiled against: a counting fork's instrumented copy.
	runFirst []string
	// onCounts receives a counting fork's counters (Options.Count): they
	// are not part of the measured data (measured.Fork), only CountCalls
	// reads them.
	onCounts func(*forkCounts)
}

// CompileError is a failed javac run.
type CompileError struct {
	Messages []measured.CompilerMessage
	// Output is javac's raw output (its tail), for when no message parsed.
	Output string
	// Hint, when an error names a missing package or class, says where the
	// classpath came from and how to add the dependency (DependencyHint).
	Hint string
}

func (e *CompileError) Error() string {
	var b strings.Builder
	b.WriteString("javac failed")
	n := 0
	for _, m := range e.Messages {
		if m.Severity != "error" {
			continue
		}
		n++
		b.WriteString("\n")
		switch {
		case m.File != "" && m.Line > 0:
			fmt.Fprintf(&b, "%s:%d: %s", m.File, m.Line, m.Message)
		case m.File != "":
			fmt.Fprintf(&b, "%s: %s", m.File, m.Message)
		default:
			b.WriteString(m.Message)
		}
	}
	if n == 0 {
		if out := strings.TrimSpace(e.Output); out != "" {
			b.WriteString(":\n")
			b.WriteString(out)
		}
	}
	if e.Hint != "" {
		b.WriteString("\n")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// keyedMutex serialises work on one directory within this process.
type keyedMutex struct {
	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

func (k *keyedMutex) lock(key string) func() {
	k.mu.Lock()
	if k.locks == nil {
		k.locks = map[string]*sync.Mutex{}
	}
	m := k.locks[key]
	if m == nil {
		m = &sync.Mutex{}
		k.locks[key] = m
	}
	k.mu.Unlock()
	m.Lock()
	return m.Unlock
}

var dirLocks keyedMutex

// CompileLibrary compiles perfls's embedded Java library (once per library
// version and javac version) into cacheDir/javalib/<hash> and returns that
// class directory.
func CompileLibrary(ctx context.Context, cacheDir string) (string, error) {
	j, err := findJDK(ctx)
	if err != nil {
		return "", err
	}
	return compileLibrary(ctx, j, cacheDir)
}

func compileLibrary(ctx context.Context, j *jdk, cacheDir string) (_ string, err error) {
	defer func() { err = diskfull.Explain(cacheDir, err) }()
	if cacheDir, err = filepath.Abs(cacheDir); err != nil {
		return "", fmt.Errorf("compile perfls library: %w", err)
	}
	files, err := librarySourceFiles()
	if err != nil {
		return "", fmt.Errorf("compile perfls library: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "perfls-javalib-v1\njavac %s\n", j.version)
	lib := LibrarySources()
	for _, f := range files {
		data, err := fs.ReadFile(lib, f)
		if err != nil {
			return "", fmt.Errorf("compile perfls library: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", f, len(data))
		h.Write(data)
	}
	dir := filepath.Join(cacheDir, "javalib", hex.EncodeToString(h.Sum(nil))[:16])
	done := filepath.Join(dir, ".complete")
	defer dirLocks.lock(dir)()
	if fileExists(done) {
		touch(done) // PruneFiles keeps what is used
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("compile perfls library: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "tmp-")
	if err != nil {
		return "", fmt.Errorf("compile perfls library: %w", err)
	}
	defer os.RemoveAll(tmp)
	var srcs []string
	for _, f := range files {
		data, _ := fs.ReadFile(lib, f)
		p := filepath.Join(tmp, "src", filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", fmt.Errorf("compile perfls library: %w", err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return "", fmt.Errorf("compile perfls library: %w", err)
		}
		srcs = append(srcs, p)
	}
	classes := filepath.Join(tmp, "classes")
	// The library must run on any JDK >= 11, whatever JDK compiles it.
	if err := javac(ctx, j, classes, nil, srcs, 11); err != nil {
		return "", fmt.Errorf("compile perfls library: %w", err)
	}
	if err := os.WriteFile(filepath.Join(classes, ".complete"), nil, 0o644); err != nil {
		return "", fmt.Errorf("compile perfls library: %w", err)
	}
	if err := os.Rename(classes, dir); err != nil {
		// Another perfls process may have finished first.
		if _, serr := os.Stat(done); serr == nil {
			return dir, nil
		}
		return "", fmt.Errorf("compile perfls library: %w", err)
	}
	return dir, nil
}

// javac compiles srcs into out (created; must not exist or be empty) against
// classpath. A release > 0 asks for --release N and falls back to the
// compiler's default when this javac does not support that release. A
// compiler failure is a *CompileError.
func javac(ctx context.Context, j *jdk, out string, classpath, srcs []string, release int) error {
	return runJavac(ctx, j, out, classpath, srcs, javacFlags{release: release})
}

// runJavac is javac with the project's flags: with f.strict a javac that
// cannot compile for f.release is an error (releaseError), and f.args
// follow perfls's own flags.
func runJavac(ctx context.Context, j *jdk, out string, classpath, srcs []string, f javacFlags) error {
	release := f.release
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	argfile, err := os.CreateTemp(filepath.Dir(out), "javac-*.args")
	if err != nil {
		return err
	}
	defer os.Remove(argfile.Name())
	w := bufio.NewWriter(argfile)
	for _, s := range srcs {
		w.WriteString(quoteArg(s))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		argfile.Close()
		return err
	}
	if err := argfile.Close(); err != nil {
		return err
	}
	args := []string{
		// English messages, so that they parse; UTF-8 output.
		"-J-Duser.language=en", "-J-Duser.country=US", "-J-Dfile.encoding=UTF-8",
		"-J-Dsun.stdout.encoding=UTF-8", "-J-Dsun.stderr.encoding=UTF-8", "-J-Dstdout.encoding=UTF-8", "-J-Dstderr.encoding=UTF-8",
		// javac's own JIT at C1 only, one GC thread: the class files are the
		// same, and a compile costs about half the CPU (0.8 against 1.4 s on
		// the quickstart, 8 against 16 s on 600 classes, wall time lower too).
		"-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC",
		"-d", out, "-encoding", "UTF-8", "-g", "-implicit:class", "-Xmaxerrs", "500",
	}
	if len(classpath) > 0 {
		args = append(args, "-cp", strings.Join(classpath, string(os.PathListSeparator)))
	}
	args = append(args, f.args...)
	withRelease := args
	if release > 0 {
		withRelease = append(append([]string{}, args...), "--release", strconv.Itoa(release))
	}
	output, err := runTool(ctx, j.javac, append(withRelease, "@"+argfile.Name()), "", 4<<20)
	if err != nil && release > 0 && ctx.Err() == nil && releaseUnsupported(output) {
		if f.strict {
			return releaseError(j, release)
		}
		output, err = runTool(ctx, j.javac, append(args, "@"+argfile.Name()), "", 4<<20)
	}
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var exit interface{ ExitCode() int }
	if !errors.As(err, &exit) {
		return fmt.Errorf("run %s: %w", j.javac, err)
	}
	ce := &CompileError{Messages: parseJavacOutput(output), Output: output}
	for _, m := range ce.Messages {
		// javac could not write a class file: the disk is full, the
		// sources are fine (the caller names the directory).
		if strings.Contains(m.Message, "No space left on device") || strings.Contains(m.Message, "Disk quota exceeded") {
			return noSpaceError("javac: " + m.Message)
		}
	}
	return ce
}

// noSpaceError is javac's report that it could not write a class file for
// want of space: an ENOSPC (diskfull explains it), in javac's words.
type noSpaceError string

func (e noSpaceError) Error() string        { return string(e) }
func (e noSpaceError) Is(target error) bool { return target == syscall.ENOSPC }

var releaseUnsupportedRE = regexp.MustCompile(`release version \d+ not supported|invalid flag: --release|release \d+ is no longer supported`)

func releaseUnsupported(output string) bool { return releaseUnsupportedRE.MatchString(output) }

// quoteArg quotes one argument for a javac @argfile.
func quoteArg(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

var (
	javacHeaderRE = regexp.MustCompile(`^(.+?\.java):(\d+): (error|warning|note): (.*)$`)
	javacBareRE   = regexp.MustCompile(`^(error|warning|note): (.*)$`)
	javacCountRE  = regexp.MustCompile(`^\d+ (errors?|warnings?)$`)
)

// parseJavacOutput turns javac's human-readable output into messages. Each
// message is a header "File.java:12: error: text" followed by the source line,
// a caret line giving the column, and optional detail lines.
func parseJavacOutput(out string) []measured.CompilerMessage {
	var msgs []measured.CompilerMessage
	var cur *measured.CompilerMessage
	var body []string
	flush := func() {
		if cur == nil {
			return
		}
		caret := -1
		for i, l := range body {
			if t := strings.TrimLeft(l, " \t"); t == "^" {
				caret = i
				cur.Column = len([]rune(l[:len(l)-len(t)])) + 1
			}
		}
		var details []string
		for i, l := range body {
			// With a caret, the line before it is the quoted source.
			if caret >= 0 && i <= caret {
				continue
			}
			if t := strings.TrimSpace(l); t != "" {
				details = append(details, strings.Join(strings.Fields(t), " "))
			}
		}
		if len(details) > 0 {
			cur.Message += "; " + strings.Join(details, "; ")
		}
		msgs = append(msgs, *cur)
		cur, body = nil, nil
	}
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		if m := javacHeaderRE.FindStringSubmatch(line); m != nil {
			flush()
			n, _ := strconv.Atoi(m[2])
			cur = &measured.CompilerMessage{File: m[1], Line: n, Severity: m[3], Message: m[4]}
			continue
		}
		if m := javacBareRE.FindStringSubmatch(line); m != nil {
			flush()
			cur = &measured.CompilerMessage{Severity: m[1], Message: m[2]}
			continue
		}
		if javacCountRE.MatchString(strings.TrimSpace(line)) || strings.HasPrefix(line, "Note: ") {
			flush()
			continue
		}
		if cur != nil {
			body = append(body, line)
		}
	}
	flush()
	return msgs
}

// Compile first reads a Maven or Gradle project's classpath from its build
// tool (ResolveClasspath). It uses the build tool's output when it is present and fresh (see
// freshOutputs); otherwise it compiles the project's sources into
// cacheDir/build/<hash of the project dir>/classes, against the compiled
// perfls library. It does nothing when the sources (paths, sizes,
// modification times), the classpath and the JDK are unchanged since the last
// successful compilation. A compiler failure returns a *CompileError.
//
// The project is compiled for the running JDK (no --release), so that it may
// use any language feature that JDK supports; the library is compiled with
// --release 11.
func Compile(ctx context.Context, p *Project, cacheDir string) (_ *Build, err error) {
	if p == nil {
		return nil, errors.New("compile: no project")
	}
	defer func() { err = diskfull.Explain(cacheDir, err) }() // a full disk, not a compile error
	if cacheDir, err = filepath.Abs(cacheDir); err != nil {
		return nil, fmt.Errorf("compile %s: %w", p.Dir, err)
	}
	j, err := findJDK(ctx)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", p.Dir, err)
	}
	lib, err := compileLibrary(ctx, j, cacheDir)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", p.Dir, err)
	}
	projDir, err := filepath.Abs(p.Dir)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", p.Dir, err)
	}
	if err := ResolveClasspath(ctx, p, cacheDir); err != nil {
		return nil, fmt.Errorf("compile %s: %w", p.Dir, err)
	}
	if dirs, ok := freshOutputs(p); ok {
		return &Build{
			ClassesDir:  dirs[0],
			ClassDirs:   dirs[1:],
			Classpath:   append(append(append([]string{}, dirs...), lib), p.Classpath...),
			CacheDir:    cacheDir,
			SourceRoots: append([]string(nil), p.SourceRoots...),
			Prebuilt:    true,
			Notices:     p.ClasspathNotices(),
		}, nil
	}
	sum := sha256.Sum256([]byte(projDir))
	bdir := filepath.Join(cacheDir, "build", hex.EncodeToString(sum[:])[:16])
	classes := filepath.Join(bdir, "classes")
	b := &Build{
		ClassesDir:  classes,
		Classpath:   append([]string{classes, lib}, p.Classpath...),
		CacheDir:    cacheDir,
		SourceRoots: append([]string(nil), p.SourceRoots...),
		Notices:     p.ClasspathNotices(),
	}
	depCP := append([]string{lib}, p.Classpath...)

	defer dirLocks.lock(bdir)()
	stamp, err := buildStamp(j, p.javacFlags(), projDir, depCP, p.Sources)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", projDir, err)
	}
	stampFile := filepath.Join(bdir, "stamp")
	if old, err := os.ReadFile(stampFile); err == nil && string(old) == stamp {
		if st, err := os.Stat(classes); err == nil && st.IsDir() {
			touch(stampFile) // PruneFiles keeps what is used
			return b, nil
		}
	}
	if err := compileSources(ctx, j, p, projDir, depCP, bdir, stamp); err != nil {
		return nil, err
	}
	return b, nil
}

// compileSources compiles p's sources into bdir/classes, replacing what was
// there only when javac succeeds, and then writes stamp, the build's inputs,
// to bdir/stamp.
func compileSources(ctx context.Context, j *jdk, p *Project, projDir string, depCP []string, bdir, stamp string) error {
	classes := filepath.Join(bdir, "classes")
	stampFile := filepath.Join(bdir, "stamp")
	if err := os.MkdirAll(bdir, 0o755); err != nil {
		return fmt.Errorf("compile %s: %w", projDir, err)
	}
	_ = os.Remove(stampFile)
	tmp, err := os.MkdirTemp(bdir, "classes.tmp-")
	if err != nil {
		return fmt.Errorf("compile %s: %w", projDir, err)
	}
	defer os.RemoveAll(tmp)
	// module-info.java is left out: perfls compiles and runs everything on
	// the class path, where a named module could not read the library.
	var srcs []string
	for _, s := range p.Sources {
		if filepath.Base(s) != "module-info.java" {
			srcs = append(srcs, s)
		}
	}
	if len(srcs) > 0 {
		if err := runJavac(ctx, j, tmp, depCP, srcs, p.javacFlags()); err != nil {
			var ce *CompileError
			if errors.As(err, &ce) {
				ce.Hint = joinHints(DependencyHint(p, ce.Messages), JDKHint(p, j.major, ce.Messages))
				return ce
			}
			return fmt.Errorf("compile %s: %w", projDir, err)
		}
	}
	if err := os.RemoveAll(classes); err != nil {
		return fmt.Errorf("compile %s: %w", projDir, err)
	}
	if err := os.Rename(tmp, classes); err != nil {
		return fmt.Errorf("compile %s: %w", projDir, err)
	}
	if err := writeFileAtomic(stampFile, []byte(stamp)); err != nil {
		return fmt.Errorf("compile %s: %w", projDir, err)
	}
	return nil
}

// joinHints joins the hints that are not empty, one a line.
func joinHints(hints ...string) string {
	var out []string
	for _, h := range hints {
		if h != "" {
			out = append(out, h)
		}
	}
	return strings.Join(out, "\n")
}

// buildStamp describes everything a project compilation depends on.
func buildStamp(j *jdk, f javacFlags, projDir string, classpath, sources []string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "perfls-build-v1\nproject %s\njavac %s %s\n", projDir, j.javac, j.version)
	if f.release > 0 {
		fmt.Fprintf(&b, "release %d\n", f.release)
	}
	if len(f.args) > 0 {
		fmt.Fprintf(&b, "javac flags %q\n", f.args)
	}
	for _, c := range classpath {
		fmt.Fprintf(&b, "cp %s\n", c)
	}
	for _, s := range sources {
		st, err := os.Stat(s)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "src %d %d %s\n", st.ModTime().UnixNano(), st.Size(), s)
	}
	return b.String(), nil
}

func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
