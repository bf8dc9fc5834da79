package measure

import (
	"embed"
	"io/fs"
)

// javalib holds perfls's own Java library: the annotations and SPLController
// users put on their classpath (package dev.perfls) and the harness support
// classes (package dev.perfls.internal).
//
//go:embed javalib
var javalib embed.FS

// LibrarySources returns the Java sources of perfls's library, rooted so that
// paths look like "dev/perfls/SPL.java".
func LibrarySources() fs.FS {
	sub, err := fs.Sub(javalib, "javalib")
	if err != nil { // cannot happen: the directory is embedded
		return javalib
	}
	return sub
}

// librarySourceFiles lists the library's .java files (slash paths relative
// to the library root), sorted.
func librarySourceFiles() ([]string, error) {
	var files []string
	err := fs.WalkDir(LibrarySources(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && len(path) > 5 && path[len(path)-5:] == ".java" {
			files = append(files, path)
		}
		return nil
	})
	return files, err
}
