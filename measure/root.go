package measure

import (
	"os"
	"path/filepath"
)

// rootMarkers are the files that make a directory a project root.
var rootMarkers = []string{ConfigFile, "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", ".git"}

// ProjectRoot is the project that holds dir: the nearest directory at or
// above dir with a perfls.json, a Maven or Gradle build file or a .git,
// else dir itself. The editor indexes and measures that directory.
func ProjectRoot(dir string) string {
	for cur := dir; ; {
		for _, marker := range rootMarkers {
			if _, err := os.Stat(filepath.Join(cur, marker)); err == nil {
				return cur
			}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return dir
		}
		cur = parent
	}
}
