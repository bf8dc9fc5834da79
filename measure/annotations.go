package measure

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The Maven coordinates of perfls's library jar, which `perfls annotations`
// writes: the annotations (dev.perfls.SPL, Workload, Param, …),
// SPLController for workload loops, and the support classes they use.
// A project compiles against it; perfls's harness brings its own copy.
const (
	LibraryGroup    = "dev.perfls"
	LibraryArtifact = "perfls-annotations"
	LibraryVersion  = "0.1.0"
)

// LibraryPOM is the Maven pom of the library jar: no dependencies.
func LibraryPOM() []byte {
	return []byte(fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>%s</groupId>
  <artifactId>%s</artifactId>
  <version>%s</version>
  <packaging>jar</packaging>
  <name>perfls annotations</name>
  <description>@SPL performance formulas, @Workload bindings and SPLController for perfls</description>
</project>
`, LibraryGroup, LibraryArtifact, LibraryVersion))
}

// WriteLibraryJar compiles the library (for Java 11, as CompileLibrary
// does) and writes it to w as a jar: the class files, the sources beside
// them (so that IDEs show their documentation), a manifest and the pom
// under META-INF/maven, as Maven's own jars carry it.
func WriteLibraryJar(ctx context.Context, cacheDir string, w io.Writer) error {
	classes, err := CompileLibrary(ctx, cacheDir)
	if err != nil {
		return err
	}
	z := zip.NewWriter(w)
	stamp := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // reproducible jars
	add := func(name string, data []byte) error {
		f, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: stamp})
		if err == nil {
			_, err = f.Write(data)
		}
		return err
	}
	manifest := fmt.Sprintf("Manifest-Version: 1.0\r\nCreated-By: perfls\r\nAutomatic-Module-Name: dev.perfls\r\nImplementation-Version: %s\r\n\r\n", LibraryVersion)
	if err := add("META-INF/MANIFEST.MF", []byte(manifest)); err != nil {
		return fmt.Errorf("write the library jar: %w", err)
	}
	meta := "META-INF/maven/" + LibraryGroup + "/" + LibraryArtifact + "/"
	props := fmt.Sprintf("groupId=%s\nartifactId=%s\nversion=%s\n", LibraryGroup, LibraryArtifact, LibraryVersion)
	if err := add(meta+"pom.xml", LibraryPOM()); err != nil {
		return fmt.Errorf("write the library jar: %w", err)
	}
	if err := add(meta+"pom.properties", []byte(props)); err != nil {
		return fmt.Errorf("write the library jar: %w", err)
	}
	err = filepath.WalkDir(classes, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".class") {
			return err
		}
		rel, err := filepath.Rel(classes, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return add(filepath.ToSlash(rel), data)
	})
	if err == nil {
		err = fs.WalkDir(LibrarySources(), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(LibrarySources(), p)
			if err != nil {
				return err
			}
			return add(p, data)
		})
	}
	if err == nil {
		err = z.Close()
	}
	if err != nil {
		return fmt.Errorf("write the library jar: %w", err)
	}
	return nil
}
