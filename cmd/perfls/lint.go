package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/analysis/workspace/jdk"
	"github.com/perfls/perfls/measure"
)

func runLint(args []string, stdout, stderr io.Writer) (int, error) {
	fl := flag.NewFlagSet("lint", flag.ContinueOnError)
	fl.SetOutput(stderr)
	format := fl.String("format", "text", "output format: text or json")
	jdkSrc := fl.String("jdk-src", "", "`src.zip` of the JDK to check java.*/javax.* references against (default: $JAVA_HOME/lib/src.zip or the javac on PATH; \"none\" to skip)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "Usage: perfls lint [--format text|json] PATH...\n\nReports SPL syntax and semantic errors in .java and .spl files (directories are searched).\nExit status: 0 clean, 1 errors found, 2 usage or I/O error.")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage, nil
	}
	if *format != "text" && *format != "json" {
		return exitUsage, usageError{fmt.Sprintf("unknown --format %q (want text or json)", *format)}
	}
	if fl.NArg() == 0 {
		return exitUsage, usageError{"lint needs at least one file or directory"}
	}
	paths, err := sourceFiles(fl.Args())
	if err != nil {
		return exitUsage, err
	}
	diags := []workspace.Diagnostic{}
	var javaFiles []*javasrc.File
	var formulas []*workspace.Formula
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			return exitUsage, fmt.Errorf("lint: %w", err)
		}
		if strings.HasSuffix(p, ".spl") {
			fs, ds := workspace.SPLFile(p, string(src))
			formulas = append(formulas, fs...)
			diags = append(diags, ds...)
			continue
		}
		f, err := javasrc.Parse(p, src)
		if err != nil {
			return exitUsage, fmt.Errorf("lint %s: %w", p, err)
		}
		fs, ds := workspace.JavaFormulas(f)
		javaFiles = append(javaFiles, f)
		formulas = append(formulas, fs...)
		diags = append(diags, ds...)
	}
	// One index over every file given, so references resolve across them.
	opt := workspace.CheckOptions{}
	if *jdkSrc != "none" {
		path := *jdkSrc
		if path == "" {
			path, _ = jdk.Find() // no JDK sources: JDK references stay unchecked
		}
		if path != "" {
			z, err := jdk.Open(path)
			if err != nil {
				if *jdkSrc != "" {
					return exitUsage, fmt.Errorf("lint: %w", err)
				}
			} else {
				defer z.Close()
				opt.External = z
			}
		}
	}
	diags = append(diags, workspace.NewIndex(javaFiles).Check(formulas, opt)...)
	sort.SliceStable(diags, func(i, j int) bool {
		if diags[i].Path != diags[j].Path {
			return diags[i].Path < diags[j].Path
		}
		return diags[i].Span.Start < diags[j].Span.Start
	})
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(diags); err != nil {
			return exitUsage, err
		}
	} else {
		for _, d := range diags {
			fmt.Fprintln(stdout, d)
		}
	}
	for _, d := range diags {
		if d.Severity == workspace.Error {
			return exitViolated, nil
		}
	}
	return exitOK, nil
}

// sourceFiles expands directories into the .java and .spl files below them,
// skipping hidden directories and build outputs.
func sourceFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		if !info.IsDir() {
			out = append(out, a)
			continue
		}
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != a && measure.SkipDir(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(p, ".java") || strings.HasSuffix(p, ".spl") {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("search %s: %w", a, err)
		}
	}
	return out, nil
}
