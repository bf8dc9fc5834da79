package engine

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfls/perfls/internal/atomicfile"
	"github.com/perfls/perfls/measure"
)

// AnnotationsJar writes perfls's annotations jar (measure.WriteLibraryJar)
// to path.
func (e *Engine) AnnotationsJar(ctx context.Context, path string) error {
	var b bytes.Buffer
	if err := measure.WriteLibraryJar(ctx, e.cfg.CacheDir, &b); err != nil {
		return err
	}
	if err := atomicfile.Write(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Annotations writes the annotations jar to jar, or with install puts it
// into the local Maven repository repo (InstallAnnotations), and returns
// the path of the jar it wrote: perfls annotations.
func (e *Engine) Annotations(ctx context.Context, jar string, install bool, repo string) (string, error) {
	if install {
		return e.InstallAnnotations(ctx, repo)
	}
	return jar, e.AnnotationsJar(ctx, jar)
}

// InstallAnnotations installs the annotations jar and its pom into the
// local Maven repository repo ("" = ~/.m2/repository), where Maven and
// Gradle's mavenLocal() find it, and returns the jar's path.
func (e *Engine) InstallAnnotations(ctx context.Context, repo string) (string, error) {
	if repo == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the local Maven repository: %w", err)
		}
		repo = filepath.Join(home, ".m2", "repository")
	}
	dir := filepath.Join(append(append([]string{repo}, strings.Split(measure.LibraryGroup, ".")...), measure.LibraryArtifact, measure.LibraryVersion)...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("install the annotations: %w", err)
	}
	base := filepath.Join(dir, measure.LibraryArtifact+"-"+measure.LibraryVersion)
	if err := atomicfile.Write(base+".pom", measure.LibraryPOM(), 0o644); err != nil {
		return "", fmt.Errorf("install the annotations: %w", err)
	}
	if err := e.AnnotationsJar(ctx, base+".jar"); err != nil {
		return "", err
	}
	return base + ".jar", nil
}

// AnnotationsDependency is how a build names the jar, for the user.
func AnnotationsDependency() string {
	return fmt.Sprintf(`Maven:  <dependency><groupId>%[1]s</groupId><artifactId>%[2]s</artifactId><version>%[3]s</version><scope>provided</scope></dependency>
Gradle: compileOnly '%[1]s:%[2]s:%[3]s'   (with mavenLocal() among the repositories)`, measure.LibraryGroup, measure.LibraryArtifact, measure.LibraryVersion)
}
