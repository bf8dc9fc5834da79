package measure

import (
	"os"
	"path/filepath"
	"strings"
)

// gradleFiles are the files that make a directory a Gradle build.
var gradleFiles = []string{"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"}

// gradleInitScript adds the task perflsClasspath to every project: it prints
// the project's path, the files of its test runtime classpath (else its
// runtime classpath) and the dependencies that did not resolve, one a line,
// resolving leniently so that one missing artifact does not hide the rest.
// Groovy that Gradle 4.4 to 8 accept.
const gradleInitScript = `allprojects { p ->
    p.task('perflsClasspath') {
        doLast {
            println "PERFLS-PROJECT ${p.path}"
            def c = ['testRuntimeClasspath', 'runtimeClasspath', 'testRuntime', 'runtime']
                .collect { p.configurations.findByName(it) }
                .find { it != null && (!it.hasProperty('canBeResolved') || it.canBeResolved) }
            if (c == null) {
                return
            }
            def lenient = c.resolvedConfiguration.lenientConfiguration
            lenient.unresolvedModuleDependencies.each { d ->
                println "PERFLS-MISSING ${d.selector.group}:${d.selector.name}:${d.selector.version}"
            }
            lenient.files.each { f -> println "PERFLS-CP ${f.absolutePath}" }
        }
    }
}
`

// gradle reads a Gradle project's classpath with an init script:
//
//	gradle -q --console=plain [--offline] --continue -I perfls-init.gradle perflsClasspath
//
// run in the project root with ./gradlew when the project has one.
var gradle = &buildTool{
	name: "Gradle",
	exe: func(dir string) (string, error) {
		return findWrapperOr(dir, "gradlew", "gradle", "install Gradle or add its wrapper (gradle wrapper)")
	},
	keyFiles: func(dir string) []string {
		files := buildFiles(dir, append([]string{"gradle.properties", "libs.versions.toml"}, gradleFiles...)...)
		files = append(files, filepath.Join(dir, "gradle", "wrapper", "gradle-wrapper.properties"))
		for _, f := range []string{".gradle/gradle.properties", ".gradle/init.gradle"} {
			if f := userHomeFile(f); f != "" {
				files = append(files, f)
			}
		}
		return files
	},
	env:            []string{"GRADLE_OPTS", "GRADLE_USER_HOME", "JAVA_HOME"},
	args:           gradleArgs,
	parse:          parseGradleOutput,
	declares:       func(s string) bool { return strings.Contains(s, "dependencies") },
	fix:            "Run `gradle dependencies` (or ./gradlew dependencies) once with network access, or list the jars in " + ConfigFile + " \"classpath\"",
	installModules: "gradle publishToMavenLocal",
}

// gradleArgs writes the init script into scratch and returns Gradle's
// arguments.
func gradleArgs(offline bool, scratch string) ([]string, error) {
	script := filepath.Join(scratch, "perfls-init.gradle")
	if err := os.WriteFile(script, []byte(gradleInitScript), 0o644); err != nil {
		return nil, err
	}
	// No daemon: a Gradle daemon left behind (1 GiB, for hours) would
	// disturb the measurements that follow; the answer is cached anyway.
	args := []string{"-q", "--console=plain", "--continue", "--no-daemon"}
	if offline {
		args = append(args, "--offline")
	}
	return append(args, "-I", script, "perflsClasspath"), nil
}

// parseGradleOutput reads the init script's lines and Gradle's failure
// report ("* What went wrong:" and the lines after it).
func parseGradleOutput(out string) toolOutput {
	var o toolOutput
	wrong := false
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		line = strings.TrimRight(line, " \t")
		switch {
		case strings.HasPrefix(line, "PERFLS-PROJECT "):
			o.modules = append(o.modules, strings.TrimPrefix(line, "PERFLS-PROJECT "))
		case strings.HasPrefix(line, "PERFLS-CP "):
			o.entries = appendNew(o.entries, strings.TrimPrefix(line, "PERFLS-CP "))
		case strings.HasPrefix(line, "PERFLS-MISSING "):
			o.missing = appendNew(o.missing, strings.TrimPrefix(line, "PERFLS-MISSING "))
		case line == "* What went wrong:":
			wrong = true
		case strings.HasPrefix(line, "* Try:") || strings.HasPrefix(line, "* Get more help") || strings.HasPrefix(line, "BUILD FAILED"):
			wrong = false
		case wrong && strings.TrimSpace(line) != "":
			o.errors = append(o.errors, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), ">")))
		}
	}
	return o
}
