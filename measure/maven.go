package measure

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// maven reads a Maven project's classpath with
//
//	mvn -B [-o] -fae dependency:build-classpath -Dmdep.includeScope=test
//
// run in the project root (./mvnw when the project has one): every module of
// the reactor prints its test classpath (compile, runtime, provided and test
// dependencies) after "Dependencies classpath:"; perfls takes their union.
// The output goes to the log, not to -Dmdep.outputFile, so that nothing is
// written into the project and every module is read from one run.
var maven = &buildTool{
	name: "Maven",
	exe: func(dir string) (string, error) {
		return findWrapperOr(dir, "mvnw", "mvn", "install Maven (apt-get install maven)")
	},
	keyFiles: func(dir string) []string {
		// The poms, and what chooses the settings and local repository.
		files := buildFiles(dir, "pom.xml")
		files = append(files, filepath.Join(dir, ".mvn", "maven.config"), filepath.Join(dir, ".mvn", "jvm.config"))
		if f := userHomeFile(".m2/settings.xml"); f != "" {
			files = append(files, f)
		}
		return files
	},
	env: []string{"MAVEN_OPTS", "MAVEN_ARGS", "M2_HOME", "MAVEN_HOME", "JAVA_HOME"},
	args: func(offline bool, _ string) ([]string, error) {
		return mavenArgs(offline), nil
	},
	parse:          parseMavenOutput,
	declares:       func(s string) bool { return strings.Contains(s, "<dependency>") },
	fix:            "Run `mvn dependency:resolve` once with network access (it also fetches the maven-dependency-plugin), or list the jars in " + ConfigFile + " \"classpath\"",
	installModules: "mvn install -DskipTests",
}

// mavenArgs are mvn's arguments: batch mode (no colours, no prompts), every
// module even when one fails (-fae).
func mavenArgs(offline bool) []string {
	args := []string{"-B", "-fae", "-Dstyle.color=never"}
	if offline {
		args = append(args, "-o")
	}
	return append(args, "dependency:build-classpath", "-Dmdep.includeScope=test")
}

var (
	// [INFO] ---------------------< org.acme:demo >----------------------
	mavenModuleRE = regexp.MustCompile(`^\[INFO\] -+< ([^ >]+) >-+$`)
	// group:artifact:type[:classifier]:version, as Maven names artifacts.
	mavenArtifactRE = regexp.MustCompile(`[A-Za-z0-9_.\-]+:[A-Za-z0-9_.\-]+:(?:jar|pom|war|ear|zip|aar|bundle|test-jar|maven-plugin)(?::[A-Za-z0-9_.\-]+)?:[A-Za-z0-9_.\-]+`)
	// "for project g:a:jar:v" names the failing module, not a missing artifact.
	mavenProjectRE = regexp.MustCompile(`(?:project|for) [A-Za-z0-9_.\-]+:[A-Za-z0-9_.\-]+:[a-z\-]+:[A-Za-z0-9_.\-]+`)
	// No plugin found for prefix 'dependency' …
	mavenNoPluginRE = regexp.MustCompile(`No plugin found for prefix '([^']+)'`)
)

// parseMavenOutput reads mvn's log: the modules it built, each module's
// "Dependencies classpath:" line, its errors and the artifacts they name.
func parseMavenOutput(out string) toolOutput {
	var o toolOutput
	lines := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t")
		if m := mavenModuleRE.FindStringSubmatch(line); m != nil {
			o.modules = append(o.modules, m[1])
			continue
		}
		if strings.HasSuffix(line, "Dependencies classpath:") {
			if i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "[") {
				i++
				o.entries = addEntries(o.entries, lines[i])
			}
			continue
		}
		msg, ok := strings.CutPrefix(line, "[ERROR] ")
		if !ok || strings.TrimSpace(msg) == "" || strings.HasPrefix(msg, "To see the full") || strings.HasPrefix(msg, "Re-run Maven") ||
			strings.HasPrefix(msg, "For more information") || strings.HasPrefix(msg, "[Help") || strings.HasPrefix(msg, "-> [Help") ||
			strings.HasPrefix(msg, "After correcting") || strings.HasPrefix(msg, "  mvn <args>") {
			continue
		}
		msg = strings.TrimSuffix(strings.TrimSpace(msg), " -> [Help 1]")
		o.errors = append(o.errors, msg)
		if m := mavenNoPluginRE.FindStringSubmatch(msg); m != nil {
			o.missing = appendNew(o.missing, "the maven-"+m[1]+"-plugin")
		}
		clean := mavenProjectRE.ReplaceAllString(msg, "")
		for _, a := range mavenArtifactRE.FindAllString(clean, -1) {
			o.missing = appendNew(o.missing, a)
		}
	}
	return o
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// findCommand finds a command on PATH, as an absolute path.
func findCommand(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", err
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p, nil
}
