// Command lintjdk prints the figures of issue 35 item 5 (lint without
// gaps) for a Java project whose classes extend JDK types, such as JDOM
// (fetch it apart and pass its core/src/java; never commit it): how many
// method references lint leaves unchecked without the JDK's classes and
// with them, and how long perfls lint takes with the JDK read from its
// src.zip, its lib/ct.sym or its lib/modules. Nothing is asserted; run it
// from the repository root:
//
//	go run ./bench/lintjdk -src DIR [-runs 5] [-jdk HOME]... [-spl FILE]
//
// LINTJDK_VERBOSE=1 lists the references left unchecked.
//
// The formulas are generated into a temporary .spl file, per class of the
// project that has a method: one reference to each of its own method
// names, one misspelt name (its first method's name with "x" appended),
// and, for a class with JDK supertypes, one method it inherits from them
// (the first public one of its nearest JDK supertype, found with the
// first JDK's runtime image). The JDK homes default to those under
// /usr/lib/jvm; each is read three ways, as a home holding only that file
// (linked): src.zip (when it has a real one), ct.sym, modules.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/analysis/workspace/jdk"
	"github.com/perfls/perfls/cache/declindex"
	"github.com/perfls/perfls/engine"
)

type homes []string

func (h *homes) String() string     { return strings.Join(*h, ",") }
func (h *homes) Set(v string) error { *h = append(*h, v); return nil }

func main() {
	src := flag.String("src", "", "the project's Java sources (e.g. JDOM's core/src/java)")
	runs := flag.Int("runs", 5, "timed lint runs per way of reading the JDK")
	keep := flag.String("spl", "", "also write the generated formulas to this file (to lint them with a perfls binary)")
	var jdks homes
	flag.Var(&jdks, "jdk", "a JDK home (repeatable; default: those under /usr/lib/jvm)")
	flag.Parse()
	if *src == "" {
		fmt.Fprintln(os.Stderr, "lintjdk: -src DIR is required (e.g. JDOM's core/src/java)")
		os.Exit(2)
	}
	if len(jdks) == 0 {
		jdks = installedJDKs()
	}
	if len(jdks) == 0 {
		fmt.Fprintln(os.Stderr, "lintjdk: no JDK found under /usr/lib/jvm; pass -jdk HOME")
		os.Exit(2)
	}
	if err := run(*src, jdks, *runs, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "lintjdk:", err)
		os.Exit(1)
	}
}

// installedJDKs are the JDK homes under /usr/lib/jvm with a runtime image,
// each once.
func installedJDKs() []string {
	cands, _ := filepath.Glob("/usr/lib/jvm/*")
	var out []string
	for _, c := range cands {
		real, err := filepath.EvalSymlinks(c)
		if err != nil || slices.Contains(out, real) {
			continue
		}
		if st, err := os.Stat(filepath.Join(real, "lib", "modules")); err == nil && st.Mode().IsRegular() {
			out = append(out, real)
		}
	}
	return out
}

// way is one way of reading the JDK: a home holding one of its files.
type way struct {
	name string // "jdk-17 ct.sym"
	home string // "" for no JDK
}

func run(src string, jdks []string, runs int, keep string) error {
	files, err := javaFiles(src)
	if err != nil {
		return err
	}
	parsed := declindex.ParseFiles(files, nil, nil)
	lines := 0
	for _, f := range parsed {
		lines += strings.Count(f.Src, "\n")
	}
	first, err := jdk.OpenHome(jdks[0])
	if err != nil {
		return err
	}
	spl, counts := formulas(parsed, first)
	first.Close()
	tmp, err := os.MkdirTemp("", "lintjdk")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	splPath := filepath.Join(tmp, "refs.spl")
	if err := os.WriteFile(splPath, []byte(spl), 0o644); err != nil {
		return err
	}
	if keep != "" {
		if err := os.WriteFile(keep, []byte(spl), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("project: %s, %d Java files, %d lines\n", src, len(parsed), lines)
	fmt.Printf("formulas: %d references: %d to own methods, %d misspelt (one a class), %d to methods inherited from JDK types; %d of the %d classes with a method have a JDK supertype besides Object\n\n",
		counts.own+counts.typo+counts.inherited, counts.own, counts.typo, counts.inherited, counts.jdkClasses, counts.typo)

	ways, err := linkedWays(jdks, tmp)
	if err != nil {
		return err
	}
	if err := lintTable(parsed, splPath, spl, ways, counts, runs); err != nil {
		return err
	}
	if err := lintWithTimes(src, splPath, ways, runs); err != nil {
		return err
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average: %s", b)
	}
	return nil
}

// linkedWays are the ways of reading the JDK: none, then, per home in jdks,
// each of its src.zip, ct.sym and modules linked alone into a home under
// tmp (with the home's release file).
func linkedWays(jdks []string, tmp string) ([]way, error) {
	ways := []way{{name: "no JDK (before: src.zip a dangling link)"}}
	for _, h := range jdks {
		label := filepath.Base(h)
		for _, file := range []string{"src.zip", "ct.sym", "modules"} {
			p := filepath.Join(h, "lib", file)
			if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
				continue
			}
			home := filepath.Join(tmp, label+"-"+file)
			if err := os.MkdirAll(filepath.Join(home, "lib"), 0o755); err != nil {
				return nil, err
			}
			if err := os.Symlink(p, filepath.Join(home, "lib", file)); err != nil {
				return nil, err
			}
			if rel, err := os.ReadFile(filepath.Join(h, "release")); err == nil {
				if err := os.WriteFile(filepath.Join(home, "release"), rel, 0o644); err != nil {
					return nil, err
				}
			}
			ways = append(ways, way{name: label + " " + file, home: home})
		}
	}
	return ways, nil
}

// lintTable prints, per way of reading the JDK, the references lint leaves
// unchecked, the typos and inherited methods it checks, and the median time
// of opening the JDK and linting through it over runs.
func lintTable(parsed []*javasrc.File, splPath, spl string, ways []way, counts formulaCounts, runs int) error {
	ix := workspace.NewIndex(parsed)
	splFormulas, _ := workspace.SPLFile(splPath, spl)
	fmt.Printf("%-42s %-40s %10s %13s %9s %24s\n", "JDK classes from", "read as", "unchecked", "typos caught", "inherited", "open + lint: wall / CPU")
	for _, w := range ways {
		var ext workspace.External
		what := "-"
		if w.home != "" {
			c, err := jdk.OpenHome(w.home)
			if err != nil {
				return fmt.Errorf("%s: %w", w.name, err)
			}
			ext, what = c, strings.TrimPrefix(c.String(), w.home+"/")
			defer c.Close()
		}
		// Each reference appears on both sides of its formula: count
		// references, not sides.
		unchecked := map[string]bool{}
		diags := ix.Lint(splFormulas, workspace.LintOptions{External: ext, Unchecked: func(u workspace.Unchecked) { unchecked[u.Ref] = true }})
		caught, inherited := map[string]bool{}, 0
		for _, d := range diags {
			if d.Code == workspace.CodeUnknownMethod && strings.Contains(d.Message, "x\"") {
				caught[d.Message] = true
			}
		}
		for ref := range counts.inheritedRefs {
			class, method, _ := strings.Cut(ref, "#")
			bad := false
			for _, d := range diags {
				bad = bad || strings.HasPrefix(d.Message, class+" has no method \""+method+"\"")
			}
			if !unchecked[ref] && !bad {
				inherited++
			}
		}
		if os.Getenv("LINTJDK_VERBOSE") != "" {
			for ref := range unchecked {
				fmt.Println("   unchecked:", ref)
			}
		}
		// The JDK's part of lint's time: opening it and linting through it,
		// fresh each time (as each perfls lint does).
		var ts, cpus []time.Duration
		for r := 0; r < runs; r++ {
			start, cpu := time.Now(), cpuTime()
			var ext workspace.External
			if w.home != "" {
				c, err := jdk.OpenHome(w.home)
				if err != nil {
					return err
				}
				ext = c
				defer c.Close()
			}
			ix.Lint(splFormulas, workspace.LintOptions{External: ext})
			ts, cpus = append(ts, time.Since(start)), append(cpus, cpuTime()-cpu)
		}
		fmt.Printf("%-42s %-40s %10d %6d of %3d %5d of %2d %11s / %10s\n", w.name, what, len(unchecked), len(caught), counts.typo, inherited, counts.inherited,
			median(ts).Round(time.Millisecond), median(cpus).Round(time.Millisecond))
	}
	return nil
}

// lintWithTimes prints the median wall and CPU time of engine.LintWith of
// src and the formulas at splPath per way of reading the JDK, the ways
// interleaved over runs.
func lintWithTimes(src, splPath string, ways []way, runs int) error {
	fmt.Printf("\nperfls lint of the project and the formulas (engine.LintWith as the CLI runs it, --jdk-src HOME; %d runs each, interleaved), medians:\n", runs)
	times, cpuTimes := map[string][]time.Duration{}, map[string][]time.Duration{}
	for r := 0; r < runs; r++ {
		for _, w := range ways {
			jdkSrc := w.home
			if jdkSrc == "" {
				jdkSrc = "none"
			}
			start, cpu := time.Now(), cpuTime()
			_, err := engine.LintWith(context.Background(), []string{src, splPath}, engine.LintConfig{JDKSrc: jdkSrc, NoClasspath: true})
			if err != nil {
				return fmt.Errorf("%s: %w", w.name, err)
			}
			times[w.name] = append(times[w.name], time.Since(start))
			cpuTimes[w.name] = append(cpuTimes[w.name], cpuTime()-cpu)
		}
	}
	for _, w := range ways {
		ts := times[w.name]
		fmt.Printf("%-42s wall %8s (min %8s, max %8s)  CPU %8s\n", w.name, median(ts).Round(time.Millisecond), slices.Min(ts).Round(time.Millisecond),
			slices.Max(ts).Round(time.Millisecond), median(cpuTimes[w.name]).Round(time.Millisecond))
	}
	return nil
}

// cpuTime is the process's user and system CPU time so far (GC workers
// included): steadier than wall time on a loaded machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ts []time.Duration) time.Duration {
	s := slices.Clone(ts)
	slices.Sort(s)
	return s[len(s)/2]
}

func javaFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".java") {
			out = append(out, p)
		}
		return err
	})
	return out, err
}

type formulaCounts struct {
	own, typo, inherited int
	jdkClasses           int             // classes with a JDK supertype
	inheritedRefs        map[string]bool // the references to inherited JDK methods
}

// formulas writes the references the figures count, one formula a line.
func formulas(files []*javasrc.File, jdkClasses jdk.Classes) (string, formulaCounts) {
	ix := workspace.NewIndex(files)
	var b strings.Builder
	n := formulaCounts{inheritedRefs: map[string]bool{}}
	ref := func(class, method string) {
		fmt.Fprintf(&b, "%s#%s(1) <= %s#%s(1)\n", class, method, class, method)
	}
	for _, f := range files {
		for _, t := range f.Types {
			if t.Local || t.Anonymous {
				continue
			}
			var names []string
			for _, m := range f.Methods {
				if m.Type == t && !m.IsConstructor && !slices.Contains(names, m.Name) {
					names = append(names, m.Name)
				}
			}
			if len(names) == 0 {
				continue
			}
			for _, name := range names {
				ref(t.QualifiedName, name)
				n.own++
			}
			ref(t.QualifiedName, names[0]+"x")
			n.typo++
			m, hasJDK := inheritedJDKMethod(ix, f, t, jdkClasses, names)
			if hasJDK {
				n.jdkClasses++
			}
			if m != "" {
				ref(t.QualifiedName, m)
				n.inherited++
				n.inheritedRefs[t.QualifiedName+"#"+m] = true
			}
		}
	}
	return b.String(), n
}

// inheritedJDKMethod is the first instance method of t's nearest JDK
// supertype (java.lang.Object aside) that t does not declare; "" when
// there is none. hasJDK tells that t has a JDK supertype at all.
func inheritedJDKMethod(ix *workspace.Index, f *javasrc.File, t *javasrc.Type, c jdk.Classes, own []string) (method string, hasJDK bool) {
	queue := []string{}
	for _, s := range t.Supers {
		queue = append(queue, ix.ClassName(f, t, s, c))
	}
	seen := map[string]bool{}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if seen[cur] {
			continue
		}
		seen[cur] = true
		if wt := ix.Type(cur); wt != nil {
			for _, s := range wt.Supers {
				queue = append(queue, ix.ClassName(nil, wt, s, c))
			}
			continue
		}
		if cur == "java.lang.Object" || !c.Covers(cur) {
			continue
		}
		hasJDK = true
		if ec, _ := c.Class(cur); ec != nil {
			for _, m := range ec.Methods {
				if !slices.Contains(own, m.Name) && !m.Static {
					return m.Name, true
				}
			}
			queue = append(queue, ec.Supers...)
		}
	}
	return "", hasJDK
}
