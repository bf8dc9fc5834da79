package measure

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/perfls/perfls/analysis/measured"
)

var (
	// javac: "package org.foo does not exist"
	missingPackageRE = regexp.MustCompile(`^package ([\w.$]+) does not exist`)
	// javac: "cannot access org.foo.Bar; class file for org.foo.Bar not found"
	missingClassFileRE = regexp.MustCompile(`class file for ([\w.$]+) not found`)
	// javac: "cannot find symbol; symbol: class Bar; location: …"
	missingClassRE = regexp.MustCompile(`^cannot find symbol; symbol:\s+class ([\w$]+)`)
)

// DependencyHint explains javac errors that name a missing package or
// class: where the project's classpath came from and how to add the
// library that provides it. "" when no error is of that kind.
func DependencyHint(p *Project, msgs []measured.CompilerMessage) string {
	var names []string
	for _, m := range msgs {
		if m.Severity != "error" {
			continue
		}
		for _, re := range []*regexp.Regexp{missingPackageRE, missingClassFileRE, missingClassRE} {
			if s := re.FindStringSubmatch(m.Message); s != nil {
				names = appendNew(names, s[1])
				break
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	what := strings.Join(names, ", ")
	if len(names) > 3 {
		what = fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "javac cannot find %s: ", what)
	switch {
	case p.ClasspathFrom != "":
		fmt.Fprintf(&b, "the classpath (%d entries) came from %s", len(p.Classpath), p.ClasspathFrom)
	case p.BuildTool != "":
		fmt.Fprintf(&b, "the project has no classpath, as %s gave none", toolFor(p.BuildTool).name)
	default:
		fmt.Fprintf(&b, "the project has no classpath: no %s \"classpath\" and no pom.xml or build.gradle in %s", ConfigFile, p.Dir)
	}
	b.WriteString(". ")
	switch {
	case p.ClasspathProblem != "":
		fmt.Fprintf(&b, "%s.", strings.TrimSuffix(p.ClasspathProblem, "."))
	case p.BuildTool == "maven":
		fmt.Fprintf(&b, "If a library provides it, add it as a <dependency> in pom.xml (run `mvn dependency:resolve` once with network access so that the local repository has it), or list its jar in %s \"classpath\".", ConfigFile)
	case p.BuildTool == "gradle":
		fmt.Fprintf(&b, "If a library provides it, add it to the dependencies { } of build.gradle (run `gradle dependencies` once with network access so that Gradle's cache has it), or list its jar in %s \"classpath\".", ConfigFile)
	default:
		fmt.Fprintf(&b, "If a library provides it, add its jar or class folder to %s \"classpath\" (globs and ~ allowed, e.g. {\"classpath\": [\"lib/*.jar\", \"~/.m2/repository/org/foo/foo/1.0/foo-1.0.jar\"]}) or name a classpath file in \"classpathFile\".", ConfigFile)
	}
	return b.String()
}
