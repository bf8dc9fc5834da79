package measure

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perfls/perfls/internal/input"
	"github.com/perfls/perfls/internal/trust"
)

// A project with a Maven or Gradle build and no classpath in perfls.json
// gets its dependencies from the build tool itself: perfls runs it (offline
// first, then online unless PERFLS_BUILD_OFFLINE=1) and keeps what it said in
// the cache directory, classpath/<key>/result.json, keyed by the build files'
// contents and the tool's settings, so that the next run costs nothing.
// A failure is kept for failureTTL, so that an editor does not start the
// tool on every request; the message says what to do.

// OfflineEnv names the environment variable that, set to 1, keeps perfls
// from letting a build tool go online when its offline run fails.
const OfflineEnv = "PERFLS_BUILD_OFFLINE"

// Build tools' time limits (variables for the tests).
var (
	buildToolOfflineTimeout = 3 * time.Minute
	buildToolOnlineTimeout  = 10 * time.Minute
	failureTTL              = 5 * time.Minute
)

// buildTool asks one build tool for a project's classpath.
type buildTool struct {
	name string // "Maven", "Gradle"
	// exe finds the tool for the project in dir: its wrapper, else the
	// command on PATH.
	exe func(dir string) (string, error)
	// keyFiles are the files whose content decides the classpath: build
	// files under the root, wrapper and settings files.
	keyFiles func(dir string) []string
	// env are the environment variables that change what the tool does.
	env []string
	// args are the tool's arguments; scratch is a directory for files the
	// tool needs (an init script).
	args func(offline bool, scratch string) ([]string, error)
	// parse reads the tool's output.
	parse func(out string) toolOutput
	// declares reports whether a build file's content declares
	// dependencies (a failure is worth a notice only then).
	declares func(content string) bool
	// fix is what the user can do when an artifact is missing.
	fix string
	// installModules puts the build's own modules into the local
	// repository, for a module that depends on another.
	installModules string
}

// toolOutput is what a build tool said.
type toolOutput struct {
	modules []string // the projects (modules) it reported, by name
	entries []string // classpath entries, in order, without duplicates
	errors  []string // its error lines
	missing []string // artifacts it could not resolve
}

// classpathRecord is a cached resolution.
type classpathRecord struct {
	Tool     string    `json:"tool"`
	Entries  []string  `json:"entries"`
	Problem  string    `json:"problem,omitempty"`
	Declares bool      `json:"declares"`
	Time     time.Time `json:"time"`
}

// detectBuildTool names the build tool whose build file is in dir: "maven"
// for pom.xml, "gradle" for build.gradle(.kts) or settings.gradle(.kts), ""
// for none.
func detectBuildTool(dir string) string {
	if fileExists(filepath.Join(dir, "pom.xml")) {
		return "maven"
	}
	for _, f := range gradleFiles {
		if fileExists(filepath.Join(dir, f)) {
			return "gradle"
		}
	}
	return ""
}

func toolFor(name string) *buildTool {
	switch name {
	case "maven":
		return maven
	case "gradle":
		return gradle
	}
	return nil
}

// ResolveClasspath asks p's build tool (p.BuildTool) for its dependencies
// when perfls.json names none: it sets p.Classpath and p.ClasspathFrom, or,
// when the tool is missing or fails, p.ClasspathProblem (what went wrong and
// what to do). The answer is cached in cacheDir. Only a cancelled ctx is an
// error; it does nothing for a project without a build tool or already
// resolved.
func ResolveClasspath(ctx context.Context, p *Project, cacheDir string) error {
	tool := toolFor(p.BuildTool)
	if tool == nil || p.resolved {
		return nil
	}
	rec, err := tool.resolve(ctx, p.Dir, cacheDir)
	if err != nil {
		return err
	}
	p.resolved = true
	p.Classpath = append(p.Classpath[:0:0], rec.Entries...)
	p.ClasspathFrom = fmt.Sprintf("%s (%s)", tool.name, tool.describe())
	p.ClasspathProblem = rec.Problem
	p.declaresDeps = rec.Declares
	return nil
}

func (t *buildTool) describe() string {
	if t == maven {
		return "mvn dependency:build-classpath on pom.xml"
	}
	return "the test runtime classpaths of build.gradle, by an init script"
}

// ClasspathNotices are the messages a user should see about how p's
// classpath was found: the build tool's failure, when its build files
// declare dependencies that are therefore missing.
func (p *Project) ClasspathNotices() []string {
	if p.ClasspathProblem == "" || !p.declaresDeps {
		return nil
	}
	return []string{fmt.Sprintf("the classpath of %s is incomplete: %s", p.Dir, p.ClasspathProblem)}
}

// resolve returns the cached record when it is still good, else runs the
// tool and caches what it said.
func (t *buildTool) resolve(ctx context.Context, dir, cacheDir string) (*classpathRecord, error) {
	exe, exeErr := t.exe(dir)
	key, declares := t.key(dir)
	entry := filepath.Join(cacheDir, "classpath", key)
	file := filepath.Join(entry, "result.json")
	defer dirLocks.lock(entry)()
	if rec := readRecord(file); rec != nil {
		touch(file) // PruneFiles keeps what is used
		return rec, nil
	}
	rec := &classpathRecord{Tool: t.name, Declares: declares, Time: time.Now()}
	if exeErr != nil { // not cached: installing the tool is the fix
		rec.Problem = exeErr.Error()
		return rec, nil
	}
	// A refusal is no answer of the tool's: not cached.
	if err := trust.Check(ctx, "run "+t.shown(dir, exe)); err != nil {
		return nil, err
	}
	entries, problem, err := t.run(ctx, dir, exe)
	if err != nil {
		return nil, err
	}
	rec.Entries, rec.Problem = ownOutputsDropped(dir, entries), problem
	if data, err := json.Marshal(rec); err == nil && os.MkdirAll(entry, 0o755) == nil {
		_ = writeFileAtomic(file, data) // an unwritable cache only costs a run next time
	}
	return rec, nil
}

// cached is the tool's last answer for dir as its build files are now,
// without running it; nil when there is none.
func (t *buildTool) cached(dir, cacheDir string) *classpathRecord {
	key, _ := t.key(dir)
	return readRecord(filepath.Join(cacheDir, "classpath", key, "result.json"))
}

// shown names the tool's executable for messages: the wrapper relative to
// the project ("./mvnw"), else its base name.
func (t *buildTool) shown(dir, exe string) string {
	if rel, err := filepath.Rel(dir, exe); err == nil && !strings.HasPrefix(rel, "..") {
		return "./" + filepath.ToSlash(rel)
	}
	return filepath.Base(exe)
}

// readRecord reads a cached resolution; nil when there is none or it is
// stale: a failure older than failureTTL, or an entry no longer on disk (a
// cleaned local repository).
func readRecord(file string) *classpathRecord {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var rec classpathRecord
	if json.Unmarshal(data, &rec) != nil {
		return nil
	}
	if rec.Problem != "" && time.Since(rec.Time) > failureTTL {
		return nil
	}
	for _, e := range rec.Entries {
		if !fileExists(e) {
			return nil
		}
	}
	return &rec
}

// key hashes what decides the classpath: the tool, the project directory,
// the key files' contents (build files, settings that choose the local
// repository) and the environment. It also reports whether a build file
// declares dependencies. The tool's executable is left out: which mvn
// runs does not change what the poms and settings say.
func (t *buildTool) key(dir string) (string, bool) {
	h := sha256.New()
	fmt.Fprintf(h, "perfls-classpath-v1\n%s\n%s\n", t.name, dir)
	declares := false
	for _, f := range t.keyFiles(dir) {
		data, err := input.ReadRegular(f, input.BuildFile)
		if err != nil {
			fmt.Fprintf(h, "missing %s\n", f)
			continue
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(h, "file %s %x\n", f, sum)
		if t.declares != nil && t.declares(string(data)) {
			declares = true
		}
	}
	for _, v := range t.env {
		fmt.Fprintf(h, "env %s=%s\n", v, os.Getenv(v))
	}
	return hex.EncodeToString(h.Sum(nil))[:16], declares
}

// run runs the tool offline, then online when the offline run failed and
// OfflineEnv allows it. It returns the classpath and, when the tool failed,
// the problem (the classpath of the modules that resolved is kept).
func (t *buildTool) run(ctx context.Context, dir, exe string) ([]string, string, error) {
	out, runErr, err := t.runOnce(ctx, dir, exe, true)
	if err != nil {
		return nil, "", err
	}
	online := false
	if (runErr != nil || len(out.missing) > 0) && os.Getenv(OfflineEnv) != "1" {
		online = true
		if out, runErr, err = t.runOnce(ctx, dir, exe, false); err != nil {
			return nil, "", err
		}
	}
	if runErr == nil && len(out.missing) > 0 { // Gradle resolves leniently
		runErr = errors.New("unresolved dependencies")
	}
	if runErr == nil {
		return out.entries, "", nil
	}
	return out.entries, t.problem(exe, out, runErr, online), nil
}

// runOnce runs the tool once. runErr is the tool's failure (exit status,
// time limit); err only a cancelled ctx or a broken scratch directory.
func (t *buildTool) runOnce(ctx context.Context, dir, exe string, offline bool) (out toolOutput, runErr, err error) {
	scratch, err := os.MkdirTemp("", "perfls-buildtool-")
	if err != nil {
		return out, nil, fmt.Errorf("%s classpath: %w", t.name, err)
	}
	defer os.RemoveAll(scratch)
	args, err := t.args(offline, scratch)
	if err != nil {
		return out, nil, fmt.Errorf("%s classpath: %w", t.name, err)
	}
	limit := buildToolOnlineTimeout
	if offline {
		limit = buildToolOfflineTimeout
	}
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	text, runErr := runTool(rctx, exe, args, dir, 8<<20)
	if ctx.Err() != nil {
		return out, nil, ctx.Err()
	}
	out = t.parse(stripANSI(text))
	if errors.Is(runErr, context.DeadlineExceeded) {
		runErr = fmt.Errorf("%s did not finish within %s (killed)", filepath.Base(exe), limit)
	}
	return out, runErr, nil
}

// problem explains a failed run: which artifacts are missing and what to
// do, else the tool's own error lines.
func (t *buildTool) problem(exe string, out toolOutput, runErr error, online bool) string {
	how := "offline"
	if online {
		how = "offline, then online"
	} else if os.Getenv(OfflineEnv) == "1" {
		how = "offline, as " + OfflineEnv + "=1 asks"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, run %s) failed: %v", t.name, exe, how, runErr)
	var siblings, external []string
	for _, m := range out.missing {
		if isModule(m, out.modules) {
			siblings = append(siblings, m)
		} else {
			external = append(external, m)
		}
	}
	if len(external) > 0 {
		fmt.Fprintf(&b, "; missing from the local repository: %s. %s", strings.Join(external, ", "), t.fix)
	}
	if len(siblings) > 0 {
		verb := "are modules"
		if len(siblings) == 1 {
			verb = "is a module"
		}
		fmt.Fprintf(&b, "; %s %s of this build that the local repository does not have yet: run `%s` once", strings.Join(siblings, ", "), verb, t.installModules)
	}
	if len(out.missing) == 0 {
		errs := out.errors
		if len(errs) > 4 {
			errs = errs[:4]
		}
		if len(errs) > 0 {
			fmt.Fprintf(&b, ": %s", strings.Join(errs, " | "))
		}
		fmt.Fprintf(&b, ". Fix the build, or list the classpath in %s (\"classpath\" or \"classpathFile\")", ConfigFile)
	}
	return b.String()
}

// isModule reports whether an artifact (group:artifact:…) is one of the
// build's modules (group:artifact).
func isModule(artifact string, modules []string) bool {
	parts := strings.Split(artifact, ":")
	if len(parts) < 2 {
		return false
	}
	return slices.Contains(modules, parts[0]+":"+parts[1]) || slices.Contains(modules, ":"+parts[1])
}

// ownOutputsDropped removes the outputs of the project's own modules from
// entries — class directories (…/target/classes under dir, say) and files
// under dir not built yet (a Gradle sibling's build/libs jar): perfls
// compiles those sources itself.
func ownOutputsDropped(dir string, entries []string) []string {
	var out []string
	for _, e := range entries {
		rel, err := filepath.Rel(dir, e)
		if err == nil && !strings.HasPrefix(rel, "..") {
			st, err := os.Stat(e)
			if err != nil || (st.IsDir() && isOwnOutput(filepath.ToSlash(rel))) {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

func isOwnOutput(rel string) bool {
	for _, o := range buildOutputs {
		if rel == o || strings.HasSuffix(rel, "/"+o) {
			return true
		}
	}
	return false
}

// findWrapperOr returns dir/wrapper when it is an executable file, else the
// command on PATH.
func findWrapperOr(dir, wrapper, command, install string) (string, error) {
	w := filepath.Join(dir, wrapper)
	if st, err := os.Stat(w); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		return w, nil
	}
	p, err := findCommand(command)
	if err != nil {
		return "", fmt.Errorf("%s is not installed (no %s on PATH and no ./%s in %s), so perfls cannot read the dependencies; %s, or list the jars in %s \"classpath\" or \"classpathFile\"",
			command, command, wrapper, dir, install, ConfigFile)
	}
	return p, nil
}

// buildFiles lists the files named names under dir, skipping what SkipDir
// skips and source folders.
func buildFiles(dir string, names ...string) []string {
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if path != dir && (SkipDir(d.Name()) || d.Name() == "src") {
				return filepath.SkipDir
			}
			return nil
		}
		if slices.Contains(names, d.Name()) {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// stripANSI removes terminal colour sequences.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// addEntries appends the entries of a classpath line to out, skipping
// duplicates.
func addEntries(out []string, line string) []string {
	for _, e := range filepath.SplitList(strings.TrimSpace(line)) {
		if e = strings.TrimSpace(e); e != "" && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// userHomeFile is a file in the home directory, "" when there is none.
func userHomeFile(rel string) string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, filepath.FromSlash(rel))
}

// classpathFromFiles fills in p's classpath without running its build
// tool, for a workspace that is not trusted: the tool's cached answer for
// the build files as they are now (from a trusted run); else, for Maven,
// the poms and the user's local repository read as files
// (MavenClasspathFromFiles); else nothing. Whatever is left out is said in
// ClasspathProblem with what trust would add.
func (p *Project) classpathFromFiles(ctx context.Context, cacheDir string) {
	tool := toolFor(p.BuildTool)
	if tool == nil || p.resolved {
		return
	}
	p.resolved = true
	_, p.declaresDeps = tool.key(p.Dir)
	if rec := tool.cached(p.Dir, cacheDir); rec != nil && rec.Problem == "" {
		p.Classpath = append(p.Classpath[:0:0], rec.Entries...)
		p.ClasspathFrom = fmt.Sprintf("%s (its answer of %s, kept by perfls)", tool.name, rec.Time.Format("2006-01-02 15:04"))
		return
	}
	exe, err := tool.exe(p.Dir)
	shown := strings.ToLower(tool.name)
	if err == nil {
		shown = tool.shown(p.Dir, exe)
	}
	refused := trust.Check(ctx, "run "+shown)
	if tool == maven {
		missing, err := p.mavenFromFiles()
		switch {
		case err != nil:
			p.ClasspathProblem = fmt.Sprintf("%v, and the poms could not be read as files: %v", refused, err)
		case len(missing) == 0:
			return // complete without the tool
		default:
			p.ClasspathProblem = fmt.Sprintf("%v, and the poms and the local repository, read as files, leave out %s",
				refused, strings.Join(firstFew(missing, 3), "; "))
		}
		p.ClasspathProblem += fmt.Sprintf("; references into those jars stay unchecked: a trusted run lets Maven resolve them (perfls keeps the answer), or %s can name them (\"classpathFile\")", ConfigFile)
		return
	}
	p.ClasspathProblem = fmt.Sprintf("%v; references into its jars stay unchecked: a trusted run lets %s resolve them (perfls keeps the answer), or %s can name them (\"classpathFile\")",
		refused, tool.name, ConfigFile)
}

// mavenFromFiles sets p's classpath from its poms and the user's local
// Maven repository, read as files; missing lists what they leave out.
func (p *Project) mavenFromFiles() (missing []string, err error) {
	repo, err := MavenLocalRepository()
	if err != nil {
		return nil, err
	}
	cp, missing, err := MavenClasspathFromFiles(p.Dir, repo)
	if err != nil {
		return nil, err
	}
	p.Classpath = ownOutputsDropped(p.Dir, cp)
	p.ClasspathFrom = "pom.xml and the local Maven repository " + repo + ", read as files"
	return missing, nil
}

// firstFew is up to n of items, with a count of the rest.
func firstFew(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(items[:n:n], fmt.Sprintf("%d more", len(items)-n))
}
