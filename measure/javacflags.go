package measure

// The project's javac settings beyond the classpath: perfls.json's
// "release" and "javacArgs" and the command line's --release and
// --javac-arg, for old code on a newer JDK (docs/revisions.md).

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/perfls/perfls/analysis/measured"
)

// CheckRelease refuses a "release" that is no Java feature release javac
// could know: 0 is "not set".
func CheckRelease(r int) error {
	if r != 0 && (r < 6 || r > 99) {
		return fmt.Errorf("%d is not a Java release: give a feature release such as 8 or 11 (or leave it out)", r)
	}
	return nil
}

// CheckJavacArgs refuses javac flags that perfls sets itself (where the
// classes go, the classpath, the encoding, the release: "release" and
// --release set that) and anything that is not a flag: an argument file
// (@file) or a source would change what is compiled.
func CheckJavacArgs(args []string) error {
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		switch {
		case !strings.HasPrefix(a, "-"):
			return fmt.Errorf("%q is not a javac flag (flags start with -, e.g. -Xlint:none)", a)
		case slices.Contains([]string{"-d", "-cp", "-classpath", "--class-path", "-encoding", "-sourcepath", "--source-path", "-implicit:none"}, name):
			return fmt.Errorf("%q is set by perfls (the output directory, classpath, encoding and sources are its own; give dependencies in \"classpath\")", a)
		case slices.Contains([]string{"--release", "-source", "--source", "-target", "--target", "-Xmaxerrs"}, name):
			return fmt.Errorf("%q: give the Java release in \"release\" (or --release N), which sets source and target together", a)
		case strings.HasPrefix(a, "-J"):
			return fmt.Errorf("%q would change javac's own JVM: not allowed", a)
		}
	}
	return nil
}

// ApplyOptions makes the project's javac settings those of a measurement
// with opt: its release (opt.Release, else perfls.json's), lowered to the
// forked JVM's when that is older (ForkRelease), and perfls.json's
// "javacArgs" followed by opt.JavacArgs.
func (p *Project) ApplyOptions(ctx context.Context, opt Options) error {
	if err := CheckRelease(opt.Release); err != nil {
		return fmt.Errorf("--release: %w", err)
	}
	if err := CheckJavacArgs(opt.JavacArgs); err != nil {
		return fmt.Errorf("--javac-arg: %w", err)
	}
	if opt.Release > 0 {
		p.Release, p.releaseSet = opt.Release, true
	}
	p.JavacArgs = append(slices.Clone(p.JavacArgs), opt.JavacArgs...)
	fork, err := ForkRelease(ctx, opt)
	if err != nil {
		return err
	}
	if fork > 0 && (p.Release == 0 || fork < p.Release) {
		p.Release, p.releaseSet = fork, false
	}
	return nil
}

// javacFlags are the settings of one javac run besides its files.
type javacFlags struct {
	release int
	// strict: the release was asked for, so a javac that cannot compile
	// for it is an error rather than passed over.
	strict bool
	args   []string
}

func (p *Project) javacFlags() javacFlags {
	return javacFlags{release: p.Release, strict: p.releaseSet, args: p.JavacArgs}
}

// minRelease is the oldest release javac of a JDK's feature release
// compiles for (JEP 182: one in, one out every few releases).
func minRelease(major int) int {
	switch {
	case major >= 20:
		return 8
	case major >= 12:
		return 7
	default:
		return 6
	}
}

// releaseError says javac cannot compile for a release the project asks for.
func releaseError(j *jdk, release int) error {
	return fmt.Errorf("javac %d cannot compile for release %d (it compiles for %d and later): set \"release\" in %s (or --release) to %d or later, or run perfls with an older JDK (JAVA_HOME, or PATH)",
		j.major, release, minRelease(j.major), ConfigFile, minRelease(j.major))
}

// jdkAdded are methods the JDK added to its types in a release, that old
// code may declare itself with another access or return type: compiled
// for a newer release, such a class clashes with the JDK's method.
var jdkAdded = map[string]int{
	"List.sort": 8, "List.replaceAll": 8, "Collection.removeIf": 8, "Collection.stream": 8, "Collection.parallelStream": 8,
	"Collection.spliterator": 8, "Iterable.forEach": 8, "Iterable.spliterator": 8, "Iterator.forEachRemaining": 8, "Iterator.remove": 8,
	"Map.getOrDefault": 8, "Map.forEach": 8, "Map.replaceAll": 8, "Map.putIfAbsent": 8, "Map.remove": 8, "Map.replace": 8,
	"Map.computeIfAbsent": 8, "Map.computeIfPresent": 8, "Map.compute": 8, "Map.merge": 8,
	"Comparator.reversed": 8, "Comparator.thenComparing": 8, "CharSequence.chars": 8, "CharSequence.codePoints": 8,
	"InputStream.transferTo": 9, "InputStream.readAllBytes": 9, "InputStream.readNBytes": 9, "Reader.transferTo": 10,
	"Collection.toArray": 11, "InputStream.skipNBytes": 12, "CharSequence.isEmpty": 15,
	"List.reversed": 21, "List.addFirst": 21, "List.addLast": 21, "List.getFirst": 21, "List.getLast": 21,
	"List.removeFirst": 21, "List.removeLast": 21, "Deque.reversed": 21, "SortedSet.reversed": 21, "SortedMap.reversed": 21,
}

var (
	// javac: "sort(Comparator<? super Content>) in ContentList cannot
	// implement sort(Comparator<? super E>) in List; attempting to assign
	// weaker access privileges; was public"
	clashRE = regexp.MustCompile(`^(\w+)\(.*\) in ([\w.$]+) cannot (?:implement|override) \w+\(.*\) in ([\w.$]+)`)
	// javac: "as of release 9, '_' is a keyword, and may not be used as an identifier"
	asOfRE = regexp.MustCompile(`as of release (\d+), '(\w+)' is a`)
)

// JDKHint explains javac errors that say the code is older than the JDK
// compiling it — a method of its own clashes with one the JDK added since,
// or it uses a word that became a keyword — and names the setting that
// compiles it as it was written ("release"). javac is the compiling JDK's
// feature release; "" when no error is of that kind.
func JDKHint(p *Project, javac int, msgs []measured.CompilerMessage) string {
	release, why := 0, ""
	older := func(r int, reason string) {
		if release == 0 || r < release {
			release, why = r, reason
		}
	}
	for _, m := range msgs {
		if m.Severity != "error" {
			continue
		}
		if s := clashRE.FindStringSubmatch(m.Message); s != nil {
			jdkType := s[3][strings.LastIndexAny(s[3], ".$")+1:]
			if since, ok := jdkAdded[jdkType+"."+s[1]]; ok {
				older(since-1, fmt.Sprintf("%s in %s clashes with %s.%s, which Java %d added to the JDK", s[1], s[2], jdkType, s[1], since))
			} else if !declares(p, jdkType) {
				older(8, fmt.Sprintf("%s in %s clashes with %s.%s, likely a method a newer JDK added", s[1], s[2], jdkType, s[1]))
			}
		}
		if s := asOfRE.FindStringSubmatch(m.Message); s != nil {
			since, _ := strconv.Atoi(s[1])
			older(since-1, fmt.Sprintf("it uses '%s', a keyword since Java %d", s[2], since))
		}
	}
	if release == 0 || p.Release > 0 && p.Release <= release {
		return ""
	}
	if javac > 0 && release >= javac {
		return ""
	}
	hint := fmt.Sprintf("likely cause: the code was written for an older JDK than javac %d: %s. Compile it as Java %d: \"release\": %d in %s, or --release %d",
		javac, why, release, release, ConfigFile, release)
	if javac > 0 && release < minRelease(javac) {
		newest := map[int]int{6: 11, 7: 19}[release]
		hint += fmt.Sprintf(", with a JDK that compiles for it (javac %d compiles for %d and later; JDK %d and older compile for %d): JAVA_HOME or PATH", javac, minRelease(javac), newest, release)
	}
	return hint
}

// declares reports whether one of the project's sources is named after
// type: then a clash with it is the project's own, not the JDK's.
func declares(p *Project, typ string) bool {
	for _, s := range p.Sources {
		if strings.TrimSuffix(s[strings.LastIndexAny(s, `/\`)+1:], ".java") == typ {
			return true
		}
	}
	return false
}
