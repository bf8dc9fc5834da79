package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// -update rewrites the README's sample output (TestREADMEOutput). The
// package has one -update flag, which other tests of generated pages share:
// it is defined here unless a package-level variable defined it first
// (variables are initialised before init functions run).
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite generated parts of README.md and docs/ with what the commands print now")
	}
}

// updating says whether -update was given.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

const readmePath = "../../README.md"

// readmeSession is a console block of the README: the command after "$ "
// and the output lines below it, up to the next command or the block's end.
type readmeSession struct {
	command       []string
	output        string
	start, end    int // byte offsets of the output in the README
	wantExitCode  int
	hasExitStatus bool
}

var consoleFence = regexp.MustCompile("(?ms)^```console\n(.*?)^```\n")

// readmeSessions reads the README's console blocks. A block holds one
// command; the exit status is the one the sentence after the block names
// ("exits with status N").
func readmeSessions(t *testing.T, text string) []readmeSession {
	t.Helper()
	var out []readmeSession
	for _, m := range consoleFence.FindAllStringSubmatchIndex(text, -1) {
		body := text[m[2]:m[3]]
		cmd, rest, ok := strings.Cut(body, "\n")
		line, isCmd := strings.CutPrefix(cmd, "$ ")
		if !ok || !isCmd || strings.Contains(rest, "\n$ ") || strings.HasPrefix(rest, "$ ") {
			t.Fatalf("README: a console block must start with one \"$ command\" line and hold only its output:\n%s", body)
		}
		s := readmeSession{command: strings.Fields(line), output: rest, start: m[2] + len(cmd) + 1, end: m[3]}
		after := text[m[1]:]
		if i := strings.Index(after, "\n\n"); i >= 0 {
			after = after[:i]
		}
		if e := regexp.MustCompile(`exits with status (\d)`).FindStringSubmatch(after); e != nil {
			s.wantExitCode, _ = strconv.Atoi(e[1])
			s.hasExitStatus = true
		}
		out = append(out, s)
	}
	return out
}

// volatile are the parts of perfls's output that change from run to run
// or machine to machine: figures per operation, ratios and their intervals,
// p-values, seconds, the JVM's description.
var volatile = []struct {
	re   *regexp.Regexp
	mask string
}{
	{regexp.MustCompile(`[0-9][0-9.e+-]* (ns|µs|ms|s)/op`), "… /op"},
	{regexp.MustCompile(`ratio [^ ]+ \[[^\]]*\]`), "ratio … […]"},
	{regexp.MustCompile(`p=[0-9][0-9.e+-]*`), "p=…"},
	{regexp.MustCompile(`p < [0-9][0-9.e+-]*\)`), "p < …)"},
	// Forks are added while a formula is undecided, which depends on the
	// noise of the day: whether any were is no part of the example.
	{regexp.MustCompile(`; [0-9]+ forks added to decide`), ""},
	{regexp.MustCompile(`[0-9]+(\.[0-9]+)?s\)`), "…s)"},
	{regexp.MustCompile(`(?m)^JVM: .*?; heap`), "JVM: …; heap"},
	{regexp.MustCompile(`(?m)^JVM flags: -XX:ErrorFile=\S*`), "JVM flags: -XX:ErrorFile=…"},
}

func maskVolatile(s string) string {
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.mask)
	}
	return s
}

// TestREADMEOutput runs every command the README shows with its output, as
// a reader would from the repository root (embedded defaults, a cache of
// its own), and fails when what it prints now differs from the README in
// anything but the volatile parts; -update rewrites the README's output.
// The cache directory is shown as a user's default, ~/.cache/perfls.
func TestREADMEOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("forks JVMs")
	}
	// Its one command is TestCheckQuickstart's: they share a measurement.
	cacheDir := sharedCache(t, quickstartCache)
	raw, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	sessions := readmeSessions(t, text)
	if len(sessions) == 0 {
		t.Fatal("README.md shows no console session; this test compares them with the real output")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	for i := len(sessions) - 1; i >= 0; i-- { // from the end, so that offsets stay valid on -update
		s := sessions[i]
		if s.command[0] != "perfls" {
			t.Fatalf("README command %q does not start with perfls", strings.Join(s.command, " "))
		}
		code, out, errs := runCLI(t, s.command[1:]...)
		if !updating() && maskVolatile(strings.ReplaceAll(out, cacheDir, "~/.cache/perfls")) != maskVolatile(s.output) && strings.Contains(out, "\nundecided ") {
			// An instance undecided on a busy machine is an honest outcome
			// but not the README's: measure once more before calling the
			// README stale.
			t.Logf("%s: an instance undecided; measuring again\n%s", strings.Join(s.command, " "), out)
			code, out, errs = runCLI(t, append(s.command[1:len(s.command):len(s.command)], "--fresh")...)
		}
		if s.hasExitStatus && code != s.wantExitCode {
			t.Errorf("%s: exit %d, the README says %d\nstderr:\n%s", strings.Join(s.command, " "), code, s.wantExitCode, errs)
		}
		got := strings.ReplaceAll(out, cacheDir, "~/.cache/perfls")
		if updating() {
			text = text[:s.start] + got + text[s.end:]
			continue
		}
		if maskVolatile(got) != maskVolatile(s.output) {
			t.Errorf("README.md's output of %q differs from what it prints now (volatile parts masked); "+
				"run go test ./cmd/perfls -run TestREADMEOutput -update and review the diff\n--- README\n%s--- now\n%s",
				strings.Join(s.command, " "), maskVolatile(s.output), maskVolatile(got))
		}
	}
	if updating() {
		if err := os.WriteFile(filepath.Join(root, "README.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The masks hide figures, never words: two outputs that differ in a verdict,
// a line number or a count still differ once masked.
func TestREADMEMaskKeepsVerdicts(t *testing.T) {
	line := "satisfied src/main/java/quickstart/Search.java:16 [n=10000]  SELF[lookups](10000) <= quickstart.Search#linearSearch[lookups](10000)  20.8 ns/op vs 1.57 µs/op  ratio 0.0133 [0.00637, 0.0475] (96.7 %)  p=0.994\n" +
		"4 satisfied, 2 violated, 0 undecided (α = 0.05 over up to 3 looks, 0.0167 each; 169.5s)\n"
	same := strings.NewReplacer("20.8 ns", "31 ns", "1.57 µs", "2.01 ms", "0.0133 [0.00637, 0.0475]", "1.2e+03 [4, 9]", "0.994", "0.5", "169.5s", "3s").Replace(line)
	if maskVolatile(same) != maskVolatile(line) {
		t.Errorf("figures not masked:\n%s\n%s", maskVolatile(line), maskVolatile(same))
	}
	for _, changed := range []string{
		strings.Replace(line, "satisfied src", "undecided src", 1),
		strings.Replace(line, "Search.java:16", "Search.java:15", 1),
		strings.Replace(line, "2 violated", "1 violated", 1),
		strings.Replace(line, "(96.7 %)", "(95 %)", 1),
		strings.Replace(line, "0.0167 each", "0.017 each", 1),
	} {
		if maskVolatile(changed) == maskVolatile(line) {
			t.Errorf("a change beyond figures is masked:\n%s", changed)
		}
	}
}

// The README fits on one screen and, like every page in docs/, names
// nothing a reader outside the project cannot see: no in-house labels, no
// link or path outside the repository, no link to a missing file.
func TestDocsSelfContained(t *testing.T) {
	raw, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "\n"); n > 150 {
		t.Errorf("README.md has %d lines; it should fit on one screen (≤ 150): move detail into docs/", n)
	}
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) < 5 {
		t.Fatalf("docs/*.md: %d pages, %v", len(pages), err)
	}
	inHouse := regexp.MustCompile(`(?i)\bseeds? ?\d{3}\b|\bseed ?(§|L\d)|\bthe seed\b|\bseed's\b|\bissues? #?\d+\b|\bthe thesis\b|\bthesis's\b|\bas before\b|\.\./shared|/work/|DESIGN\.md|\breference/\d{3}-|\bL\d{2,4}\b`)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, p := range append([]string{readmePath}, pages...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(p, "../../")
		for i, line := range strings.Split(string(b), "\n") {
			if m := inHouse.FindString(line); m != "" {
				t.Errorf("%s:%d: in-house reference %q: say what it is (a paper by author and year, a command, a date)", name, i+1, m)
			}
		}
		for _, label := range undefinedRuns(string(b)) {
			t.Errorf("%s: %q names a run this page does not describe (a line \"Run X, DATE …\", \"(run X, TIME …\" or a table row \"| X |\"): give its date and command", name, label)
		}
		for i, line := range strings.Split(withoutCode(string(b)), "\n") {
			for _, l := range link.FindAllStringSubmatch(line, -1) {
				if msg := checkLink(p, l[1]); msg != "" {
					t.Errorf("%s:%d: link %s: %s", name, i+1, l[1], msg)
				}
			}
		}
	}
}

// undefinedRuns are the "run X" labels of a page (a lab run named by a
// letter) that the page does not describe.
func undefinedRuns(page string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`\b[Rr]un ([A-Z])\b`).FindAllStringSubmatch(page, -1) {
		x := m[1]
		if seen[x] {
			continue
		}
		seen[x] = true
		defined := regexp.MustCompile(`(?m)^Run ` + x + `, |\(run ` + x + `,\s|^\| ` + x + ` \|`)
		if !defined.MatchString(page) {
			out = append(out, m[0])
		}
	}
	return out
}

var (
	fencedBlock = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```")
	codeSpan    = regexp.MustCompile("`[^`]*`")
)

// withoutCode blanks a page's code blocks and spans (SELF[w](n) is no link),
// keeping its line breaks.
func withoutCode(s string) string {
	return codeSpan.ReplaceAllStringFunc(fencedBlock.ReplaceAllStringFunc(s, blankLines), blankLines)
}

// blankLines keeps only the line breaks of m.
func blankLines(m string) string { return strings.Repeat("\n", strings.Count(m, "\n")) }

// checkLink says what is wrong with a link target in page, or "".
func checkLink(page, target string) string {
	if strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	if !strings.ContainsAny(target, "./#") {
		return "" // SPL outside a code span, as SELF[gen](n): an argument, not a link
	}
	file, anchor, _ := strings.Cut(target, "#")
	if file == "" {
		file = filepath.Base(page)
	}
	root, _ := filepath.Abs("../..")
	abs, _ := filepath.Abs(filepath.Join(filepath.Dir(page), file))
	if rel, err := filepath.Rel(root, abs); err != nil || strings.HasPrefix(rel, "..") || filepath.IsAbs(file) {
		return "outside the repository"
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		if info, serr := os.Stat(abs); serr == nil && info.IsDir() {
			return ""
		}
		return fmt.Sprintf("no such file (%v)", err)
	}
	if anchor != "" && strings.HasSuffix(file, ".md") && !slices.Contains(headingAnchors(string(b)), anchor) {
		return fmt.Sprintf("%s has no heading #%s", file, anchor)
	}
	return ""
}

// headingAnchors are the anchors GitHub gives a page's headings: lower
// case, punctuation dropped, spaces as hyphens, repeats numbered.
func headingAnchors(page string) []string {
	var out []string
	seen := map[string]int{}
	drop := regexp.MustCompile(`[^\p{L}\p{N}\s_-]`)
	for _, line := range strings.Split(fencedBlock.ReplaceAllStringFunc(page, blankLines), "\n") {
		h, ok := strings.CutPrefix(line, "#")
		if !ok {
			continue
		}
		h = strings.TrimLeft(h, "#")
		if !strings.HasPrefix(h, " ") {
			continue
		}
		slug := strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", slug, n))
		} else {
			out = append(out, slug)
		}
		seen[slug]++
	}
	return out
}

// The README's annotated method is the quickstart's binarySearch with the
// README's annotations: it must lint clean, so that a reader who copies it
// gets no error.
func TestREADMEMethodLints(t *testing.T) {
	fixture.Isolate(t)
	raw, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?ms)^```java\n(.*?)^```\n").FindStringSubmatch(string(raw))
	if m == nil {
		t.Fatal("README.md shows no Java method")
	}
	var annotations []string
	for _, line := range strings.Split(m[1], "\n") {
		if strings.HasPrefix(line, "@") {
			code, _, _ := strings.Cut(line, "  //") // the README's comments
			annotations = append(annotations, strings.TrimSpace(code))
		}
	}
	if len(annotations) < 2 || !strings.Contains(m[1], "binarySearch(") {
		t.Fatalf("README.md's method: want @Workload and @SPL on binarySearch, got %q", annotations)
	}
	src, err := os.ReadFile("../../examples/quickstart/src/main/java/quickstart/Search.java")
	if err != nil {
		t.Fatal(err)
	}
	old := regexp.MustCompile(`(?m)^    @SPL\(.*\n(    public static int binarySearch\()`)
	if !old.Match(src) {
		t.Fatal("examples/quickstart: binarySearch has no @SPL line before it; update this test")
	}
	java := old.ReplaceAllString(string(src), "    "+strings.Join(annotations, "\n    ")+"\n$1")
	java = strings.Replace(java, "import dev.perfls.SPL;", "import dev.perfls.SPL;\nimport dev.perfls.Workload;", 1)
	dir := fixture.Project(t, map[string]string{"src/main/java/quickstart/Search.java": java})
	code, out, errs := runCLI(t, "lint", dir)
	if code != exitOK || strings.TrimSpace(out) != "" {
		t.Errorf("the README's method does not lint clean: exit %d\n%s\n%s\n%s", code, out, errs, java)
	}
}

// CI runs the README's test command, so that what a newcomer runs is what
// CI checks: .ci/run's go test line is the one the README shows.
func TestCIRunsTheREADMETestCommand(t *testing.T) {
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Skipf("no .ci/run: %v", err)
	}
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, line := range strings.Split(string(ci), "\n") {
		if strings.HasPrefix(line, "go test ") {
			runs = append(runs, strings.TrimSpace(line))
		}
	}
	if len(runs) != 1 {
		t.Fatalf(".ci/run: %d go test lines %q, want the README's one", len(runs), runs)
	}
	if !regexp.MustCompile("(?m)^" + regexp.QuoteMeta(runs[0]) + "$").Match(readme) {
		t.Errorf(".ci/run runs %q, which README.md does not show on a line of its own", runs[0])
	}
}
